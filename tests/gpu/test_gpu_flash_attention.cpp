// GPU tests of the sm_90a FlashAttention idiom lowering: samples/flash_attention.py, unchanged,
// compiled for sm_90a runs as the warp-specialized TMA + wgmma template (the worker reports
// its three tensor maps and 384 threads) and matches the CPU interpreter running the DSL,
// with and without the causal mask, at dim 64 and 128, with seq not a multiple of the tiles,
// and with more work units than multiprocessors (the persistent blocks walk several).
// Skipped on GPUs other than compute capability 9.0.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "tileplay/worker_client.h"
#include "gpu_test_util.h"

using namespace gpu_test;

namespace {

// The sample with the header's GPU schedule (threads=128 num_stages=2) at a given size.
tp::LoadSpec attention(int batch, int heads, int seq, int dim, bool causal) {
    tp::LoadSpec s;
    s.path = source_dir() + "/samples/flash_attention.py";
    s.kernel = "flashattn";
    s.target = "sm_90a";
    s.defines = {{"batch", std::to_string(batch)}, {"heads", std::to_string(heads)},   {"seq_q", std::to_string(seq)},
                 {"seq_kv", std::to_string(seq)},  {"dim", std::to_string(dim)},       {"is_causal", causal ? "True" : "False"},
                 {"threads", "128"},              {"num_stages", "2"}};
    return s;
}

void run_checked(tp::WorkerClient& c, const tp::LoadSpec& spec, int check_blocks) {
    SCOPED_TRACE(spec.defines[2].second + " dim " + spec.defines[4].second + " causal " + spec.defines[5].second);
    auto l = c.load(spec);
    ASSERT_TRUE(l.ok) << l.error << "\n" << (l.body.is_object() ? l.body.dump() : l.stderr_tail);
    ASSERT_TRUE(l.body.contains("kernel")) << l.body.dump();
    // Q, K and V tensor maps and the template's 3 warpgroups: the Hopper kernel, not mma.sync.
    EXPECT_EQ(l.body["kernel"].value("tensor_maps", 0), 3) << l.body["kernel"].dump();
    EXPECT_EQ(l.body["kernel"]["threads"][0].get<int>(), 384) << l.body["kernel"].dump();
    tp::RunSpec rs;
    rs.seed = 11;
    rs.check_blocks = check_blocks;
    auto r = c.run(rs);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.body.contains("check")) << r.body.dump();
    EXPECT_TRUE(r.body["check"].value("ok", false)) << r.body["check"].dump();
}

TEST(GpuFlashAttention, FullAndCausalMatchTheInterpreter) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    for (bool causal : {false, true}) {
        // Whole tiles, every block checked.
        run_checked(c, attention(2, 3, 256, 128, causal), 0);
        // seq not a multiple of 128 (TMA zero-fills, the column mask and the row guard act).
        run_checked(c, attention(1, 2, 300, 128, causal), 0);
        run_checked(c, attention(2, 2, 200, 64, causal), 0);
    }
}

TEST(GpuFlashAttention, PersistentBlocksWalkSeveralTiles) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    // 40 heads x 8 query tiles = 320 units (causal: 160 pairs) for at most 132 blocks.
    for (bool causal : {false, true}) run_checked(c, attention(1, 40, 1024, 128, causal), 12);
}

}  // namespace
