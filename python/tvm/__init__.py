"""The few `tvm` names TileLang scripts touch in Python, for scripts run on TilePlay (there is no
TVM: TilePlay's C++ front end compiles kernels, and evaluates tvm.DataType, tvm.tirx.const and
friends itself where kernel code uses them). Here: DataType with its bits and lanes for host
code, and the tir/tirx/target/testing submodules whose names resolve so module-level imports
and annotations (`val: tirx.PrimExpr`) evaluate; kernel-only names are placeholders."""

from tilelang.language import Placeholder, dtype


# TileLang's T.dtype is tvm.DataType; one class keeps `isinstance` and the queries the same.
DataType = dtype


_SUBMODULES = ("tir", "tirx", "target", "testing")


def __getattr__(name):  # PEP 562: tvm.<anything else> only inside kernels
    if name.startswith("__"):
        raise AttributeError(name)
    if name in _SUBMODULES:  # `from tvm import tirx` asks the package before importing
        import importlib
        return importlib.import_module("tvm." + name)
    return Placeholder("tvm." + name)
