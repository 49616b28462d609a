"""tilelang.testing on TilePlay: what TileLang's example tests use. The requires_* decorators
check the device when the test runs (TilePlay's device target, so no torch is needed to ask)
and skip with unittest.SkipTest, which pytest and unittest both report as a skip; main() runs the
calling file's test_* functions itself, so pytest is not needed; process_func / regression
time an example's regression_* entry points as TileLang's perf-regression scripts do."""

import functools
import importlib.util
import inspect
import random
import sys
import time
import traceback
import unittest

from .utils.tensor import torch_assert_close  # noqa: F401 - re-exported as TileLang does


def _torch_cuda():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def compute_version():
    """(major, minor) of CUDA device 0 as TilePlay sees it ("sm_90a" -> (9, 0)); (0, 0) without
    one."""
    import tileplay
    try:
        target = tileplay.device_target(0)
    except ImportError:
        target = None
    if not target:
        return (0, 0)
    digits = "".join(ch for ch in target[3:] if ch.isdigit())
    return (int(digits[:-1]), int(digits[-1]))


def _skip_unless(condition, reason):
    """A decorator running the test only when condition() holds, else raising SkipTest."""
    def wrap(func):
        @functools.wraps(func)
        def run(*args, **kwargs):
            if not condition():
                raise unittest.SkipTest(reason() if callable(reason) else reason)
            return func(*args, **kwargs)
        return run
    return wrap


def _has_cuda():
    return compute_version() != (0, 0) and _torch_cuda()


requires_cuda = _skip_unless(_has_cuda, "needs a CUDA device and torch with CUDA")


def requires_cuda_compute_version(major_version, minor_version=0, mode="ge"):
    want = (major_version, minor_version)
    ops = {"ge": lambda a, b: a >= b, "gt": lambda a, b: a > b, "le": lambda a, b: a <= b,
           "lt": lambda a, b: a < b, "eq": lambda a, b: a == b}
    if mode not in ops:
        raise ValueError("Invalid mode: %s" % mode)
    return _skip_unless(lambda: _has_cuda() and ops[mode](compute_version(), want),
                        lambda: "needs CUDA compute %s %d.%d, the device has %d.%d" % ((mode,) + want + compute_version()))


def requires_cuda_compute_version_ge(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "ge")


def requires_cuda_compute_version_gt(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "gt")


def requires_cuda_compute_version_eq(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "eq")


def requires_cuda_compute_version_lt(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "lt")


def requires_cuda_compute_version_le(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "le")


def requires_package(*packages):
    """Skips unless every package imports (TVM's decorator, as TileLang re-exports it)."""
    missing = lambda: [p for p in packages if importlib.util.find_spec(p) is None]  # noqa: E731
    return _skip_unless(lambda: not missing(), lambda: "needs package(s) %s" % ", ".join(missing()))


def _never(reason):
    return _skip_unless(lambda: False, reason)


requires_rocm = requires_cdna = requires_gfx950 = _never("needs an AMD GPU; TilePlay targets NVIDIA")
requires_metal = _never("needs Metal; TilePlay targets NVIDIA")
requires_llvm = _never("needs TVM's LLVM CPU target; TilePlay's CPU runs are its interpreter")
requires_cuda_or_cdna = requires_cuda


def set_random_seed(seed=42):
    random.seed(seed)
    try:
        import numpy as np
        np.random.seed(seed)
    except ImportError:
        pass
    try:
        import torch
    except ImportError:
        return
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def main():
    """Runs the calling file's test_* functions (no pytest): each one's pass, skip or failure is
    printed; exits 1 when one failed."""
    caller = sys._getframe(1).f_globals
    tests = [(name, fn) for name, fn in caller.items() if name.startswith("test") and callable(fn)]
    failed = 0
    for name, fn in tests:
        try:
            fn()
            print("PASSED %s" % name)
        except unittest.SkipTest as e:
            print("SKIPPED %s: %s" % (name, e))
        except Exception:  # noqa: BLE001 - report each test and go on, as pytest does
            traceback.print_exc()
            print("FAILED %s" % name)
            failed += 1
    print("%d passed or skipped, %d failed" % (len(tests) - failed, failed))
    sys.exit(1 if failed else 0)


_RESULTS = []  # (name, latency) of process_func calls, printed by regression()


def process_func(func, name=None, /, **kwargs):
    """Runs an example's run_regression_perf(**kwargs) and keeps the latency it returns."""
    result = getattr(func, "__module__", "<unknown>") if name is None else name
    if result.startswith("regression_"):
        result = result[len("regression_"):]
    latency = float(func(**kwargs))
    if latency > 0.0:
        _RESULTS.append((result, latency))


def regression(prefixes=("regression_",), verbose=True):
    """Calls the caller module's regression_* functions in name order and prints each latency."""
    caller = inspect.currentframe().f_back.f_globals
    _RESULTS.clear()
    funcs = sorted((k, v) for k, v in list(caller.items()) if callable(v) and any(k.startswith(p) for p in prefixes))
    for i, (name, fn) in enumerate(funcs, 1):
        start = time.perf_counter()
        fn()
        if verbose:
            print("  [%d/%d] %s (%.2fs)" % (i, len(funcs), name, time.perf_counter() - start), flush=True)
    for name, latency in _RESULTS:
        print("%s: %s" % (name, latency))
