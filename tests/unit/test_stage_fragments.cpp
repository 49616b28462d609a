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
const char* kFragmentsKernel = R"(
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

// Two row sums from accumulators on different warp grids into one vector (a reduction part).
const char* kTwoReductions = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def two_row_sums(M=64, N=64, K=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), R: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            a_s = T.alloc_shared((M, K), "float16")
            b_s = T.alloc_shared((K, N), "float16")
            a = T.alloc_fragment((M, N), "float32")
            b = T.alloc_fragment((M, N), "float32")
            rows = T.alloc_fragment((M,), "float32")
            T.copy(A, a_s)
            T.copy(B, b_s)
            T.gemm(a_s, b_s, a, clear_accum=True, policy=T.GemmWarpPolicy.FullRow)
            T.gemm(a_s, b_s, b, clear_accum=True)
            T.reduce_max(a, rows, dim=1)
            T.reduce_sum(b, rows, dim=1, clear=False)
            T.copy(rows, R)

    return main
)";

std::string ir_text(const ir::PrimFunc& f) { return ir::print(f); }

// The kernel as written and after stage_fragments, run on the same inputs: outputs must agree.
void expect_same_outputs(const ir::PrimFunc& a, const ir::PrimFunc& b, const std::vector<std::string>& outs) {
    std::map<std::string, HostTensor> want, got;
    ASSERT_TRUE(allocate_args(a, 7, {}, want, nullptr));
    ASSERT_TRUE(allocate_args(b, 7, {}, got, nullptr));
    InterpReport ra = run_on_cpu(a, want), rb = run_on_cpu(b, got);
    ASSERT_TRUE(ra.ok) << ra.error;
    ASSERT_TRUE(rb.ok) << rb.error << (rb.diagnostics.empty() ? "" : rb.diagnostics[0].message);
    for (const auto& out : outs) {
        CompareResult c = compare_tensors(got[out], want[out]);
        EXPECT_TRUE(c.pass) << out << ": rel_fro=" << c.rel_fro << " max_abs=" << c.max_abs;
        double mass = 0;  // the kernel wrote something to compare
        for (int64_t k = 0; k < want[out].numel(); ++k) mass += std::abs(want[out].get(k));
        EXPECT_GT(mass, 0.0) << out;
    }
}

}  // namespace

TEST(StageFragments, StagedKernelComputesTheSame) {
    CompileRequest req;
    req.path = "stage.py";
    req.source = kFragmentsKernel;
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

    expect_same_outputs(*r.func, *staged, {"Xt", "Y"});
}

TEST(StageFragments, ReductionPartFoldsIntoTheVector) {
    CompileRequest req;
    req.path = "reduce.py";
    req.source = kTwoReductions;
    req.stop_after = Stage::Ir;
    CompileResult r = compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    DiagnosticEngine diags;
    auto staged = transform::stage_fragments(std::make_shared<ir::PrimFunc>(*r.func), *parse_target("sm_80"), diags);
    ASSERT_FALSE(diags.has_errors());
    const std::string text = ir_text(*staged);
    EXPECT_NE(text.find("T.reduce_sum(b, rows_part, dim=1, clear=True)"), std::string::npos) << text;
    expect_same_outputs(*r.func, *staged, {"R"});
}
