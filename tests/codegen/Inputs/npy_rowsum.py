"""Checks that a float32 vector .npy written by `tilec run --save-outputs` holds the row sums of
a float32 matrix .npy (`--save-inputs`), element by element (no numpy needed):
npy_rowsum.py IN.npy OUT.npy"""
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
(n,), y = load(sys.argv[2])
assert n == rows, (n, rows)
for i in range(rows):
    want = sum(x[i * cols:(i + 1) * cols])
    if abs(y[i] - want) > 1e-4 * max(1.0, sum(abs(v) for v in x[i * cols:(i + 1) * cols])):
        sys.exit("row %d sums to %r, expected %r" % (i, y[i], want))
print("ok", rows)
