"""A TileLang-compatible front door to TilePlay: `import tilelang` with this folder first on
sys.path, and TileLang scripts' @tilelang.jit factories compile with TilePlay's C++ compiler
(the kernel body is read from the source file, never executed by Python) and run on torch CUDA
tensors, or on numpy arrays with the CPU interpreter. See docs/python.md."""

from . import language
from .autotuner import autotune
from .jit import JITKernel, jit
from .profiler import Profiler, TensorSupplyType


def cdiv(a, b):
    """Ceiling division of integers, as host code sizes grids and buffers."""
    return -(-a // b)


class _PassConfigKeyType(type):
    """PassConfigKey.TL_DISABLE_WARP_SPECIALIZED == "tl.disable_warp_specialized": the key's
    name without TL_, lower-cased, as TileLang spells most of them."""

    def __getattr__(cls, name):
        if not name.startswith("TL_"):
            raise AttributeError(name)
        return "tl." + name[3:].lower()


class PassConfigKey(metaclass=_PassConfigKeyType):
    pass


__all__ = ["JITKernel", "PassConfigKey", "Profiler", "TensorSupplyType", "autotune", "cdiv", "jit", "language"]
