// stage_fragments on real DSL text: the staged Tile IR (shared copies of fragments that loops
// reach across threads, fma-gemm's fragment operand among them) must compute what the kernel
// as written computes. The CPU interpreter runs both on the same inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/ir.h"
#include "target.h"
#include "tileplay/compiler.h"
#include "tileplay/interp.h"
#include "transform/fma_gemm.h"
#include "transform/stage_fragments.h"

using namespace tp;

namespace {

// A transpose into a fragment, a row vector read under a striped driver, a float32 gemm with
// its A operand in registers (multiply-add loops reading A[i, k]) and a replicated scalar.
const char* kKernel = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-2, -1])
def mixed(M=256, N=32, block_M=128):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), V: T.Tensor((M,), "float32"), W: T.Tensor((N, N), "float32"),
             Xt: T.Tensor((N, M), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            x = T.alloc_fragment((block_M, N), "float32")
            t = T.alloc_fragment((N, block_M), "float32")
            v = T.alloc_fragment((block_M,), "float32")
            acc = T.alloc_fragment((block_M, N), "float32")
            w_s = T.alloc_shared((N, N), "float32")
            total = T.alloc_fragment((1,), "float32")
            T.copy(X[bx * block_M, 0], x)
            T.copy(W, w_s)
            for i, j in T.Parallel(block_M, N):
                t[j, i] = x[i, j] + 1
            T.copy(t, Xt[0, bx * block_M])
            total[0] = 0
            for k in T.serial(4):
                total[0] += V[bx * block_M + k]
            for i in T.Parallel(block_M):
                v[i] = V[bx * block_M + i] * 2
            for i, j in T.Parallel(block_M, N):
                x[i, j] = x[i, j] * v[i] + total[0]
            T.clear(acc)
            T.gemm(x, w_s, acc)
            T.copy(acc, Y[bx * block_M, 0])

    return main
)";

std::string ir_text(const ir::PrimFunc& f) { return ir::print(f); }

}  // namespace

TEST(StageFragments, StagedKernelComputesTheSame) {
    CompileRequest req;
    req.path = "stage.py";
    req.source = kKernel;
    req.stop_after = Stage::Ir;
    CompileResult r = compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    DiagnosticEngine diags;
    auto target = parse_target("sm_80");
    ASSERT_TRUE(target);
    auto fma = transform::fma_gemm(std::make_shared<ir::PrimFunc>(*r.func), diags);
    auto staged = transform::stage_fragments(fma, *target, diags);
    ASSERT_FALSE(diags.has_errors());
    const std::string text = ir_text(*staged);
    // The transpose, the row vector and the gemm operand go through shared tiles; the scalar
    // is replicated, not staged.
    EXPECT_NE(text.find("t_stage = T.alloc_shared"), std::string::npos) << text;
    EXPECT_NE(text.find("v_stage = T.alloc_shared"), std::string::npos) << text;
    EXPECT_NE(text.find("x_stage = T.alloc_shared"), std::string::npos) << text;
    EXPECT_EQ(text.find("total_stage"), std::string::npos) << text;

    std::map<std::string, HostTensor> want, got;
    ASSERT_TRUE(allocate_args(*r.func, 7, {}, want, nullptr));
    ASSERT_TRUE(allocate_args(*staged, 7, {}, got, nullptr));
    InterpReport a = run_on_cpu(*r.func, want);
    InterpReport b = run_on_cpu(*staged, got);
    ASSERT_TRUE(a.ok) << a.error;
    ASSERT_TRUE(b.ok) << b.error << (b.diagnostics.empty() ? "" : b.diagnostics[0].message);
    for (const char* out : {"Xt", "Y"}) {
        CompareResult c = compare_tensors(got[out], want[out]);
        EXPECT_TRUE(c.pass) << out << ": rel_fro=" << c.rel_fro << " max_abs=" << c.max_abs;
        double mass = 0;  // the kernel wrote something to compare
        for (int64_t k = 0; k < want[out].numel(); ++k) mass += std::abs(want[out].get(k));
        EXPECT_GT(mass, 0.0) << out;
    }
}
