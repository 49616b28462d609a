"""Checks a uint32 [blocks, n] .npy of T.rng_rand draws (rng.py: block b seeded with
T.rng_init(seed, b, 4 * b + 1)) against Philox4x32-10 computed here, on cuRAND's Philox state
layout (key = seed; counter = seq << 64 | off / 4; words from off % 4 on), after checking this
Philox against Random123's known-answer vectors: npy_philox.py OUT.npy SEED"""
import ast
import struct
import sys

M32 = 0xFFFFFFFF


def philox(ctr, key):
    c, k = list(ctr), list(key)
    for r in range(10):
        if r:
            k = [(k[0] + 0x9E3779B9) & M32, (k[1] + 0xBB67AE85) & M32]
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & M32, (p0 >> 32) ^ c[3] ^ k[1], p0 & M32]
    return c


assert philox([0, 0, 0, 0], [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
assert philox([M32] * 4, [M32, M32]) == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]


def draws(seed, seq, off, n):
    counter = (seq << 64) | (off // 4)
    out, pos = [], off % 4
    while len(out) < n:
        words = philox([(counter >> (32 * i)) & M32 for i in range(4)], [seed & M32, seed >> 32])
        out += words[pos:]
        pos, counter = 0, counter + 1
    return out[:n]


data = open(sys.argv[1], "rb").read()
assert data[:6] == b"\x93NUMPY", "not a .npy file"
hlen = struct.unpack("<H", data[8:10])[0]
header = ast.literal_eval(data[10:10 + hlen].decode())
assert header["descr"] == "<u4", header
blocks, n = header["shape"]
vals = struct.unpack("<%dI" % (blocks * n), data[10 + hlen:10 + hlen + 4 * blocks * n])
seed = int(sys.argv[2])
for b in range(blocks):
    want = draws(seed, b, 4 * b + 1, n)
    got = list(vals[b * n:(b + 1) * n])
    if got != want:
        sys.exit("block %d: %s, expected %s" % (b, [hex(x) for x in got], [hex(x) for x in want]))
print("ok")
