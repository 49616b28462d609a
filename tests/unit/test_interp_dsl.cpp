// The interpreter on real DSL text (compile up to Tile IR, then run on the CPU): boundary
// tiles, transposed GEMM operands, reductions over both dims and run-time error reports.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "ir/ir.h"
#include "reference/reference.h"
#include "tileplay/compiler.h"
#include "tileplay/interp.h"
#include "test_util.h"

using namespace tp;

namespace {

// tests/unit/Inputs/transposed_matmul.py, shared with the JIT's tests.
std::string read_gemm() {
    std::ifstream in(TILEPLAY_SOURCE_DIR "/tests/unit/Inputs/transposed_matmul.py");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}
const std::string kGemm = read_gemm();

const char* kReduce = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1, 2])
def rowcol(M=48, N=80, block_M=16):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), RowSum: T.Tensor((M,), "float32"), ColMax: T.Tensor((T.ceildiv(M, block_M), N), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            x = T.alloc_fragment((block_M, N), "float32")
            s = T.alloc_fragment((block_M,), "float32")
            m = T.alloc_fragment((N,), "float32")
            T.copy(X[bx * block_M, 0], x)
            T.reduce_sum(x, s, dim=1)
            T.reduce_max(x, m, dim=0, clear=True)
            T.copy(s, RowSum[bx * block_M])
            for j in T.Parallel(N):
                ColMax[bx, j] = m[j]

    return main
)";

std::shared_ptr<const ir::PrimFunc> compile_ir(const char* src, std::vector<std::pair<std::string, std::string>> defines) {
    return test_util::compile_text_ir(src, "dsl.py", "", std::move(defines));
}

void run_gemm(int M, int N, int K, bool ta, bool tb) {
    auto f = compile_ir(kGemm.c_str(), {{"M", std::to_string(M)},
                                        {"N", std::to_string(N)},
                                        {"K", std::to_string(K)},
                                        {"trans_A", ta ? "True" : "False"},
                                        {"trans_B", tb ? "True" : "False"}});
    ASSERT_TRUE(f);
    std::map<std::string, HostTensor> args;
    ASSERT_TRUE(allocate_args(*f, 11, {}, args, nullptr));
    InterpReport rep = run_on_cpu(*f, args);
    ASSERT_TRUE(rep.ok) << rep.error << (rep.diagnostics.empty() ? "" : rep.diagnostics[0].message);
    HostTensor ref = reference::gemm(args["A"], args["B"], ta, tb, ir::DataType::float16());
    CompareResult c = compare_tensors(args["C"], ref);
    EXPECT_TRUE(c.pass) << "rel_fro=" << c.rel_fro << " max_abs=" << c.max_abs;
    // The reference mapping reads trans_A / trans_B from the factory's bound parameters.
    ReferenceResult rr = cpu_reference({"cublas.gemm"}, *f, args);
    ASSERT_TRUE(rr.available) << rr.error;
    EXPECT_TRUE(compare_tensors(args["C"], rr.expected).pass);
}

}  // namespace

TEST(InterpDsl, GemmBoundaryTiles) { run_gemm(100, 72, 50, false, false); }
TEST(InterpDsl, GemmTransposedA) { run_gemm(96, 64, 64, true, false); }
TEST(InterpDsl, GemmTransposedB) { run_gemm(64, 96, 40, false, true); }

TEST(InterpDsl, ReductionsOverBothDims) {
    auto f = compile_ir(kReduce, {});
    ASSERT_TRUE(f);
    std::map<std::string, HostTensor> args;
    ASSERT_TRUE(allocate_args(*f, 2, {}, args, nullptr));
    InterpReport rep = run_on_cpu(*f, args);
    ASSERT_TRUE(rep.ok) << rep.error << (rep.diagnostics.empty() ? "" : rep.diagnostics[0].message);
    const HostTensor& x = args["X"];
    for (int64_t i = 0; i < 48; ++i) {
        double s = 0;
        for (int64_t j = 0; j < 80; ++j) s += x.at({i, j});
        EXPECT_NEAR(args["RowSum"].get(i), s, 1e-4);
    }
    for (int64_t b = 0; b < 3; ++b)
        for (int64_t j = 0; j < 80; ++j) {
            double m = -INFINITY;
            for (int64_t i = b * 16; i < b * 16 + 16; ++i) m = std::max(m, x.at({i, j}));
            EXPECT_EQ(args["ColMax"].at({b, j}), m);
        }
}

TEST(InterpDsl, SampledBlocksReportWrittenTiles) {
    auto f = compile_ir(kGemm.c_str(), {{"M", "128"}, {"N", "128"}, {"K", "64"}});
    ASSERT_TRUE(f);
    std::map<std::string, HostTensor> args;
    ASSERT_TRUE(allocate_args(*f, 4, {}, args, nullptr));
    InterpOptions o;
    o.sample_blocks = {1};  // bx = 1, by = 0: rows 0..63, cols 64..127
    o.track_written = true;
    InterpReport rep = run_on_cpu(*f, args, o);
    ASSERT_TRUE(rep.ok);
    const auto& w = rep.written.at("C");
    HostTensor ref = reference::gemm(args["A"], args["B"], false, false, ir::DataType::float16());
    for (int64_t i = 0; i < 128; ++i)
        for (int64_t j = 0; j < 128; ++j) EXPECT_EQ(w[static_cast<size_t>(i * 128 + j)], (i < 64 && j >= 64) ? 1 : 0);
    EXPECT_TRUE(compare_tensors(args["C"], ref, -1, &w).pass);
    EXPECT_FALSE(compare_tensors(args["C"], ref).pass);  // the other tiles were never computed
}

// A float16 literal is the float16 value on the GPU (`half_t(1.44269502f)`), so the interpreter
// rounds it too: 1.44269504 reads as 1.4423828125, and 0.3701171875 * 1.44269504 in float16 is
// 0.53369140625 as on the GPU, not the 0.5341796875 of the unrounded literal.
TEST(InterpDsl, Float16LiteralsAreRoundedLikeTheGeneratedCode) {
    auto f = compile_ir(R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1])
def k(N=4):
    @T.prim_func
    def main(A: T.Tensor((N,), "float16"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(N):
                B[i] = T.cast((A[i] * 0 + 0.3701171875) * 1.44269504, "float32")
    return main
)",
                        {});
    ASSERT_TRUE(f);
    std::map<std::string, HostTensor> args;
    ASSERT_TRUE(allocate_args(*f, 3, {}, args, nullptr));
    InterpReport rep = run_on_cpu(*f, args);
    ASSERT_TRUE(rep.ok) << rep.error;
    EXPECT_EQ(args["B"].get(0), 0.53369140625);
}
