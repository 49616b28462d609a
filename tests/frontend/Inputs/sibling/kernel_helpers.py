# A helper module beside a kernel file (tests/frontend/sibling_module.py copies both into one
# folder): plain Python the kernel factory calls at trace time, plus host code it never uses.
import torch

LOG2_E = 1.4426950408889634
_SUPPORTED_BLOCKS = (16, 32, 64)
DEVICE = torch.device("cuda")


def check_block(block: int, n: int):
    assert block in _SUPPORTED_BLOCKS, f"block must be one of {_SUPPORTED_BLOCKS}, got {block}"
    assert n % block == 0, f"n ({n}) must be divisible by block ({block})"


def scaled(x, factor):
    return x * factor * _half()


def _half():
    return 0.5


def reference(a):
    return a.float() * LOG2_E
