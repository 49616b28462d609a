"""Checks that C.npy (float32 M x N, written by `tilec run --save-outputs`) is A @ B of A.npy
(M x K) and B.npy (K x N) (`--save-inputs`, float16 or float32) within fp32 accumulation error
(no numpy needed): npy_matmul.py A.npy B.npy C.npy"""
import ast
import struct
import sys


def load(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", "not a .npy file"
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode())
    code = {"<f2": "e", "<f4": "f"}[header["descr"]]
    rows, cols = header["shape"]
    vals = struct.unpack("<%d%s" % (rows * cols, code), data[10 + hlen:10 + hlen + struct.calcsize(code) * rows * cols])
    return [list(vals[r * cols:(r + 1) * cols]) for r in range(rows)]


a, b, c = (load(p) for p in sys.argv[1:4])
m, k, n = len(a), len(b), len(b[0])
assert len(a[0]) == k and len(c) == m and len(c[0]) == n, "shapes do not form a matrix product"
bt = [[b[p][j] for p in range(k)] for j in range(n)]
for i in range(m):
    for j in range(n):
        want = sum(x * y for x, y in zip(a[i], bt[j]))
        if abs(c[i][j] - want) > 1e-3 * (1 + abs(want)):
            sys.exit("%s[%d][%d] = %g, expected %g" % (sys.argv[3], i, j, c[i][j], want))
print("ok")
