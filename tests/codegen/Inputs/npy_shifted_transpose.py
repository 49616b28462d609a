"""Checks B.npy against A.npy (float32 N x N, from `tilec run --save-inputs/--save-outputs`, no
numpy needed): B[i][j] == A[j - 1][i] for j > 0 and B[i][0] == 0 (ptx_cp_async.py's rows copied
one down with a predicated zero fill, read back transposed): npy_shifted_transpose.py A.npy B.npy"""
import ast
import struct
import sys


def load(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", "not a .npy file"
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode())
    assert header["descr"] == "<f4", header
    n = header["shape"][0]
    vals = struct.unpack("<%df" % (n * n), data[10 + hlen:10 + hlen + 4 * n * n])
    return n, vals


n, a = load(sys.argv[1])
_, b = load(sys.argv[2])
for i in range(n):
    for j in range(n):
        want = a[(j - 1) * n + i] if j > 0 else 0.0
        if b[i * n + j] != want:
            sys.exit("B[%d][%d] = %g, expected %g" % (i, j, b[i * n + j], want))
print("ok")
