// warm_up(): the throw-away compile that pays a process's one-off start-up (tileplay/warm_up.h).
#include "tileplay/warm_up.h"

#include "runtime/module_cache.h"

namespace tp {

namespace {

// A small GEMM in the shape of samples/gemm.py: the Tensor-Core lowering of the target (mma.sync
// with cp.async and ldmatrix, or wgmma with TMA on sm_90a) touches the code paths, in our passes
// and in NVVM and ptxas, that the samples' slow first compiles fault in. The tiles are small so
// the warm-up itself stays short.
constexpr const char* kWarmUpKernel = R"(import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def warm_up(M=256, N=256, K=256, block_M=64, block_N=64, block_K=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
)";

}  // namespace

CompileResult warm_up(const std::string& target) {
    CompileRequest req;
    req.path = "<warm-up>";
    req.source = kWarmUpKernel;
    req.target = target;
    runtime::ModuleCacheBypass bypass;  // a cache hit would skip NVRTC, the start-up worth paying
    return compile(req);
}

}  // namespace tp
