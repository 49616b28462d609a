"""Checks an int32 N x N .npy written by `tilec run --save-outputs` (no numpy needed):
`iota`: element [i][j] == i * N + j; `transpose`: element [i][j] == j * N + i;
`prefix`: element [i][j] == j + 1; `suffix`: element [i][j] == N - j."""
import ast
import struct
import sys

path, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(path, "rb").read()
assert data[:6] == b"\x93NUMPY", "not a .npy file"
hlen = struct.unpack("<H", data[8:10])[0]
header = ast.literal_eval(data[10:10 + hlen].decode())
assert header["descr"] == "<i4" and tuple(header["shape"]) == (n, n), header
vals = struct.unpack("<%di" % (n * n), data[10 + hlen:])
for i in range(n):
    for j in range(n):
        want = {"iota": i * n + j, "transpose": j * n + i, "prefix": j + 1, "suffix": n - j}[kind]
        if vals[i * n + j] != want:
            sys.exit("%s[%d][%d] = %d, expected %d" % (path, i, j, vals[i * n + j], want))
print("ok")
