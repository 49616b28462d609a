"""Finds and loads libtileplay (the C ABI of core/include/tileplay/c_api.h) with ctypes and
declares its functions' signatures, so the rest of the package calls typed functions."""

import ctypes
import os

API_VERSION = 3  # TP_C_API_VERSION of the header this package was written against


class TensorArg(ctypes.Structure):
    """tp_tensor: one buffer with its dtype name and shape."""

    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_char_p),
        ("ndim", ctypes.c_int32),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
    ]


def _candidates():
    """Where the library may be: $TILEPLAY_LIB, next to the package (an install), then the
    build folders of the source tree the package sits in (python/ beside build*/)."""
    env = os.environ.get("TILEPLAY_LIB")
    if env:
        return [env]  # a user's choice: nothing else is tried
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.join(here, "libtileplay.so")]
    root = os.path.dirname(os.path.dirname(here))
    try:
        builds = sorted(d for d in os.listdir(root) if d.startswith("build"))
    except OSError:
        builds = []
    out += [os.path.join(root, d, "lib", "libtileplay.so") for d in builds]
    return out


def _declare(lib):
    c = ctypes
    kp = c.c_void_p  # tp_kernel*
    sigs = {
        "tp_api_version": (c.c_int, []),
        "tp_compile": (kp, [c.c_char_p, c.c_char_p, c.POINTER(c.c_char_p), c.c_size_t, c.c_char_p,
                            c.POINTER(c.c_char_p), c.c_size_t, c.c_char_p]),
        "tp_kernel_free": (None, [kp]),
        "tp_kernel_ok": (c.c_int, [kp]),
        "tp_kernel_error": (c.c_char_p, [kp]),
        "tp_kernel_diagnostics": (c.c_char_p, [kp]),
        "tp_kernel_name": (c.c_char_p, [kp]),
        "tp_kernel_factory": (c.c_char_p, [kp]),
        "tp_kernel_cuda": (c.c_char_p, [kp]),
        "tp_kernel_ptx": (c.c_char_p, [kp]),
        "tp_kernel_cubin": (c.POINTER(c.c_uint8), [kp, c.POINTER(c.c_size_t)]),
        "tp_kernel_bound_params": (c.c_char_p, [kp]),
        "tp_kernel_work": (c.c_int, [kp, c.POINTER(c.c_double), c.POINTER(c.c_double)]),
        "tp_kernel_work_assumptions": (c.c_char_p, [kp]),
        "tp_kernel_num_launches": (c.c_int, [kp]),
        "tp_kernel_launch_name": (c.c_char_p, [kp, c.c_int]),
        "tp_kernel_num_params": (c.c_int, [kp]),
        "tp_kernel_param_name": (c.c_char_p, [kp, c.c_int]),
        "tp_kernel_param_dtype": (c.c_char_p, [kp, c.c_int]),
        "tp_kernel_param_ndim": (c.c_int, [kp, c.c_int]),
        "tp_kernel_param_dim": (c.c_int64, [kp, c.c_int, c.c_int]),
        "tp_kernel_param_dim_text": (c.c_char_p, [kp, c.c_int, c.c_int]),
        "tp_kernel_param_is_output": (c.c_int, [kp, c.c_int]),
        "tp_kernel_param_is_scalar": (c.c_int, [kp, c.c_int]),
        "tp_kernel_param_is_workspace": (c.c_int, [kp, c.c_int]),
        "tp_kernel_param_is_dimension": (c.c_int, [kp, c.c_int]),
        "tp_kernel_run_cpu": (c.c_int, [kp, c.POINTER(TensorArg), c.c_size_t, c.POINTER(c.c_double), c.c_size_t,
                                        c.c_int]),
        "tp_kernel_launch": (c.c_int, [kp, c.c_int, c.c_void_p, c.POINTER(TensorArg), c.c_size_t,
                                       c.POINTER(c.c_double), c.c_size_t]),
        "tp_cuda_device_count": (c.c_int, []),
        "tp_cuda_device_target": (c.c_int, [c.c_int, c.c_char_p, c.c_size_t]),
        "tp_target_figures": (c.c_int, [c.c_char_p, c.POINTER(c.c_double), c.POINTER(c.c_double), c.POINTER(c.c_int)]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args


_lib = None


def lib():
    """The loaded library (loaded once); ImportError naming every place tried when absent."""
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    for path in _candidates():
        if not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            loaded = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        _declare(loaded)
        version = loaded.tp_api_version()
        if version != API_VERSION:
            raise ImportError("%s has C API version %d, this package needs %d" % (path, version, API_VERSION))
        _lib = loaded
        return _lib
    raise ImportError("libtileplay not found; build the tileplay_capi target or set TILEPLAY_LIB. Tried: "
                      + "; ".join(tried))


def text(raw):
    """A C string from the library as str ("" for NULL)."""
    return raw.decode("utf-8", "replace") if raw else ""
