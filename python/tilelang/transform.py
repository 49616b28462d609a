"""tilelang.transform on TilePlay: PassConfigKey (TileLang's pass-config names, passed to
TilePlay's compiler as given) and simplify_prim_func, a no-op here: the front end compiles the
factory as written."""


class _PassConfigKeyType(type):
    """PassConfigKey.TL_DISABLE_WARP_SPECIALIZED == "tl.disable_warp_specialized": the key's
    name without TL_, lower-cased, as TileLang spells most of them."""

    def __getattr__(cls, name):
        if not name.startswith("TL_"):
            raise AttributeError(name)
        return "tl." + name[3:].lower()


class PassConfigKey(metaclass=_PassConfigKeyType):
    pass


def simplify_prim_func(func):
    return func
