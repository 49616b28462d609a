"""tileplay.compile() and Kernel: a kernel factory of a TileLang file compiled by TilePlay's C++
compiler (through libtileplay), with its code, its parameters, and calls on numpy arrays (the CPU
interpreter) or torch CUDA tensors (a launch on torch's current stream)."""

import ctypes
import functools
import os
from collections import namedtuple

from . import _lib

# Stages in the order the compiler produces them; a handle compiled to a later stage has every
# earlier one too.
_STAGES = ("ir", "lowered", "cuda", "ptx", "cubin")


class TilePlayError(RuntimeError):
    """A compile or run that failed; the message starts with the first error as
    file:line:col: message."""


class CompileError(TilePlayError):
    """The compiler refused the kernel; `diagnostics` holds every message with its source line."""

    def __init__(self, message, diagnostics=""):
        full = message if not diagnostics or diagnostics.strip() in message else message + "\n" + diagnostics
        super().__init__(full)
        self.error = message
        self.diagnostics = diagnostics


# is_workspace: a T.alloc_global buffer, allocated (zeroed) with the outputs on each call but
# neither passed by the caller nor returned.
Param = namedtuple("Param", "name dtype shape shape_text is_output is_scalar is_dimension is_workspace")
Param.__doc__ = """A kernel parameter: shape holds None for a dimension left symbolic, whose name
is in shape_text. A scalar that is such a dimension (is_dimension) is bound from the tensors'
shapes: calls take no value for it."""


def _format_value(name, value):
    """A factory argument as the text the C++ front end parses as a Python value: int, float,
    bool, None, a dtype or string (its text), else a Python expression (see _literal)."""
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if hasattr(value, "__tileplay_dtype__"):
        return value.__tileplay_dtype__
    if isinstance(value, str):
        return str(value)
    dtype_name = _dtype_name(value)
    return dtype_name if dtype_name else _literal(name, value)


def _dtype_name(value):
    """The name of a numpy or torch dtype (np.dtype("float16"), torch.float16), else None."""
    module = type(value).__module__.split(".")[0]
    if module == "numpy" and type(value).__name__.startswith("dtype"):
        return value.name
    if module == "torch" and str(value).startswith("torch."):
        return str(value)[len("torch."):]
    return None


def _literal(name, value):
    """`value` as Python source, which the front end evaluates (a define that starts with `(`,
    `[` or `T.` is an expression): tuples and lists of ints, floats, bools, None and strings
    (dtypes quoted, as TileLang takes dtype strings), numpy scalars, and a `T.<name>` that
    tilelang.language stands in for, such as T.GemmWarpPolicy.Square."""
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(str(value))
    if isinstance(value, (tuple, list)):
        items = [_literal(name, v) for v in value]
        if isinstance(value, list):
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if type(value).__module__ == "numpy" and getattr(value, "shape", None) == ():  # np.int64(3)
        return _literal(name, value.item())
    dtype_name = _dtype_name(value)
    if dtype_name:
        return repr(dtype_name)
    source = getattr(value, "__tileplay_source__", None)
    if source:
        return source
    raise TypeError("argument `%s` = %r: TilePlay passes ints, floats, bools, None, strings, dtypes, tuples and "
                    "lists of those, and T.<name> values such as T.GemmWarpPolicy.Square to a kernel factory"
                    % (name, value))


def _strings(items):
    arr = (ctypes.c_char_p * max(1, len(items)))()
    for i, s in enumerate(items):
        arr[i] = s.encode()
    return arr


class _Handle:
    """Owns one tp_kernel*; freed with the object."""

    def __init__(self, ptr):
        self.ptr = ptr

    def __del__(self):
        try:
            if self.ptr and _lib._lib is not None:
                _lib._lib.tp_kernel_free(self.ptr)
                self.ptr = None
        except (AttributeError, TypeError):  # interpreter shutdown: modules already torn down
            pass


class Kernel:
    """A compiled kernel factory. Code for later stages is compiled when first asked for."""

    def __init__(self, path, kernel=None, defines=None, target=None, pass_configs=None, stage="ir", out_idx=None):
        self.path = os.path.abspath(path)
        self.kernel = kernel
        self.defines = {k: _format_value(k, v) for k, v in (defines or {}).items()}
        self.target = target or device_target(0) or "sm_90a"
        self.pass_configs = {str(k): _format_value(str(k), v) for k, v in (pass_configs or {}).items()}
        self._handles = {}
        self._compile(stage)
        h = self._best()
        lib = _lib.lib()
        self.name = _lib.text(lib.tp_kernel_name(h.ptr))
        self.factory = _lib.text(lib.tp_kernel_factory(h.ptr))
        self.params = [self._param(lib, h.ptr, i) for i in range(lib.tp_kernel_num_params(h.ptr))]
        if out_idx is not None:
            self._set_outputs(out_idx)
        # Each `T.Kernel` block of the function is a launch of its own; a call runs them all.
        self.num_launches = lib.tp_kernel_num_launches(h.ptr)
        bound = _lib.text(lib.tp_kernel_bound_params(h.ptr)).splitlines()
        self.bound_params = dict(line.split("=", 1) for line in bound if "=" in line)

    @staticmethod
    def _param(lib, ptr, i):
        ndim = lib.tp_kernel_param_ndim(ptr, i)
        dims = [lib.tp_kernel_param_dim(ptr, i, d) for d in range(ndim)]
        texts = [_lib.text(lib.tp_kernel_param_dim_text(ptr, i, d)) for d in range(ndim)]
        return Param(_lib.text(lib.tp_kernel_param_name(ptr, i)), _lib.text(lib.tp_kernel_param_dtype(ptr, i)),
                     tuple(d if d >= 0 else None for d in dims), tuple(texts),
                     bool(lib.tp_kernel_param_is_output(ptr, i)), bool(lib.tp_kernel_param_is_scalar(ptr, i)),
                     bool(lib.tp_kernel_param_is_dimension(ptr, i)), bool(lib.tp_kernel_param_is_workspace(ptr, i)))

    def _set_outputs(self, out_idx):
        """Marks the parameters out_idx names (an index or a list; negative from the end) as the
        outputs, over the file's own out_idx: the C++ side checks and runs every parameter alike,
        so which ones a call allocates is this package's choice."""
        # The signature's parameters come first; dimension parameters (T.dynamic) and
        # workspaces (T.alloc_global) follow them and never count, as in TileLang's out_idx.
        n = len([p for p in self.params if not p.is_workspace and not p.is_dimension])
        chosen = set()
        for i in [out_idx] if isinstance(out_idx, int) else list(out_idx):
            if not -n <= i < n:
                raise IndexError("out_idx %d is out of range for %d parameters" % (i, n))
            chosen.add(i % n)
        self.params = [p._replace(is_output=i in chosen or p.is_workspace) for i, p in enumerate(self.params)]

    def _best(self):
        return self._handles[max(self._handles, key=_STAGES.index)]

    def _compile(self, stage):
        """The handle of a compile that reached `stage` (an existing later one will do)."""
        for s in _STAGES[_STAGES.index(stage):]:
            if s in self._handles:
                return self._handles[s]
        lib = _lib.lib()
        defines = ["%s=%s" % kv for kv in self.defines.items()]
        configs = ["%s=%s" % kv for kv in self.pass_configs.items()]
        ptr = lib.tp_compile(self.path.encode(), self.kernel.encode() if self.kernel else None, _strings(defines),
                             len(defines), self.target.encode(), _strings(configs), len(configs), stage.encode())
        if not ptr:
            raise MemoryError("libtileplay could not allocate a kernel handle")
        h = _Handle(ptr)
        if not lib.tp_kernel_ok(ptr):
            raise CompileError(_lib.text(lib.tp_kernel_error(ptr)), _lib.text(lib.tp_kernel_diagnostics(ptr)))
        self._handles[stage] = h
        return h

    @property
    def cuda(self):
        """The generated CUDA C++ source."""
        return _lib.text(_lib.lib().tp_kernel_cuda(self._compile("cuda").ptr))

    @property
    def ptx(self):
        return _lib.text(_lib.lib().tp_kernel_ptx(self._compile("ptx").ptr))

    @property
    def cubin(self):
        size = ctypes.c_size_t(0)
        data = _lib.lib().tp_kernel_cubin(self._compile("cubin").ptr, ctypes.byref(size))
        return ctypes.string_at(data, size.value) if data else b""

    def work(self):
        """(flops, global bytes, exact, assumptions): the work counted on the kernel's Tile IR
        (T.gemm flops; bytes moved to and from global memory), over every block and loop trip;
        not exact where a runtime trip count or a branch was assumed (the assumptions say where)."""
        h = self._compile("ir").ptr
        lib = _lib.lib()
        flops, nbytes = ctypes.c_double(0), ctypes.c_double(0)
        exact = lib.tp_kernel_work(h, ctypes.byref(flops), ctypes.byref(nbytes))
        if exact < 0:
            raise TilePlayError("%s: no evaluated kernel to count" % self.name)
        return flops.value, nbytes.value, exact == 1, _lib.text(lib.tp_kernel_work_assumptions(h)).splitlines()

    @property
    def launch_names(self):
        """The __global__ function of each launch, in the order a call launches them."""
        h = self._compile("cuda").ptr
        lib = _lib.lib()
        return [_lib.text(lib.tp_kernel_launch_name(h, i)) for i in range(lib.tp_kernel_num_launches(h))]

    @property
    def diagnostics(self):
        """Warnings of the latest compile, rendered with their source lines."""
        return _lib.text(_lib.lib().tp_kernel_diagnostics(self._best().ptr))

    def __call__(self, *args):
        """Runs the kernel: on torch CUDA tensors it launches on torch's current stream, else on
        numpy arrays with the CPU interpreter (a kernel called with no arguments at all runs on the
        GPU where torch has one, else on the CPU). Pass the inputs (then the outputs out_idx names
        are allocated and returned: one array, or a list) or every parameter (run in place,
        returns None). Scalar parameters take Python numbers in their place."""
        from . import _run
        if any(_run.is_torch_cuda(a) for a in args) or (not args and _run.torch_cuda_available()):
            return _run.call_torch(self, args)
        return _run.call_numpy(self, args)

    def __repr__(self):
        return "<tileplay.Kernel %s of %s:%s %s>" % (self.name, os.path.basename(self.path), self.factory,
                                                     self.bound_params)


def compile(path, kernel=None, defines=None, target=None, pass_configs=None, stage="ir", out_idx=None):
    """Compiles the factory `kernel` (None: the file's only / first) of the TileLang file at
    `path` with `defines` (the factory's arguments by name) for `target` ("sm_80", "sm_90a",
    ...). Raises CompileError carrying file:line:col and the diagnostics. `stage` is how far to
    compile now ("ir" suffices for the CPU); .cuda, .ptx, .cubin and GPU calls compile further
    when first used. `out_idx` (an index or list, as in @tilelang.jit) overrides which
    parameters a call allocates and returns; None keeps the file's."""
    return Kernel(path, kernel, defines, target, pass_configs, stage, out_idx)


def cuda_device_count():
    return _lib.lib().tp_cuda_device_count()


@functools.lru_cache(maxsize=None)  # asked on every compile; a device's target never changes
def device_target(device=0):
    """The target TilePlay compiles for on CUDA device `device` ("sm_90a" on an H100/H200), or
    None without one."""
    buf = ctypes.create_string_buffer(32)
    return buf.value.decode() if _lib.lib().tp_cuda_device_target(device, buf, len(buf)) == 0 else None


def target_figures(target):
    """{"dram_gbps", "fp16_tflops", "sm_count"} of TilePlay's table for `target` ("sm_80",
    "sm_90a", ...: its example GPU's figures), or None for a target it does not know."""
    bw, tf, sms = ctypes.c_double(0), ctypes.c_double(0), ctypes.c_int(0)
    if _lib.lib().tp_target_figures(target.encode(), ctypes.byref(bw), ctypes.byref(tf), ctypes.byref(sms)):
        return None
    return {"dram_gbps": bw.value, "fp16_tflops": tf.value, "sm_count": sms.value}
