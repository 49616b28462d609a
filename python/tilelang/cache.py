"""tilelang.cache on TilePlay: kernels are cached per factory and arguments inside a process (no
disk cache), so clearing or disabling the cache only switches that off for new compiles."""

enabled = True


def disable_cache():
    global enabled
    enabled = False


def enable_cache():
    global enabled
    enabled = True


def clear_cache():
    from .jit import JITFactory
    JITFactory.clear_all()
