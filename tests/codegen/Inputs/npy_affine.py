"""Checks that a float32 .npy written by `tilec run --save-outputs` is scale * x + offset of
another (`--save-inputs`), element by element (no numpy needed):
npy_affine.py IN.npy OUT.npy SCALE OFFSET"""
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
    return struct.unpack("<%df" % n, data[10 + hlen:10 + hlen + 4 * n])


x, y = load(sys.argv[1]), load(sys.argv[2])
scale, offset = float(sys.argv[3]), float(sys.argv[4])
assert len(x) == len(y), (len(x), len(y))
for i, (a, b) in enumerate(zip(x, y)):
    want = scale * a + offset
    if abs(b - want) > 1e-5 * max(1.0, abs(want)):
        sys.exit("element %d = %r, expected %r" % (i, b, want))
print("ok", len(y))
