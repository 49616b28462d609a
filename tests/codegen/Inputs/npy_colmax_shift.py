"""Checks that a float32 S x M .npy written by `tilec run --save-outputs` holds X[k][i] minus the
maximum of column i of X, a float32 S x M .npy (`--save-inputs`), element by element (no numpy
needed): npy_colmax_shift.py IN.npy OUT.npy"""
import ast
import struct
import sys


def load(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", "not a .npy file"
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode())
    assert header["descr"] == "<f4", header
    n = 1
    for d in header["shape"]:
        n *= d
    return tuple(header["shape"]), struct.unpack("<%df" % n, data[10 + hlen:10 + hlen + 4 * n])


(rows, cols), x = load(sys.argv[1])
shape, y = load(sys.argv[2])
assert shape == (rows, cols), (shape, rows, cols)
for i in range(cols):
    top = max(x[k * cols + i] for k in range(rows))
    for k in range(rows):
        want = x[k * cols + i] - top
        if abs(y[k * cols + i] - want) > 1e-5 * max(1.0, abs(top)):
            sys.exit("[%d][%d] is %r, expected %r" % (k, i, y[k * cols + i], want))
print("ok", rows, cols)
