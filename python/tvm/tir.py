"""tvm.tir: the older spelling of tvm.tirx; placeholders for kernel-side names."""

from tilelang.language import Placeholder


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return Placeholder("tir." + name)
