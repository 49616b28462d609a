"""A TileLang-compatible front door to TilePlay: `import tilelang` with this folder first on
sys.path, and TileLang scripts' @tilelang.jit factories compile with TilePlay's C++ compiler
(the kernel body is read from the source file, never executed by Python) and run on torch CUDA
tensors, or on numpy arrays with the CPU interpreter. See docs/python.md."""

import logging

from . import _kernel_side

_kernel_side.install()  # before anything imports tilelang.layout / tilelang.cuda.* names

import tvm  # noqa: E402 - TilePlay's small tvm (python/tvm), as `from tilelang import tvm`
from tvm import DataType  # noqa: E402

from . import cache, carver, contrib, env, language, math, testing, transform  # noqa: E402,F401
from .autotuner import AutoTuner, autotune  # noqa: E402
from .cache import clear_cache, disable_cache, enable_cache  # noqa: E402,F401
from .jit import JITKernel, compile, jit  # noqa: E402
from .profiler import Profiler, TensorSupplyType  # noqa: E402
from .transform import PassConfigKey  # noqa: E402

__version__ = "0.0.0+tileplay"


def cdiv(a, b):
    """Ceiling division of integers, as host code sizes grids and buffers."""
    return -(-a // b)


next_power_of_2 = math.next_power_of_2


def set_log_level(level):
    logging.getLogger("tilelang").setLevel(level)


def is_cache_enabled():
    return cache.enabled


__all__ = ["AutoTuner", "DataType", "JITKernel", "PassConfigKey", "Profiler", "TensorSupplyType", "autotune",
           "cdiv", "compile", "disable_cache", "jit", "language", "set_log_level", "tvm"]
