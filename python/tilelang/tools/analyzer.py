"""tilelang.tools.Analyzer on TilePlay: a kernel's work and a roofline estimate of its time,
without running it. The work is counted by TilePlay's compiler on the kernel's Tile IR
(tileplay.Kernel.work: T.gemm flops, bytes moved to and from global memory, over every block
and loop trip); the device's peak figures come from TilePlay's target table for the device's
target (its example GPU's DRAM bandwidth and dense fp16 Tensor-Core rate)."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class AnalysisResult:
    total_flops: int
    total_global_bytes: int
    estimated_time: float           # seconds: the larger of memory and compute time
    expected_tflops: float          # the device's peak, TFLOP/s
    expected_bandwidth_GBps: float  # the device's DRAM bandwidth, GB/s
    exact: bool = True              # False where a runtime trip count or a branch was assumed
    assumptions: list = field(default_factory=list)


class Analyzer:
    """Analyzer.analysis(prim_func, device): `prim_func` is what a factory call, a @T.prim_func
    or `kernel.get_tir(...)` made; `device` a tilelang.carver.arch.CUDA (its target picks the
    peak figures) or a target name such as "sm_90a"."""

    def __init__(self, fn, device):
        self.fn, self.device = fn, device

    @classmethod
    def analysis(cls, fn, device):
        return cls(fn, device).calculate()

    def calculate(self):
        import tileplay
        target = self.device if isinstance(self.device, str) else getattr(self.device, "target_name", None)
        figures = tileplay.target_figures(target) if target else None
        if figures is None:
            raise ValueError("Analyzer: no peak figures for target %r" % (target,))
        flops, nbytes, exact, assumptions = self._kernel(target).work()
        bandwidth, peak = figures["dram_gbps"], figures["fp16_tflops"]
        time = max(nbytes / (bandwidth * 1e9), flops / (peak * 1e12))
        return AnalysisResult(int(flops), int(nbytes), time, peak, bandwidth, exact, assumptions)

    def _kernel(self, target):
        import tileplay
        from ..jit import JITKernel
        fn = self.fn
        if isinstance(fn, JITKernel):
            return fn.kernel
        if getattr(fn, "path", None) is None:
            raise TypeError("Analyzer on TilePlay takes a @T.prim_func defined in a source file (got %s)"
                            % type(fn).__name__)
        name = fn.factory or fn.__name__
        return tileplay.compile(fn.path, kernel=name, defines=fn.args if fn.factory else {}, target=target)
