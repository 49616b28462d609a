"""Modules of TileLang whose names only kernel code uses (tilelang.cuda.intrinsics' MMA helpers,
tilelang.layout, tilelang.tileop, tilelang.language.<sub>): TilePlay's C++ front end evaluates
them where a kernel or factory uses them, so in Python an import of any of them succeeds and
every name in them is a placeholder that explains itself if Python calls it."""

import importlib.abc
import importlib.machinery
import sys
import types

from .language import Placeholder

KERNEL_SIDE = ("tilelang.cuda", "tilelang.layout", "tilelang.tileop", "tilelang.language.")


class _PlaceholderModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Placeholder(self.__name__.replace("tilelang.language.", "").split("tilelang.")[-1] + "." + name)


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        module = _PlaceholderModule(spec.name)
        module.__path__ = []  # a package, so its submodules import too
        return module

    def exec_module(self, module):
        pass


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == p or name.startswith(p if p.endswith(".") else p + ".") for p in KERNEL_SIDE):
            return importlib.machinery.ModuleSpec(name, _Loader(), is_package=True)
        return None


def install():
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())  # last: real modules of ours (language) win
