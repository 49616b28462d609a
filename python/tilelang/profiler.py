"""kernel.get_profiler() on TilePlay: inputs made from the kernel's signature, a check of the
kernel's outputs against a reference program (assert_allclose), and timing (do_bench). On a GPU
with torch the tensors are torch CUDA tensors; otherwise numpy arrays on the CPU interpreter."""

import enum
import time


class TensorSupplyType(enum.Enum):
    Integer = 1
    Uniform = 2
    Normal = 3
    Randn = 4
    Zero = 5
    One = 6
    Auto = 7


def _use_torch():
    try:
        import torch
    except ImportError:
        return False
    import tileplay
    return torch.cuda.is_available() and tileplay.cuda_device_count() > 0


def _numpy_input(p, supply, rng):
    import numpy as np
    if any(d is None for d in p.shape):
        raise ValueError("input `%s` has symbolic dimensions %s; pass input_tensors" % (p.name, p.shape_text))
    is_int = p.dtype.startswith(("int", "uint", "bool"))
    if supply == TensorSupplyType.Zero:
        values = np.zeros(p.shape)
    elif supply == TensorSupplyType.One:
        values = np.ones(p.shape)
    elif supply == TensorSupplyType.Integer or (supply == TensorSupplyType.Auto and is_int):
        values = rng.integers(-2, 3, size=p.shape)
    elif supply == TensorSupplyType.Uniform:
        values = rng.uniform(-1.0, 1.0, size=p.shape)
    else:
        values = rng.standard_normal(size=p.shape)
    if p.dtype == "bfloat16":  # numpy has no bfloat16: its bits, truncated from float32
        return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if p.dtype.startswith("float8"):
        raise NotImplementedError("numpy has no %s; pass input_tensors" % p.dtype)
    return values.astype(p.dtype)


def _torch_input(p, supply):
    import torch
    dtype = getattr(torch, {"float8_e4m3": "float8_e4m3fn"}.get(p.dtype, p.dtype))
    shape = tuple(p.shape)
    if any(d is None for d in shape):
        raise ValueError("input `%s` has symbolic dimensions %s; pass input_tensors" % (p.name, p.shape_text))
    is_int = not dtype.is_floating_point
    if supply == TensorSupplyType.Zero:
        return torch.zeros(shape, dtype=dtype, device="cuda")
    if supply == TensorSupplyType.One:
        return torch.ones(shape, dtype=dtype, device="cuda")
    if supply == TensorSupplyType.Integer or (supply == TensorSupplyType.Auto and is_int):
        return torch.randint(-2, 3, shape, device="cuda").to(dtype)
    if supply == TensorSupplyType.Uniform:
        return torch.empty(shape, device="cuda").uniform_(-1.0, 1.0).to(dtype)
    return torch.randn(shape, device="cuda").to(dtype)


def _as_float64(a, dtype_name=None):
    """Any output (torch tensor, numpy array, bfloat16 bits) as a float64 numpy array."""
    import numpy as np
    if type(a).__module__.startswith("torch"):
        return a.detach().float().cpu().numpy().astype(np.float64)
    a = np.asarray(a)
    if dtype_name == "bfloat16" and a.dtype == np.uint16:
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def _as_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


class Profiler:
    def __init__(self, kernel, supply_type=TensorSupplyType.Auto):
        self.kernel = kernel  # the JITKernel
        self.supply_type = supply_type
        self.torch = _use_torch()
        self.seed = 0

    @property
    def func(self):
        """The kernel itself, as TileLang's profiler.func (its adapter) is called directly."""
        return self.kernel

    def __call__(self, *args, **kwargs):
        return self.kernel(*args, **kwargs)

    def _get_inputs(self):
        import numpy as np
        rng = np.random.default_rng(self.seed)
        inputs = [p for p in self.kernel.params if not p.is_output]
        out = []
        for p in inputs:
            if p.is_scalar:
                raise ValueError("scalar parameter `%s` has no generated value; pass input_tensors" % p.name)
            out.append(_torch_input(p, self.supply_type) if self.torch else _numpy_input(p, self.supply_type, rng))
        return out

    def _sync(self):
        if self.torch:
            import torch
            torch.cuda.synchronize()

    def assert_allclose(self, reference_program, input_tensors=None, atol=1e-2, rtol=1e-2, max_mismatched_ratio=0.01):
        """Runs the kernel and reference_program on the same inputs and compares each output:
        an element mismatches when |out - ref| > atol + rtol * |ref|; AssertionError when more
        than max_mismatched_ratio of an output's elements do."""
        import numpy as np
        ins = self._get_inputs() if input_tensors is None else list(input_tensors)
        ref_outs = _as_list(reference_program(*ins))
        lib_outs = _as_list(self.kernel(*ins))
        self._sync()
        if len(lib_outs) != len(ref_outs):
            raise AssertionError("the kernel gave %d output(s), the reference %d" % (len(lib_outs), len(ref_outs)))
        out_params = [p for p in self.kernel.params if p.is_output and not p.is_workspace]
        for i, (lhs, rhs) in enumerate(zip(lib_outs, ref_outs)):
            if lhs is None or rhs is None:
                continue
            name = out_params[i].name if i < len(out_params) else "output %d" % i
            dtype = out_params[i].dtype if i < len(out_params) else None
            got, want = _as_float64(lhs, dtype), _as_float64(rhs, dtype)
            if got.shape != want.shape:
                raise AssertionError("`%s` has shape %s, the reference %s" % (name, got.shape, want.shape))
            diff = np.abs(got - want)
            bad = ~(diff <= atol + rtol * np.abs(want))
            ratio = float(bad.mean()) if bad.size else 0.0
            if ratio > max_mismatched_ratio:
                worst = int(np.nanargmax(np.where(np.isnan(diff), np.inf, diff)))
                raise AssertionError(
                    "`%s`: %.2f%% of %d elements differ from the reference (allowed %.2f%%, atol=%g, rtol=%g); "
                    "worst at flat index %d: %r vs %r" % (name, 100 * ratio, bad.size, 100 * max_mismatched_ratio, atol,
                                                          rtol, worst, got.flat[worst], want.flat[worst]))

    def run_once(self, func=None):
        return (func or self.kernel)(*self._get_inputs())

    def do_bench(self, func=None, warmup=25, rep=100, n_warmup=0, n_repeat=0, input_tensors=None, **kwargs):
        """Mean milliseconds per call of func (default: the kernel) on the profiler's inputs.
        warmup and rep are time budgets in ms unless n_warmup / n_repeat give counts. On a GPU
        calls are timed with CUDA events on torch's current stream; on the CPU with the
        wall clock."""
        fn = func or self.kernel
        ins = self._get_inputs() if input_tensors is None else list(input_tensors)
        return _bench(lambda: fn(*ins), warmup, rep, n_warmup, n_repeat, self.torch)


def _time_calls(fn, n, on_gpu):
    """Mean ms of n calls of fn: CUDA events around them on a GPU, else the wall clock."""
    if on_gpu:
        import torch
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(n):
            fn()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / n
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) * 1000.0 / n


def _bench(fn, warmup, rep, n_warmup, n_repeat, on_gpu):
    fn()  # the first GPU call compiles the cubin and loads it: kept out of the estimate
    if on_gpu:
        import torch
        torch.cuda.synchronize()
    est = _time_calls(fn, 3, on_gpu)

    def count(n, budget):
        return n if n > 0 else max(1, min(1000, int(budget / max(est, 1e-3))))

    _time_calls(fn, count(n_warmup, warmup), on_gpu)
    return _time_calls(fn, count(n_repeat, rep), on_gpu)


def do_bench(fn, warmup=25, rep=100, _n_warmup=0, _n_repeat=0, **kwargs):
    """tilelang.profiler.do_bench: mean milliseconds per call of fn() (no arguments), timed with
    CUDA events where torch has a GPU, else the wall clock. Other TileLang options (quantiles,
    backend, ...) are accepted and have no effect."""
    return _bench(fn, warmup, rep, _n_warmup, _n_repeat, _use_torch())
