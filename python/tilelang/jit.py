"""tilelang.jit on TilePlay. Calling a decorated factory never runs it: the call's arguments are
bound to the factory's signature (inspect reads it without executing the body) and passed, with
the factory's name and source file, to TilePlay's C++ compiler, which reads the file itself.
Kernels are cached per argument set."""

import functools
import inspect

import tileplay

from .profiler import Profiler, TensorSupplyType


class JITKernel:
    """A compiled kernel as TileLang's scripts use it: call it on torch CUDA tensors (a launch on
    torch's current stream) or numpy arrays (the CPU interpreter)."""

    def __init__(self, kernel):
        self.kernel = kernel  # the tileplay.Kernel

    def __call__(self, *args):
        return self.kernel(*args)

    @property
    def params(self):
        return self.kernel.params

    def get_kernel_source(self):
        """The generated CUDA C++."""
        return self.kernel.cuda

    def get_ptx(self):
        return self.kernel.ptx

    def get_profiler(self, tensor_supply_type=TensorSupplyType.Auto):
        return Profiler(self, tensor_supply_type)

    def __repr__(self):
        return "<tilelang.JITKernel on TilePlay: %r>" % (self.kernel,)


class JITFactory:
    """The factory under @tilelang.jit: `factory(*args)` compiles and returns a JITKernel."""

    def __init__(self, func, out_idx=None, pass_configs=None, target="auto"):
        path = inspect.getsourcefile(func)
        if path is None:
            raise TypeError("tilelang.jit on TilePlay needs a factory defined in a source file; %r has none" % func)
        self.func = func
        self.path = path
        self.out_idx = out_idx
        self.pass_configs = dict(pass_configs or {})
        self.target = None if target in (None, "auto", "cuda") else str(target)
        self.signature = inspect.signature(func)
        self.cache = {}
        functools.update_wrapper(self, func)

    def defines(self, args, kwargs):
        """The call's arguments by name, as given (defaults stay the file's own)."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError("%s%s: %s" % (self.func.__name__, self.signature, e)) from None
        out = {}
        for name, value in bound.arguments.items():
            kind = self.signature.parameters[name].kind
            if kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                raise TypeError("%s: TilePlay binds named factory arguments only, not *%s" % (self.func.__name__, name))
            out[name] = value
        return out

    def __call__(self, *args, **kwargs):
        defines = self.defines(args, kwargs)
        key = tuple(sorted((k, repr(v)) for k, v in defines.items()))
        if key not in self.cache:
            # Usually the decorator is the file's own and the front end has read these already;
            # given again they agree, and a factory jit-wrapped only in Python still gets them.
            kernel = tileplay.compile(self.path, kernel=self.func.__name__, defines=defines, target=self.target,
                                      pass_configs=self.pass_configs, out_idx=self.out_idx)
            self.cache[key] = JITKernel(kernel)
        return self.cache[key]

    def compile(self, *args, **kwargs):
        """factory.compile(...) as TileLang spells an explicit compile: the same as a call."""
        return self(*args, **kwargs)


def jit(func=None, *, out_idx=None, pass_configs=None, target="auto", **options):
    """@tilelang.jit or @tilelang.jit(out_idx=..., pass_configs=..., target=...). Other TileLang
    options (execution_backend, verbose, ...) are accepted and have no effect here."""
    if func is not None and callable(func):
        return JITFactory(func, out_idx, pass_configs, target)
    return lambda f: JITFactory(f, out_idx, pass_configs, target)
