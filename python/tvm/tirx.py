"""tvm.tirx (TileLang's TIR namespace): its names are evaluated inside kernels by TilePlay's C++
front end (tirx.const, tirx.reinterpret, tirx.Cast, ...); here they are placeholders so that
imports and annotations (`val: tirx.PrimExpr`) evaluate."""

from tilelang.language import Placeholder


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return Placeholder("tirx." + name)
