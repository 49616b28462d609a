"""tilelang.autotune on TilePlay: each configuration of the factory's arguments is compiled by
TilePlay's compiler and timed with the profiler (CUDA events on a GPU; on the CPU the
interpreter's time, which says nothing of GPU speed but picks a kernel that runs), and the
fastest kernel is returned with its .config and .latency. Configurations that do not compile
are skipped; their errors are kept in the factory's last_errors."""

import contextlib

from .jit import JITFactory, _is_tensor

# The configuration key that holds pass configs rather than a factory argument (TileLang's
# _RESERVED_CONFIG_KEYS).
_PASS_CONFIGS = "pass_configs"

# Inputs given by `with set_autotune_inputs(...)`: autotuning times kernels on these.
_INPUTS = []


@contextlib.contextmanager
def set_autotune_inputs(*tensors):
    """Kernels autotuned inside the block are timed on these tensors (a list or the tensors)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    _INPUTS.append(list(tensors))
    try:
        yield
    finally:
        _INPUTS.pop()


def _bench(kernel, warmup, rep, inputs=None):
    profiler = kernel.get_profiler()
    inputs = inputs or (_INPUTS[-1] if _INPUTS else None)
    return profiler.do_bench(warmup=warmup, rep=rep, input_tensors=inputs)


class AutoTuneFactory:
    def __init__(self, factory, configs, warmup=25, rep=100):
        self.factory = factory if isinstance(factory, JITFactory) else JITFactory(factory)
        self.configs = configs
        self.warmup = warmup
        self.rep = rep
        self.cache = {}
        self.last_errors = []

    def _configs(self, args, kwargs):
        configs = self.configs(*args, **kwargs) if callable(self.configs) else self.configs
        return [dict(c) for c in configs or []]

    def __call__(self, *args, **kwargs):
        """Tunes, then as @tilelang.jit's call would: the kernel, or for an eager-style factory
        given tensors, the best kernel run on them."""
        kernel, call_args = self._tune(args, kwargs)
        return kernel if call_args is None else kernel(*call_args)

    def compile(self, *args, **kwargs):
        """The tuned kernel, never run (an eager-style factory's tensors may be left out)."""
        return self._tune(args, kwargs)[0]

    def _tune(self, args, kwargs):
        """The fastest kernel for this call and, where tensors were given, its call's arguments
        (else None); cached per call. Arguments given in the call are not tuned."""
        import tileplay
        bound = self.factory.defines(args, kwargs, partial=True)  # by name: a config may set any
        tensors = {k: v for k, v in bound.items() if _is_tensor(v)}
        configs = self._configs(args, kwargs)
        tuning = bool(configs) and not all(k in bound for k in configs[0] if k != _PASS_CONFIGS)
        configs = configs if tuning else [{}]  # every tuned argument given: nothing to tune
        key = tuple(sorted((k, repr(v) if k not in tensors else _shape_key(v)) for k, v in bound.items()))
        if key not in self.cache:
            best, self.last_errors = None, []
            _precompile(self.factory, tensors, [{**bound, **c} for c in configs])
            for config in configs:
                try:
                    kernel, call_args = _build(self.factory, {**bound, **config}, tensors)
                    latency = _bench(kernel, self.warmup, self.rep, call_args) if tuning else 0.0
                except (tileplay.TilePlayError, TypeError, ValueError) as e:
                    self.last_errors.append((config, str(e)))
                    continue
                if best is None or latency < best[0]:
                    best = (latency, config, kernel)
            if best is None:
                raise RuntimeError("autotune: none of the %d configurations compiled and ran; the first failed "
                                   "with:\n%s" % (len(configs), self.last_errors[0][1] if self.last_errors else "(none)"))
            latency, config, kernel = best
            kernel.config, kernel.latency = config, latency
            self.cache[key] = (kernel, config)
        kernel, config = self.cache[key]
        if not tensors:
            return kernel, None
        return _build(self.factory, {**bound, **config}, tensors)


def _build(factory, defines, tensors):
    """The kernel of one configuration, and its call's arguments when tensors are given; a
    configuration's "pass_configs" entry adds to the factory's pass configs (as in TileLang)."""
    defines = dict(defines)
    pass_configs = defines.pop(_PASS_CONFIGS, None)
    if not tensors:
        return factory.build(defines, pass_configs), None
    return factory.specialize(defines, tensors, pass_configs)


def _precompile(factory, tensors, configs):
    """Compiles every configuration's kernel at once on a thread pool before any is timed, as
    TileLang's autotuner does: libtileplay compiles outside the GIL, so a space of dozens of
    configurations is not a serial queue of NVRTC runs. Errors are left for the timing loop,
    which builds each kernel again (from the factory's cache) and reports them."""
    import os
    from concurrent.futures import ThreadPoolExecutor
    from tileplay import _run
    gpu = any(_run.is_torch_cuda(t) for t in tensors.values()) or (not tensors and _run.torch_cuda_available())

    def one(config):
        try:
            kernel = _build(factory, config, tensors)[0]
            kernel.kernel._compile("cubin" if gpu else "ir")
        except Exception:  # noqa: BLE001 - reported by the timing loop
            pass

    if len(configs) > 1:
        with ThreadPoolExecutor(max_workers=min(len(configs), os.cpu_count() or 1)) as pool:
            list(pool.map(one, configs))


def _shape_key(tensor):
    return "%s%s" % (getattr(tensor, "dtype", ""), tuple(tensor.shape))


def autotune(func=None, *, configs=None, warmup=25, rep=100, **options):
    """@tilelang.autotune(configs=[{...}, ...]) above @tilelang.jit. `configs` is a list of
    dicts of factory arguments, or a callable taking the factory's arguments and returning one.
    Other TileLang options (timeout, cache_input_tensors, ...) are accepted and have no effect."""
    if func is not None and callable(func):
        return AutoTuneFactory(func, configs, warmup, rep)
    return lambda f: AutoTuneFactory(f, configs, warmup, rep)


class AutotuneResult:
    """What AutoTuner.run returns: the fastest kernel, its configuration and latency (ms)."""

    def __init__(self, latency, config, ref_latency, kernel, func=None):
        self.latency, self.config, self.ref_latency, self.kernel, self.func = latency, config, ref_latency, kernel, func
        self.libcode = None

    def __repr__(self):
        return "AutotuneResult(latency=%r, config=%r)" % (self.latency, self.config)


class AutoTuner:
    """TileLang's explicit autotuning API: AutoTuner.from_kernel(kernel=factory, configs=[...])
    .set_compile_args(out_idx=...).set_profile_args(ref_prog=...).run(warmup, rep). The factory
    is compiled by TilePlay's front end for each configuration (never run by Python), checked
    against ref_prog unless skip_check, and timed; the fastest is returned."""

    def __init__(self, fn, configs):
        self.fn = fn
        self.configs = configs
        self.compile_args = {}
        self.profile_args = {}
        self.errors = []

    @classmethod
    def from_kernel(cls, kernel, configs):
        return cls(kernel, configs)

    def set_compile_args(self, out_idx=None, target="auto", execution_backend="auto", target_host=None,
                         verbose=False, pass_configs=None, **options):
        self.compile_args = {"out_idx": out_idx, "target": target, "pass_configs": pass_configs}
        return self

    def set_profile_args(self, warmup=25, rep=100, timeout=30, supply_type=None, ref_prog=None, supply_prog=None,
                         rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.01, skip_check=False, manual_check_prog=None,
                         cache_input_tensors=False, **options):
        self.profile_args = {"supply_type": supply_type, "ref_prog": ref_prog, "rtol": rtol, "atol": atol,
                             "max_mismatched_ratio": max_mismatched_ratio, "skip_check": skip_check,
                             "manual_check_prog": manual_check_prog}
        return self

    def set_kernel_parameters(self, *args, **kwargs):
        return self

    def _factory(self):
        fn = self.fn
        if isinstance(fn, AutoTuneFactory):
            fn = fn.factory
        if isinstance(fn, JITFactory):
            fn = fn.func
        return JITFactory(fn, self.compile_args.get("out_idx"), self.compile_args.get("pass_configs"),
                          self.compile_args.get("target", "auto"))

    def _check(self, kernel):
        import tileplay
        p = self.profile_args
        if p.get("skip_check") or not (p.get("ref_prog") or p.get("manual_check_prog")):
            return
        profiler = kernel.get_profiler(p["supply_type"]) if p.get("supply_type") else kernel.get_profiler()
        if p.get("manual_check_prog"):
            raise tileplay.TilePlayError("AutoTuner's manual_check_prog is not supported on TilePlay")
        profiler.assert_allclose(p["ref_prog"], rtol=p["rtol"], atol=p["atol"],
                                 max_mismatched_ratio=p["max_mismatched_ratio"])

    def run(self, warmup=25, rep=100, timeout=30, **options):
        import tileplay
        factory = self._factory()
        configs = list(self.configs() if callable(self.configs) else self.configs)
        best, self.errors = None, []
        _precompile(factory, {}, [dict(c) for c in configs])
        for config in configs:
            config = dict(config)
            try:
                kernel = _build(factory, config, {})[0]
                self._check(kernel)
                latency = _bench(kernel, warmup, rep)
            except (tileplay.TilePlayError, TypeError, ValueError, AssertionError) as e:
                self.errors.append((config, "%s: %s" % (type(e).__name__, e)))
                continue
            if best is None or latency < best[0]:
                best = (latency, config, kernel)
        if best is None:
            raise RuntimeError("AutoTuner: none of the %d configurations compiled, passed the check and ran; the "
                               "first failed with:\n%s" % (len(configs), self.errors[0][1] if self.errors else "(none)"))
        latency, config, kernel = best
        ref_latency = None
        ref = self.profile_args.get("ref_prog")
        if ref is not None:
            try:
                ref_latency = kernel.get_profiler().do_bench(ref, warmup=warmup, rep=rep)
            except Exception:  # noqa: BLE001 - the reference's time is informative only
                ref_latency = None
        kernel.config, kernel.latency = config, latency
        return AutotuneResult(latency, config, ref_latency, kernel, factory)
