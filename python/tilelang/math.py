"""tilelang.math: the integer helpers host code sizes tiles with."""


def next_power_of_2(x):
    """The smallest power of two >= x (1 for x <= 1)."""
    x = int(x)
    return 1 if x <= 1 else 1 << (x - 1).bit_length()


def cdiv(a, b):
    return -(-a // b)
