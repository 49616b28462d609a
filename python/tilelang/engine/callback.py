"""tilelang.engine.callback: TileLang lets a script rewrite the generated CUDA (or HIP, C,
Metal) source before it is compiled. TilePlay generates and compiles the CUDA inside its C++
library in one step, so there is no point at which Python could rewrite it: importing these
works (scripts import them and keep the use commented out), registering a callback says why
it cannot take effect instead of silently running unmodified code."""


def _refuse(kind):
    raise NotImplementedError("tilelang.engine.callback: TilePlay does not support %s post-processing callbacks; "
                              "its C++ library generates and compiles the kernel source in one step"
                              % kind)


def register_cuda_postproc(func, override=True):
    _refuse("CUDA")


def register_hip_postproc(func, override=True):
    _refuse("HIP")


def register_c_postproc(func, override=True):
    _refuse("C host")


def register_metal_postproc(func, override=True):
    _refuse("Metal")


def register_cuda_postproc_callback(func=None, override=True):
    """@register_cuda_postproc_callback, bare or called: refused when it decorates."""
    if callable(func):
        return register_cuda_postproc(func, override)
    return lambda f: register_cuda_postproc(f, override)


def register_hip_postproc_callback(func=None, override=True):
    if callable(func):
        return register_hip_postproc(func, override)
    return lambda f: register_hip_postproc(f, override)
