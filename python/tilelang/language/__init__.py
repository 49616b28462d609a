"""`import tilelang.language as T` for scripts run on TilePlay. TilePlay's C++ front end reads
the kernel body from the source file, so Python never executes it: what must exist here is only
what Python evaluates when the file is imported and the factory defined (decorators at module
level such as @T.macro and @T.prim_func, dtype names in default arguments, annotations such as
T.Tensor(...)). Every other `T.<name>` resolves to a placeholder that explains itself if Python
ever calls it."""

__all__ = ["PrimFunc", "prim_func", "on_prim_func", "macro", "Tensor", "Buffer", "FragmentBuffer", "SharedBuffer", "dtype", "Placeholder"]

from .dtypes import dtype  # noqa: E402


# Called with each PrimFunc made (tools such as tilelang.tools.cuda.iket read its source).
_listeners = []


def on_prim_func(listener):
    """Calls `listener(prim_func)` for every @T.prim_func made from now on."""
    _listeners.append(listener)


def _made(prim_func):
    for listener in _listeners:
        listener(prim_func)
    return prim_func


class PrimFunc:
    """What @T.prim_func makes when Python runs the code around it: the function as written and
    where it came from, so tilelang.compile() can hand TilePlay's front end the file, the
    factory's name and the arguments it was called with (the body is never run here).
    `factory` is None for a module-level @T.prim_func; `nested_in` names the function a
    factory is defined in (the front end compiles it as "outer.inner")."""

    def __init__(self, func, frame):
        import inspect
        self.func = func
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.path = inspect.getsourcefile(func)
        code = frame.f_code
        self.factory = None if code.co_name == "<module>" else code.co_name
        qualname = getattr(code, "co_qualname", code.co_name)
        self.nested_in = qualname.rsplit(".<locals>.", 1)[0] if ".<locals>." in qualname else None
        n = code.co_argcount + code.co_kwonlyargcount
        # The factory's arguments as they are now (a factory rarely reassigns one before
        # defining its kernel; when it does, the front end is given the new value).
        self.args = {name: frame.f_locals[name] for name in code.co_varnames[:n] if name in frame.f_locals}
        # A factory nested in a function reads that function's variables (its free variables).
        self.closure = {name: frame.f_locals[name] for name in code.co_freevars if name in frame.f_locals}
        self.globals = frame.f_globals

    @classmethod
    def of_factory(cls, factory, path, args):
        """The PrimFunc a module-level factory makes for `args`, without running it."""
        self = cls.__new__(cls)
        self.func, self.__name__, self.__doc__ = factory, factory.__name__, factory.__doc__
        self.path, self.factory, self.nested_in, self.args = path, factory.__name__, None, dict(args)
        self.closure, self.globals = {}, factory.__globals__
        return self

    def __call__(self, *args, **kwargs):
        raise RuntimeError("`%s` is a @T.prim_func: TilePlay compiles it from the source file; pass it to "
                           "tilelang.compile() and call the kernel that returns" % self.__name__)

    def __repr__(self):
        where = "%s(%s)" % (self.factory, ", ".join("%s=%r" % kv for kv in self.args.items())) if self.factory else ""
        return "<T.prim_func %s %s>" % (self.__name__, where)


def prim_func(func=None, **kwargs):
    """@T.prim_func, bare or with arguments: a PrimFunc recording the function and the call of
    the factory around it (TilePlay's front end stages the body from the source)."""
    import sys
    if func is None:
        frame = sys._getframe(1)
        return lambda f: _made(PrimFunc(f, frame))
    return _made(PrimFunc(func, sys._getframe(1)))


def macro(func=None, **kwargs):
    """@T.macro helpers are inlined by the front end; Python only defines them."""
    if func is None:
        return lambda f: f
    return func


for _name in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
              "bfloat16", "float32", "float64", "float8_e4m3", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
              "float8_e5m2fnuz"):
    globals()[_name] = dtype(_name)
    __all__.append(_name)
float = dtype("float32")  # noqa: A001 - TileLang's spelling of float32
half = dtype("float16")
double = dtype("float64")
int = dtype("int32")  # noqa: A001


class Tensor:
    """T.Tensor(shape, dtype) as an annotation (also T.Tensor[shape, dtype])."""

    def __init__(self, shape, dtype="float32", *args, **kwargs):
        self.shape = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
        self.dtype = str(dtype)

    def __class_getitem__(cls, item):
        return cls(*item) if isinstance(item, tuple) and len(item) == 2 else cls(item)

    def __repr__(self):
        return "T.Tensor(%r, %r)" % (self.shape, self.dtype)


Buffer = FragmentBuffer = SharedBuffer = LocalBuffer = StridedTensor = Tensor


class Placeholder:
    """A `T.<name>` that only the kernel body uses: TilePlay's compiler reads it from the file."""

    def __init__(self, name, source=None):
        self.__name__ = name
        # How a script spells it ("T.GemmWarpPolicy.Square"), so one passed to a factory reaches
        # the front end as that expression; None where TilePlay cannot name it so.
        self.__tileplay_source__ = source

    def __call__(self, *args, **kwargs):
        raise RuntimeError("T.%s runs only inside a kernel, which TilePlay compiles from the source file; Python "
                           "never executes the kernel body (call the @tilelang.jit factory instead)" % self.__name__)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        source = self.__tileplay_source__ and self.__tileplay_source__ + "." + attr
        return Placeholder(self.__name__ + "." + attr, source)

    def __repr__(self):
        return "<T.%s (compiled by TilePlay)>" % self.__name__


def __getattr__(name):  # PEP 562: T.Kernel, T.copy, T.gemm, T.Parallel, ...
    if name.startswith("__"):
        raise AttributeError(name)
    return Placeholder(name, "T." + name)


from . import fp8  # noqa: E402 - `T.fp8.determine_fp8_type()` is host code too
