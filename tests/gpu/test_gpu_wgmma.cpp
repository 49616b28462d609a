// The general sm_90a lowering of T.gemm to wgmma (tp::gemm_wgmma_ss / _rs), on the GPU against
// the CPU interpreter: each form the planner accepts (f16 and bf16, fp8 e4m3 / e5m2 K-major,
// transposed A or B, 128-,
// 64- and 32-byte swizzles, 128-byte panels for wide tiles, warpgroups split along N, N from
// 32 to 256, partial edge tiles) and A from registers in an attention-style kernel. The
// kernels carry a statement in their main loop that the warp-specialized GEMM does not take,
// so they are user kernels of the general path; each test first checks that the compiled
// CUDA really uses wgmma.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gpu_test_util.h"
#include "tileplay/compiler.h"

using namespace gpu_test;

namespace {

const char* kGemm = R"(import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def mm(M, N, K, block_M=128, block_N=128, block_K=64, threads=256, stages=2, dtype="float16", trans_a=False, trans_b=False):
    a_shape = (K, M) if trans_a else (M, K)
    b_shape = (N, K) if trans_b else (K, N)
    a_tile = (block_K, block_M) if trans_a else (block_M, block_K)
    b_tile = (block_N, block_K) if trans_b else (block_K, block_N)

    @T.prim_func
    def main(A: T.Tensor(a_shape, dtype), B: T.Tensor(b_shape, dtype), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_s = T.alloc_shared(a_tile, dtype)
            B_s = T.alloc_shared(b_tile, dtype)
            C_l = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=stages):
                if trans_a:
                    T.copy(A[k * block_K, by * block_M], A_s)
                else:
                    T.copy(A[by * block_M, k * block_K], A_s)
                if trans_b:
                    T.copy(B[bx * block_N, k * block_K], B_s)
                else:
                    T.copy(B[k * block_K, bx * block_N], B_s)
                # A running decay of the partial sums: user code between the copies and the gemm.
                for i, j in T.Parallel(block_M, block_N):
                    C_l[i, j] = C_l[i, j] * 0.75
                T.gemm(A_s, B_s, C_l, transpose_A=trans_a, transpose_B=trans_b)
            T.copy(C_l, C[by * block_M, bx * block_N])

    return main
)";

// O = sum over key tiles of (Q K^T) V with P kept in registers: the RS form, with a masked
// tail for sequence lengths that are not a multiple of the key tile.
const char* kAttentionLike = R"(import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def pv(heads, seq, dim, block_M=64, block_N=64, threads=128, stages=2):
    @T.prim_func
    def main(Q: T.Tensor((heads, seq, dim), "float16"), K: T.Tensor((heads, seq, dim), "float16"),
             V: T.Tensor((heads, seq, dim), "float16"), O: T.Tensor((heads, seq, dim), "float32")):
        with T.Kernel(T.ceildiv(seq, block_M), heads, threads=threads) as (bx, h):
            Q_s = T.alloc_shared((block_M, dim), "float16")
            K_s = T.alloc_shared((block_N, dim), "float16")
            V_s = T.alloc_shared((block_N, dim), "float16")
            S = T.alloc_fragment((block_M, block_N), "float32")
            P = T.alloc_fragment((block_M, block_N), "float16")
            acc = T.alloc_fragment((block_M, dim), "float32")
            T.copy(Q[h, bx * block_M:(bx + 1) * block_M, :], Q_s)
            T.fill(acc, 0)
            for k in T.Pipelined(T.ceildiv(seq, block_N), num_stages=stages):
                T.copy(K[h, k * block_N:(k + 1) * block_N, :], K_s)
                T.copy(V[h, k * block_N:(k + 1) * block_N, :], V_s)
                T.clear(S)
                T.gemm(Q_s, K_s, S, transpose_B=True)
                for i, j in T.Parallel(block_M, block_N):
                    S[i, j] = T.if_then_else(k * block_N + j < seq, S[i, j] * 0.0625, 0)
                T.copy(S, P)
                T.gemm(P, V_s, acc)
            T.copy(acc, O[h, bx * block_M, 0])

    return main
)";

// A register operand computed afresh every iteration (dequantising GEMMs): each RS group's
// packed A must stay in place until that group completes, although the next iteration packs
// the next one (TileLang's example_dequant_gemm_fp4_hopper was 66% wrong when it did not), and
// the A slot the warpgroups load into registers must not be refilled under their reads. The
// kernel is the lit test's (tests/transform/pc_release_generic.py), which checks its CUDA.
std::string fresh_register_a() {
    std::ifstream in(source_dir() + "/tests/transform/pc_release_generic.py");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

using Defines = std::vector<std::pair<std::string, std::string>>;

// Compiles here first: the test is about the wgmma path, so the CUDA must use it.
void expect_wgmma(const char* source, const std::string& name, const Defines& d, const char* form) {
    tp::CompileRequest req;
    req.path = name;
    req.source = source;
    req.defines = d;
    req.target = "sm_90a";
    req.stop_after = tp::Stage::Cuda;
    tp::CompileResult r = tp::compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics(false, true);
    EXPECT_NE(r.cuda.find(form), std::string::npos) << "not lowered to " << form << ":\n" << r.render_diagnostics(false, true);
}

void run_checked(const char* source, const std::string& name, const Defines& d, const char* target = "sm_90a") {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    tp::LoadSpec s;
    s.path = name;
    s.source = source;
    s.defines = d;
    s.target = target;
    auto l = c.load(s);
    ASSERT_TRUE(l.ok) << l.error << "\n" << (l.body.is_object() ? l.body.value("diagnostics", "") : l.stderr_tail);
    tp::RunSpec rs;
    rs.seed = 11;
    rs.check_blocks = 0;  // every block
    auto r = c.run(rs);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.body.contains("check"));
    EXPECT_TRUE(r.body["check"].value("ok", false)) << r.body["check"].dump();
}

struct GemmCase {
    const char* what;
    Defines d;
};

class GpuWgmmaGemm : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GpuWgmmaGemm, MatchesTheInterpreter) {
    const GemmCase& c = GetParam();
    expect_wgmma(kGemm, "wgmma_gemm.py", c.d, "tp::gemm_wgmma_ss<");
    run_checked(kGemm, "wgmma_gemm.py", c.d);
}

const GemmCase kCases[] = {
    {"f16_128x128x64_8warps", {{"M", "256"}, {"N", "256"}, {"K", "192"}}},
    {"bf16", {{"M", "256"}, {"N", "256"}, {"K", "192"}, {"dtype", "bfloat16"}}},
    {"transpose_A", {{"M", "256"}, {"N", "256"}, {"K", "192"}, {"trans_a", "True"}}},
    {"transpose_B", {{"M", "256"}, {"N", "256"}, {"K", "192"}, {"trans_b", "True"}}},
    {"transpose_A_and_B", {{"M", "256"}, {"N", "256"}, {"K", "192"}, {"trans_a", "True"}, {"trans_b", "True"}}},
    {"block_K_32_64B_swizzle", {{"M", "256"}, {"N", "256"}, {"K", "160"}, {"block_K", "32"}}},
    {"block_K_16_32B_swizzle", {{"M", "128"}, {"N", "128"}, {"K", "96"}, {"block_K", "16"}}},
    {"block_K_128_panels", {{"M", "256"}, {"N", "256"}, {"K", "256"}, {"block_K", "128"}, {"stages", "1"}}},
    {"N_256_per_warpgroup", {{"M", "256"}, {"N", "512"}, {"K", "128"}, {"block_N", "256"}, {"stages", "1"}}},
    {"N_192", {{"M", "256"}, {"N", "384"}, {"K", "128"}, {"block_N", "192"}, {"stages", "1"}}},
    {"warpgroups_split_N", {{"M", "256"}, {"N", "256"}, {"K", "128"}, {"threads", "512"}}},
    {"one_warpgroup_64x64", {{"M", "192"}, {"N", "192"}, {"K", "128"}, {"block_M", "64"}, {"block_N", "64"}, {"threads", "128"}}},
    {"N_32_64B_swizzled_B", {{"M", "128"}, {"N", "96"}, {"K", "128"}, {"block_M", "64"}, {"block_N", "32"}, {"threads", "128"}}},
    {"N_32_transposed_B", {{"M", "128"}, {"N", "96"}, {"K", "128"}, {"block_M", "64"}, {"block_N", "32"}, {"threads", "128"}, {"trans_b", "True"}}},
    {"edge_tiles", {{"M", "200"}, {"N", "136"}, {"K", "100"}, {"block_M", "64"}, {"block_N", "64"}, {"threads", "128"}}},
    // fp8: k32 steps on K-major A and B (128-byte rows, 64-byte rows, 128-byte panels).
    {"fp8_e4m3", {{"M", "256"}, {"N", "256"}, {"K", "384"}, {"dtype", "float8_e4m3"}, {"trans_b", "True"}, {"block_K", "128"}}},
    {"fp8_e5m2_64B_swizzle", {{"M", "256"}, {"N", "256"}, {"K", "256"}, {"dtype", "float8_e5m2"}, {"trans_b", "True"}}},
    {"fp8_block_K_256_panels",
     {{"M", "128"}, {"N", "256"}, {"K", "512"}, {"dtype", "float8_e4m3"}, {"trans_b", "True"}, {"block_K", "256"}, {"stages", "1"}}},
};

INSTANTIATE_TEST_SUITE_P(Forms, GpuWgmmaGemm, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<GemmCase>& i) { return std::string(i.param.what); });

// sm_90 without the "a": fp8 on mma.sync m16n8k32 over the 16-bit view of the same tiles.
TEST(GpuWgmma, Fp8OnMmaSyncWithoutWgmma) {
    const Defines d = {{"M", "256"}, {"N", "192"}, {"K", "256"}, {"dtype", "float8_e4m3"}, {"trans_b", "True"}, {"block_N", "64"}};
    tp::CompileRequest req;
    req.path = "fp8_mma.py";
    req.source = kGemm;
    req.defines = d;
    req.target = "sm_90";
    req.stop_after = tp::Stage::Cuda;
    tp::CompileResult r = tp::compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics(false, true);
    EXPECT_NE(r.cuda.find("tp::gemm_ss_fp8<"), std::string::npos);
    run_checked(kGemm, "fp8_mma.py", d, "sm_90");
}

// TileLang's gemm_fp8 example writes C in the operands' fp8 format: paired one-byte stores
// (there is no 128-byte-panel TMA store of 1-byte elements), on wgmma and on mma.sync.
const char* kFp8Out = R"(import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def mm8(M, N, K, block_M=128, block_N=128, block_K=64, dtype="float8_e4m3"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])
    return main
)";

TEST(GpuWgmma, Fp8OutputOfTileLangsFp8Gemm) {
    for (const char* target : {"sm_90a", "sm_90"}) {
        SCOPED_TRACE(target);
        run_checked(kFp8Out, "mm8.py", {{"M", "256"}, {"N", "200"}, {"K", "192"}}, target);
        run_checked(kFp8Out, "mm8.py", {{"M", "256"}, {"N", "256"}, {"K", "192"}, {"dtype", "float8_e5m2"}}, target);
    }
}

TEST(GpuWgmma, RegisterAInAnAttentionStyleKernel) {
    for (const Defines& d : {Defines{{"heads", "2"}, {"seq", "200"}, {"dim", "64"}},
                             Defines{{"heads", "2"}, {"seq", "256"}, {"dim", "128"}, {"block_M", "128"}, {"block_N", "128"}, {"threads", "256"}},
                             Defines{{"heads", "1"}, {"seq", "192"}, {"dim", "256"}, {"stages", "1"}}}) {
        SCOPED_TRACE(d[2].second);
        expect_wgmma(kAttentionLike, "wgmma_pv.py", d, "tp::gemm_wgmma_rs");  // _rs or _rs_packed
        run_checked(kAttentionLike, "wgmma_pv.py", d);
    }
}

TEST(GpuWgmma, RegisterARepackedEveryIteration) {
    for (const Defines& d : {Defines{{"M", "256"}, {"N", "256"}, {"K", "512"}},
                             Defines{{"M", "128"}, {"N", "128"}, {"K", "448"}, {"threads", "128"}, {"stages", "3"}}}) {
        SCOPED_TRACE(d[2].second);
        const std::string source = fresh_register_a();
        expect_wgmma(source.c_str(), "fresh_a.py", d, "tp::frag_pack_operand<");
        run_checked(source.c_str(), "fresh_a.py", d);
    }
}

}  // namespace
