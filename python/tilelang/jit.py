"""tilelang.jit on TilePlay. Calling a decorated factory never runs it: the call's arguments are
bound to the factory's signature (inspect reads it without executing the body) and passed, with
the factory's name and source file, to TilePlay's C++ compiler, which reads the file itself.
Kernels are cached per argument set."""

import functools
import inspect
import weakref

import tileplay

from ._eager import is_builder_style, tensor_symbols
from .profiler import Profiler, TensorSupplyType

_UNREAD = object()


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

    def run_once(self, func=None):
        """One call on inputs the profiler makes; returns the outputs."""
        return self.get_profiler().run_once(func)

    def get_host_source(self):
        return "// TilePlay launches kernels through its C ABI (libtileplay); there is no host source\n"

    def show_source(self):
        print(self.get_kernel_source())

    print_source_code = show_source

    @property
    def kernel_source(self):
        return self.get_kernel_source()

    @property
    def out_idx(self):
        return [i for i, p in enumerate(self.kernel.params) if p.is_output and not p.is_workspace]

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
        self._source_dims = _UNREAD  # tensor_symbols(func), read when first needed
        self._builder_style = None  # is_builder_style(func), read when first needed
        functools.update_wrapper(self, func)
        JITFactory._all.add(self)

    _all = weakref.WeakSet()  # every factory, so tilelang.cache.clear_cache() reaches them

    @classmethod
    def clear_all(cls):
        for f in list(cls._all):
            f.cache.clear()

    def defines(self, args, kwargs, partial=False):
        """The call's arguments by name, as given (defaults stay the file's own). `partial` is
        factory.compile(...) of an eager-style kernel: its tensor parameters are left out and its
        T.const symbols are named (`matmul.compile(M=1024, N=1024, K=1024, block_M=128)`), which
        the signature does not list; the front end checks every name it is given."""
        params = self.signature.parameters
        extra = {}
        if partial and not any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values()):
            extra = {k: v for k, v in kwargs.items() if k not in params}
            kwargs = {k: v for k, v in kwargs.items() if k in params}
        try:
            bound = (self.signature.bind_partial if partial else self.signature.bind)(*args, **kwargs)
        except TypeError as e:
            raise TypeError("%s%s: %s" % (self.func.__name__, self.signature, e)) from None
        out = {}
        for name, value in bound.arguments.items():
            kind = params[name].kind
            if kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                raise TypeError("%s: TilePlay binds named factory arguments only, not *%s" % (self.func.__name__, name))
            out[name] = value
        out.update(extra)
        return out

    def _kernel(self, defines, pass_configs=None):
        """The kernel for these arguments (cached); `pass_configs` adds to the factory's own, as
        an autotune configuration's "pass_configs" does."""
        from . import cache
        configs = {**self.pass_configs, **(pass_configs or {})}
        key = (tuple(sorted((k, repr(v)) for k, v in defines.items())),
               tuple(sorted((str(k), repr(v)) for k, v in configs.items())))
        if key not in self.cache or not cache.enabled:
            name, closure = _front_end_name(self.func.__qualname__, self.func.__globals__, _closure_of(self.func))
            # Usually the decorator is the file's own and the front end has read these already;
            # given again they agree, and a factory jit-wrapped only in Python still gets them.
            kernel = tileplay.compile(self.path, kernel=name, defines={**closure, **defines}, target=self.target,
                                      pass_configs=configs, out_idx=self.out_idx)
            self.cache[key] = JITKernel(kernel)
        return self.cache[key]

    def __call__(self, *args, **kwargs):
        defines = self.defines(args, kwargs)
        tensors = {k: v for k, v in defines.items() if _is_tensor(v)}
        if not tensors:
            kernel = self._kernel(defines)
            # TileLang's eager mode: a factory that builds its kernel itself runs when called,
            # even without tensors to pass (its outputs come from T.empty).
            if self._builder_style is None:
                self._builder_style = is_builder_style(self.func)
            return kernel() if self._builder_style else kernel
        kernel, order = self.specialize(defines, tensors)
        return kernel(*order)

    def specialize(self, defines, tensors, pass_configs=None):
        """The eager style (`A: T.Tensor[[M, K], dtype]` with `M, K = T.const(...)`) given
        tensors: each T.const symbol takes its value from the tensors' shapes, and the kernel is
        compiled for them (cached per shape). Returns the kernel and its call's arguments."""
        scalars = {k: v for k, v in defines.items() if k not in tensors}
        symbols = {}
        for name, texts in self._declared_dims(scalars, tensors, pass_configs).items():
            shape = tuple(tensors[name].shape)
            if len(shape) != len(texts):
                raise TypeError("`%s` has %d dimensions, the kernel declares %d (%s)"
                                % (name, len(shape), len(texts), ", ".join(t or "?" for t in texts)))
            for text, dim in zip(texts, shape):
                if text and text.isidentifier():
                    if symbols.setdefault(text, int(dim)) != int(dim):
                        raise ValueError("dimension `%s` is %d in one tensor and %d in `%s`"
                                         % (text, symbols[text], dim, name))
        kernel = self._kernel({**scalars, **symbols}, pass_configs)
        order = [p.name for p in kernel.kernel.params if not p.is_dimension and not p.is_output]
        missing = [n for n in order if n not in tensors and n not in scalars]
        if missing:
            raise TypeError("%s: no tensor given for %s" % (self.func.__name__, ", ".join(missing)))
        return kernel, [tensors.get(n, scalars.get(n)) for n in order]

    def _declared_dims(self, scalars, tensors, pass_configs):
        """{tensor parameter: the symbol or text of each dimension}: read from the factory's
        source where that names every T.const symbol not given (a kernel may size a fragment by
        one, and then compiles only once it is known), else from a compile without the shapes."""
        if self._source_dims is _UNREAD:
            self._source_dims = tensor_symbols(self.func)
        if self._source_dims is not None:
            dims, consts = self._source_dims
            named = {s for name in tensors for s in dims.get(name, ()) if s}
            if all(name in dims for name in tensors) and consts <= named | set(scalars):
                return {name: dims[name] for name in tensors}
        generic = self._kernel(scalars, pass_configs).kernel
        return {p.name: list(p.shape_text) for p in generic.params if p.name in tensors}

    def compile(self, *args, **kwargs):
        """factory.compile(...): the kernel for these arguments, which for an eager-style
        factory may leave its tensors out and name its T.const symbols (see defines)."""
        return self.build(self.defines(args, kwargs, partial=True))

    def build(self, defines, pass_configs=None):
        """The kernel for arguments already bound by name (tensors fix their symbols' values)."""
        tensors = {k: v for k, v in defines.items() if _is_tensor(v)}
        if not tensors:
            return self._kernel(defines, pass_configs)
        return self.specialize(defines, tensors, pass_configs)[0]

    def get_kernel_source(self, *args, **kwargs):
        """The CUDA C++ of factory.compile(*args, **kwargs)."""
        return self.compile(*args, **kwargs).get_kernel_source()

    def par_compile(self, configs, num_workers=None, ignore_error=False):
        """Compiles each configuration (a dict of arguments, or a tuple of positional ones)."""
        out = []
        for c in configs:
            try:
                out.append(self(**c) if isinstance(c, dict) else self(*c))
            except tileplay.TilePlayError:
                if not ignore_error:
                    raise
                out.append(None)
        return out

    def get_tir(self, *args, **kwargs):
        """The kernel's @T.prim_func for these arguments, as tilelang.compile() takes it; an
        eager-style factory's tensors may be left out (its T.const symbols named), as in compile."""
        from .language import PrimFunc
        return PrimFunc.of_factory(self.func, self.path, self.defines(args, kwargs, partial=True))


def _is_tensor(v):
    """A torch tensor or numpy array passed for an eager-style kernel's tensor parameter."""
    module = type(v).__module__.split(".")[0]
    if module == "numpy":  # np.float32(0.5) has a shape and a dtype too, but is a scalar argument
        return type(v).__name__ == "ndarray"
    return module == "torch" and hasattr(v, "shape") and hasattr(v, "dtype")


def _front_end_name(qualname, globals_, closure):
    """(the name TilePlay's front end knows a factory by, the closure values to give it): a
    module-level factory by its name; one defined in the body of a module-level function as
    "outer.inner", with the outer function's parameters it closes over (the front end binds them
    and runs the outer body before the def to rebuild the rest of the closure)."""
    parts = qualname.split(".<locals>.")
    if len(parts) == 1:
        return qualname, {}
    if len(parts) > 2 or "." in parts[0] or not callable(globals_.get(parts[0])):
        raise NotImplementedError("TilePlay compiles kernel factories defined at a file's top level or in the body of "
                                  "a module-level function; `%s` is nested deeper" % qualname)
    outer = inspect.signature(globals_[parts[0]]).parameters
    return parts[0] + "." + parts[1], {k: v for k, v in closure.items() if k in outer}


def _closure_of(func):
    cells = func.__closure__ or ()
    values = {}
    for name, cell in zip(func.__code__.co_freevars, cells):
        try:
            values[name] = cell.cell_contents
        except ValueError:  # a cell not filled yet
            pass
    return values


def compile(func, out_idx=None, target="auto", target_host=None, execution_backend="auto", verbose=False,
            pass_configs=None, compile_flags=None, **options):
    """tilelang.compile(prim_func, out_idx=..., target=..., pass_configs=...): `func` is what a
    @T.prim_func made in Python (at module level, or returned by a factory the script called);
    TilePlay's front end compiles that factory with the arguments it was called with."""
    from .language import PrimFunc
    if isinstance(func, JITFactory):
        return func()
    if isinstance(func, JITKernel):
        return func
    if not isinstance(func, PrimFunc):
        raise TypeError("tilelang.compile on TilePlay takes a @T.prim_func (got %s)" % type(func).__name__)
    if func.path is None:
        raise TypeError("tilelang.compile on TilePlay needs a kernel defined in a source file")
    name = func.factory or func.__name__
    defines = func.args if func.factory else {}
    if func.nested_in:
        name, closure = _front_end_name(func.nested_in + ".<locals>." + func.factory, func.globals, func.closure)
        defines = {**closure, **defines}
    tgt = None if target in (None, "auto", "cuda") else str(target)
    return JITKernel(tileplay.compile(func.path, kernel=name, defines=defines, target=tgt,
                                      pass_configs=pass_configs, out_idx=out_idx))


def jit(func=None, *, out_idx=None, pass_configs=None, target="auto", **options):
    """@tilelang.jit or @tilelang.jit(out_idx=..., pass_configs=..., target=...). Other TileLang
    options (execution_backend, verbose, ...) are accepted and have no effect here."""
    if func is not None and callable(func):
        return JITFactory(func, out_idx, pass_configs, target)
    return lambda f: JITFactory(f, out_idx, pass_configs, target)
