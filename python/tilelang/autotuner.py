"""tilelang.autotune on TilePlay: each configuration of the factory's arguments is compiled by
TilePlay's compiler and timed with the profiler (CUDA events on a GPU; on the CPU the
interpreter's time, which says nothing of GPU speed but picks a kernel that runs), and the
fastest kernel is returned with its .config and .latency. Configurations that do not compile
are skipped; their errors are kept in the factory's last_errors."""

from .jit import JITFactory


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
        import tileplay
        bound = self.factory.defines(args, kwargs)  # by name, so a config may set any of them
        configs = self._configs(args, kwargs)
        if not configs or all(k in bound for k in configs[0]):
            return self.factory(**bound)  # every tuned argument given: nothing to tune
        key = tuple(sorted((k, repr(v)) for k, v in bound.items()))
        if key in self.cache:
            return self.cache[key]
        best, self.last_errors = None, []
        for config in configs:
            try:
                kernel = self.factory(**{**bound, **config})
                latency = kernel.get_profiler().do_bench(warmup=self.warmup, rep=self.rep)
            except (tileplay.TilePlayError, TypeError, ValueError) as e:
                self.last_errors.append((config, str(e)))
                continue
            if best is None or latency < best[0]:
                best = (latency, config, kernel)
        if best is None:
            raise RuntimeError("autotune: none of the %d configurations compiled and ran; the first failed with:\n%s"
                               % (len(configs), self.last_errors[0][1] if self.last_errors else "(no configurations)"))
        latency, config, kernel = best
        kernel.config, kernel.latency = config, latency
        self.cache[key] = kernel
        return kernel


def autotune(func=None, *, configs=None, warmup=25, rep=100, **options):
    """@tilelang.autotune(configs=[{...}, ...]) above @tilelang.jit. `configs` is a list of
    dicts of factory arguments, or a callable taking the factory's arguments and returning one.
    Other TileLang options (timeout, cache_input_tensors, ...) are accepted and have no effect."""
    if func is not None and callable(func):
        return AutoTuneFactory(func, configs, warmup, rep)
    return lambda f: AutoTuneFactory(f, configs, warmup, rep)
