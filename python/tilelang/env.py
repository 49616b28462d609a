"""tilelang.env on TilePlay: the settings scripts read (cache folder, cache switch)."""

import os

TILELANG_CACHE_DIR = os.environ.get("TILELANG_CACHE_DIR", os.path.expanduser("~/.tilelang/cache"))
TILELANG_TMP_DIR = os.path.join(TILELANG_CACHE_DIR, "tmp")
TILELANG_PRINT_ON_COMPILATION = os.environ.get("TILELANG_PRINT_ON_COMPILATION", "0")


def is_cache_enabled():
    from . import cache
    return cache.enabled


def disable_cache():
    from . import cache
    cache.disable_cache()


def enable_cache():
    from . import cache
    cache.enable_cache()
