#!/usr/bin/env python3
"""Reproduces tp::gelu_erf's polynomial (core/codegen/cuda/runtime/tp_common.cuh) and its error.

P(t) approximates log2(0.5 * erfc(t / sqrt 2)) on [0, 6]: a degree-8 Chebyshev interpolant,
converted to powers of t for Horner's rule, coefficients rounded to float32. The error report
evaluates the runtime's exact sequence in float32 (fmaf rounding per step) against a
double-precision GELU. Pure Python (math only), so it runs wherever the tests run.
Usage: scripts/fit_gelu.py [degree]
"""
import math
import struct
import sys

LO, HI = 0.0, 6.0


def f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def log2_tail(t):
    return math.log2(0.5 * math.erfc(t / math.sqrt(2.0)))


def chebyshev(fn, n):
    nodes = [math.cos(math.pi * (k + 0.5) / (n + 1)) for k in range(n + 1)]
    vals = [fn((HI - LO) / 2 * u + (HI + LO) / 2) for u in nodes]
    c = [2.0 / (n + 1) * sum(v * math.cos(math.pi * j * (k + 0.5) / (n + 1)) for k, v in enumerate(vals)) for j in range(n + 1)]
    c[0] /= 2
    return c


def to_powers_of_t(c):
    """Chebyshev series in u = (2t - LO - HI) / (HI - LO) -> coefficients of t^k."""
    n = len(c)
    T = [[1.0], [0.0, 1.0]]
    for k in range(2, n):
        a = [0.0] + [2 * v for v in T[k - 1]]
        b = T[k - 2] + [0.0] * (len(a) - len(T[k - 2]))
        T.append([x - y for x, y in zip(a, b)])
    in_u = [0.0] * n
    for j in range(n):
        for i, v in enumerate(T[j]):
            in_u[i] += c[j] * v
    s, o = 2 / (HI - LO), -(HI + LO) / (HI - LO)
    out = [0.0] * n
    for i, m in enumerate(in_u):
        for k in range(i + 1):
            out[k] += m * math.comb(i, k) * s**k * o ** (i - k)
    return [f32(v) for v in out]


def gelu_poly(x, coef):
    x = f32(x)
    t = min(abs(x), HI)
    p = coef[-1]
    for c in reversed(coef[:-1]):
        p = f32(p * t + c)
    e = f32(2.0**p)
    # max(x, 0) - t * E: x (1 - E) for x >= 0, x * E below (t = |x| there), one fused step
    return f32(max(x, 0.0) - t * e)


def gelu_ref(x):
    return 0.5 * x * math.erfc(-x / math.sqrt(2.0))


def main():
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    coef = to_powers_of_t(chebyshev(log2_tail, degree))
    for k, v in enumerate(coef):
        print(f"t^{k}: {v:.9e}f")
    worst_rel, worst_abs = 0.0, 0.0
    for i in range(-120000, 120001):
        x = i / 10000.0
        r, g = gelu_ref(x), gelu_poly(x, coef)
        worst_abs = max(worst_abs, abs(g - r) / max(1.0, abs(x)))
        if x >= -HI and r != 0:
            worst_rel = max(worst_rel, abs(g - r) / abs(r))
    print(f"max relative error on [-6, 12]: {worst_rel:.3e}; max |error| / max(1, |x|) on [-12, 12]: {worst_abs:.3e}")


if __name__ == "__main__":
    main()
