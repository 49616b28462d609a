// GPU tests of attention kernels on the sm_90a producer/consumer path: samples/flash_attention.py
// unchanged, and a user's own attention kernel written another way (statements in another
// order, a masked tail, K and V copied together, BSHD, grouped heads), compiled for sm_90a take
// the general lowering (the worker reports the Q, K and V tensor maps and a producer warpgroup
// beside the consumers) and match the CPU interpreter running the DSL: causal and not, dim 64,
// 128 and 256, seq_q != seq_kv, seq not a multiple of the tiles, one or two consumer
// warpgroups. Skipped on GPUs other than compute capability 9.0.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "gpu_test_util.h"
#include "tileplay/worker_client.h"

using namespace gpu_test;

namespace {

using Defines = std::vector<std::pair<std::string, std::string>>;

struct FlashCase {
    int batch = 1, heads = 2, seq_q = 256, seq_kv = 256, dim = 128;
    bool causal = false;
    int threads = 256, block_M = 128, block_N = 64;
    std::string layout = "bhsd";
};

tp::LoadSpec flash_sample(const FlashCase& k) {
    tp::LoadSpec s;
    s.path = source_dir() + "/samples/flash_attention.py";
    s.kernel = "flashattn";
    s.target = "sm_90a";
    s.defines = {{"batch", std::to_string(k.batch)},     {"heads", std::to_string(k.heads)},     {"seq_q", std::to_string(k.seq_q)},
                 {"seq_kv", std::to_string(k.seq_kv)},   {"dim", std::to_string(k.dim)},         {"is_causal", k.causal ? "True" : "False"},
                 {"threads", std::to_string(k.threads)}, {"block_M", std::to_string(k.block_M)}, {"block_N", std::to_string(k.block_N)},
                 {"layout", k.layout},     {"num_stages", "2"}};
    return s;
}

void run_checked(tp::WorkerClient& c, const tp::LoadSpec& spec, int consumer_threads, int check_blocks) {
    std::string what;
    for (const auto& [k, v] : spec.defines) what += k + "=" + v + " ";
    SCOPED_TRACE(what);
    auto l = c.load(spec);
    ASSERT_TRUE(l.ok) << l.error << "\n" << (l.body.is_object() ? l.body.dump() : l.stderr_tail);
    ASSERT_TRUE(l.body.contains("kernel")) << l.body.dump();
    // Q, K and V tensor maps and a producer warpgroup: the Hopper path, not cp.async + mma.sync.
    // (a fourth map where the output leaves through TMA stores of whole 128-byte panels)
    EXPECT_GE(l.body["kernel"].value("tensor_maps", 0), 3) << l.body["kernel"].dump();
    EXPECT_EQ(l.body["kernel"]["threads"][0].get<int>(), consumer_threads + 128) << l.body["kernel"].dump();
    tp::RunSpec rs;
    rs.seed = 11;
    rs.check_blocks = check_blocks;
    auto r = c.run(rs);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.body.contains("check")) << r.body.dump();
    EXPECT_TRUE(r.body["check"].value("ok", false)) << r.body["check"].dump();
}

TEST(GpuFlashAttention, SampleMatchesTheInterpreter) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    for (bool causal : {false, true}) {
        FlashCase k;
        k.causal = causal;
        run_checked(c, flash_sample(k), 256, 0);  // whole tiles, every block checked
        k.seq_q = k.seq_kv = 300;           // TMA zero-fills past seq, the mask and the guards act
        run_checked(c, flash_sample(k), 256, 0);
        k.seq_q = 200, k.seq_kv = 456, k.dim = 64;  // seq_q != seq_kv
        run_checked(c, flash_sample(k), 256, 0);
        k = FlashCase{};
        k.causal = causal, k.layout = "bshd", k.seq_q = k.seq_kv = 320;
        run_checked(c, flash_sample(k), 256, 0);
    }
}

// tp.persistent: blocks walk (query tile, head, batch) units, causal and not, with a tail; causal
// kernels by default walk pairs of query tiles.
TEST(GpuFlashAttention, PersistentGridMatchesTheInterpreter) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    for (bool causal : {false, true}) {
        FlashCase k;
        k.causal = causal, k.batch = 2, k.heads = 40, k.seq_q = k.seq_kv = 300;  // 3 x 40 x 2 = 240 units
        tp::LoadSpec s = flash_sample(k);
        s.pass_configs = {{"tp.persistent", "true"}};
        run_checked(c, s, 256, 12);
    }
    // Causal by default: the walk pairs query tiles c and G - 1 - c. G = 9 has a middle tile that
    // is its own mirror (its second step skipped) and a partial last tile; G = 8 pairs them all.
    for (int seq : {1100, 1024}) {
        FlashCase k;
        k.causal = true, k.batch = 2, k.heads = 40, k.seq_q = k.seq_kv = seq;
        run_checked(c, flash_sample(k), 256, 16);
    }
}

TEST(GpuFlashAttention, WideHeadsAndOneWarpgroup) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    FlashCase k;
    k.dim = 256, k.block_N = 64, k.seq_q = k.seq_kv = 192;  // 128-byte panels of Q, K and V
    run_checked(c, flash_sample(k), 256, 0);
    k = FlashCase{};
    k.threads = 128, k.block_M = 64, k.block_N = 128, k.causal = true;  // one consumer warpgroup
    run_checked(c, flash_sample(k), 128, 0);
    // 64 x 64 tiles on one warpgroup: Q in packed registers (an RS S = Q K^T), with tails and
    // the causal mask's guard deciding per tile; then the same with Q read from shared memory.
    for (bool causal : {false, true}) {
        k = FlashCase{};
        k.threads = 128, k.block_M = 64, k.block_N = 64, k.causal = causal, k.seq_q = k.seq_kv = 300;
        run_checked(c, flash_sample(k), 128, 0);
        tp::LoadSpec s = flash_sample(k);
        s.pass_configs = {{"tp.disable_hoist_operand", "true"}};
        run_checked(c, s, 128, 0);
    }
}

// Consumer groups (forced with tp.consumer_groups=2 on grids this small): two 64-row query
// blocks run as one block of two consumer warpgroups sharing each K and V tile, each with its
// own Q tile (in registers, or read from shared memory) and its own epilogue. seq 300: the
// last pair's second block is past seq_q (TMA zero-fills, the stores guard), the kv tail mask.
TEST(GpuFlashAttention, ConsumerGroupsShareKAndV) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    for (int seq : {512, 300}) {
        FlashCase k;
        k.threads = 128, k.block_M = 64, k.block_N = 64, k.seq_q = k.seq_kv = seq, k.heads = 3;
        if (seq == 300) k.seq_q = k.seq_kv = 320;  // 5 query blocks: odd, so the heads axis (3) is odd too
        for (const char* hoist : {"false", "true"}) {
            tp::LoadSpec s = flash_sample(k);
            s.pass_configs = {{"tp.consumer_groups", "2"}, {"tp.disable_hoist_operand", hoist}};
            run_checked(c, s, seq == 512 ? 256 : 128, 0);
        }
    }
    FlashCase k;
    k.threads = 128, k.block_M = 64, k.block_N = 128, k.seq_q = 384, k.seq_kv = 300, k.layout = "bshd", k.dim = 64;
    tp::LoadSpec s = flash_sample(k);
    s.pass_configs = {{"tp.consumer_groups", "2"}};
    run_checked(c, s, 256, 0);
}

// Attention as a user might write it: the scale folded into Q's scores after the gemm, K and V
// copied together at the top of the loop, the running max kept with T.max in a T.Parallel
// loop, an explicit tail mask, grouped K/V heads and BSHD tensors.
const char* kUserAttention = R"(import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[3])
def attn(batch, heads, kv_heads, seq, dim, block_M=128, block_N=128, threads=256):
    groups = heads // kv_heads

    @T.prim_func
    def main(Q: T.Tensor((batch, seq, heads, dim), "bfloat16"), K: T.Tensor((batch, seq, kv_heads, dim), "bfloat16"),
             V: T.Tensor((batch, seq, kv_heads, dim), "bfloat16"), O: T.Tensor((batch, seq, heads, dim), "bfloat16")):
        with T.Kernel(T.ceildiv(seq, block_M), heads, batch, threads=threads) as (bx, h, b):
            q = T.alloc_shared((block_M, dim), "bfloat16")
            k = T.alloc_shared((block_N, dim), "bfloat16")
            v = T.alloc_shared((block_N, dim), "bfloat16")
            s = T.alloc_fragment((block_M, block_N), "float32")
            p = T.alloc_fragment((block_M, block_N), "bfloat16")
            o = T.alloc_fragment((block_M, dim), "float32")
            m = T.alloc_fragment((block_M,), "float32")
            m_new = T.alloc_fragment((block_M,), "float32")
            l = T.alloc_fragment((block_M,), "float32")
            row = T.alloc_fragment((block_M,), "float32")
            T.copy(Q[b, bx * block_M:(bx + 1) * block_M, h, :], q)
            T.clear(o)
            T.clear(l)
            T.fill(m, -T.infinity("float32"))
            for t in T.Pipelined(T.ceildiv(seq, block_N), num_stages=2):
                T.copy(K[b, t * block_N:(t + 1) * block_N, h // groups, :], k)
                T.copy(V[b, t * block_N:(t + 1) * block_N, h // groups, :], v)
                T.clear(s)
                T.gemm(q, k, s, transpose_B=True)
                for i, j in T.Parallel(block_M, block_N):
                    s[i, j] = T.if_then_else(t * block_N + j < seq, s[i, j] * (1.0 / dim) ** 0.5, -T.infinity("float32"))
                T.reduce_max(s, m_new, dim=1)
                for i in T.Parallel(block_M):
                    m_new[i] = T.max(m_new[i], m[i])
                for i, j in T.Parallel(block_M, dim):
                    o[i, j] = o[i, j] * T.exp(m[i] - m_new[i])
                for i, j in T.Parallel(block_M, block_N):
                    s[i, j] = T.exp(s[i, j] - m_new[i])
                T.reduce_sum(s, row, dim=1)
                for i in T.Parallel(block_M):
                    l[i] = l[i] * T.exp(m[i] - m_new[i]) + row[i]
                    m[i] = m_new[i]
                T.copy(s, p)
                T.gemm(p, v, o)
            for i, j in T.Parallel(block_M, dim):
                o[i, j] = o[i, j] / l[i]
            T.copy(o, O[b, bx * block_M:(bx + 1) * block_M, h, :])

    return main
)";

TEST(GpuFlashAttention, UserWrittenGroupedAttentionMatchesTheInterpreter) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    for (const char* seq : {"256", "333"}) {
        tp::LoadSpec s;
        s.path = "user_attention.py";
        s.source = kUserAttention;
        s.target = "sm_90a";
        s.defines = {{"batch", "2"}, {"heads", "8"}, {"kv_heads", "2"}, {"seq", seq}, {"dim", "128"}};
        run_checked(c, s, 256, 0);
    }
}

// The forward pass of an attention backward as users write it: V copied after the first gemm,
// one stage, 64 x 64 tiles on 128 threads, dim 64, the row's log-sum-exp written beside O.
// Q is hoisted into registers (RS wgmma); a V wait between Q K^T's issue and its wait made
// ptxas give P the registers of Q, so every tile after the first read P as Q (0.79 error).
const char* kLseAttention = R"(import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[3, 4])
def fwd(batch, heads, seq, dim, block_M=64, block_N=64):
    scale = (1.0 / dim) ** 0.5 * 1.44269504

    @T.prim_func
    def main(Q: T.Tensor((batch, heads, seq, dim), "float16"), K: T.Tensor((batch, heads, seq, dim), "float16"),
             V: T.Tensor((batch, heads, seq, dim), "float16"), O: T.Tensor((batch, heads, seq, dim), "float16"),
             lse: T.Tensor((batch, heads, seq), "float32")):
        with T.Kernel(T.ceildiv(seq, block_M), heads, batch, threads=128) as (bx, h, b):
            q = T.alloc_shared((block_M, dim), "float16")
            k = T.alloc_shared((block_N, dim), "float16")
            v = T.alloc_shared((block_N, dim), "float16")
            s = T.alloc_fragment((block_M, block_N), "float32")
            p = T.alloc_fragment((block_M, block_N), "float16")
            o = T.alloc_fragment((block_M, dim), "float32")
            m = T.alloc_fragment((block_M,), "float32")
            m_prev = T.alloc_fragment((block_M,), "float32")
            alpha = T.alloc_fragment((block_M,), "float32")
            row = T.alloc_fragment((block_M,), "float32")
            l = T.alloc_fragment((block_M,), "float32")
            T.copy(Q[b, h, bx * block_M:(bx + 1) * block_M, :], q)
            T.fill(o, 0)
            T.fill(l, 0)
            T.fill(m, -T.infinity("float32"))
            for t in T.Pipelined(T.ceildiv(seq, block_N), num_stages=1):
                T.copy(K[b, h, t * block_N:(t + 1) * block_N, :], k)
                T.clear(s)
                T.gemm(q, k, s, transpose_B=True)
                T.copy(V[b, h, t * block_N:(t + 1) * block_N, :], v)
                T.copy(m, m_prev)
                T.reduce_max(s, m, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    alpha[i] = T.exp2(m_prev[i] * scale - m[i] * scale)
                for i, j in T.Parallel(block_M, dim):
                    o[i, j] *= alpha[i]
                for i, j in T.Parallel(block_M, block_N):
                    s[i, j] = T.exp2(s[i, j] * scale - m[i] * scale)
                T.copy(s, p)
                T.gemm(p, v, o)
                T.reduce_sum(s, row, dim=1)
                for i in T.Parallel(block_M):
                    l[i] = l[i] * alpha[i] + row[i]
            for i, j in T.Parallel(block_M, dim):
                o[i, j] /= l[i]
            T.copy(o, O[b, h, bx * block_M:(bx + 1) * block_M, :])
            for i in T.Parallel(block_M):
                l[i] = T.log2(l[i]) + m[i] * scale
            T.copy(l, lse[b, h, bx * block_M:(bx + 1) * block_M])

    return main
)";

TEST(GpuFlashAttention, HoistedQWithALateVCopyMatchesTheInterpreter) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    for (const char* groups : {"2", "1"}) {  // consumer groups (the default here) and one block per tile
        tp::LoadSpec s;
        s.path = "lse_attention.py";
        s.source = kLseAttention;
        s.target = "sm_90a";
        s.defines = {{"batch", "2"}, {"heads", "4"}, {"seq", "1024"}, {"dim", "64"}};
        s.pass_configs = {{"tp.consumer_groups", groups}};
        run_checked(c, s, groups == std::string("2") ? 256 : 128, 0);
    }
}

}  // namespace
