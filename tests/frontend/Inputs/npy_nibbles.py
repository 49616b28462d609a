"""Checks that an int32 .npy written by `tilec run --save-outputs` holds the two 4-bit values of
each byte of an int8 .npy (`--save-inputs`), low nibble first, times SCALE (no numpy needed):
npy_nibbles.py PACKED.npy OUT.npy SCALE"""
import ast
import struct
import sys


def load(path, descr, code):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", "not a .npy file"
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode())
    assert header["descr"] == descr, header
    (n,) = header["shape"]
    size = struct.calcsize(code)
    return struct.unpack("<%d%s" % (n, code), data[10 + hlen:10 + hlen + size * n])


packed = load(sys.argv[1], "|i1", "b")
out = load(sys.argv[2], "<i4", "i")
scale = int(sys.argv[3])
assert len(out) == 2 * len(packed), (len(out), len(packed))
for i, byte in enumerate(packed):
    for j in range(2):
        want = ((byte >> (4 * j)) & 15) * scale
        if out[2 * i + j] != want:
            sys.exit("B[%d] = %d, expected %d (byte %d)" % (2 * i + j, out[2 * i + j], want, byte))
print("ok", len(out))
