// GPU tests of the sm_90a path: samples/gemm.py and samples/gemm_bias_gelu.py compiled for
// sm_90a with Hopper-sized tiles take the warp-specialized TMA + wgmma lowering (the worker
// reports the tensor maps it encoded) and match the CPU interpreter, including edge tiles (the
// TMA store clips them), a persistent grid with more tiles than multiprocessors, the epilogue's
// bias read from shared memory (on edge tiles and second tiles too), and the
// sample's own block_K = 32 (taken as pairs of iterations).
// Skipped on GPUs other than compute capability 9.0.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tileplay/worker_client.h"
#include "gpu_test_util.h"

using namespace gpu_test;

namespace {

using Defines = std::vector<std::pair<std::string, std::string>>;

tp::LoadSpec hopper_sample(const std::string& name, Defines defines,
                           Defines tiles = {{"block_M", "128"}, {"block_N", "256"}, {"block_K", "64"}, {"num_stages", "4"}}) {
    tp::LoadSpec s;
    s.path = source_dir() + "/samples/" + name;
    s.target = "sm_90a";
    s.defines = tiles;
    s.defines.insert(s.defines.end(), defines.begin(), defines.end());
    return s;
}

void run_checked(tp::WorkerClient& c, const tp::LoadSpec& spec) {
    auto l = c.load(spec);
    ASSERT_TRUE(l.ok) << l.error << "\n" << (l.body.is_object() ? l.body.dump() : l.stderr_tail);
    ASSERT_TRUE(l.body.contains("kernel")) << l.body.dump();
    // Three tensor maps (A and B loaded, C stored by the staged epilogue) mean the TMA + wgmma
    // path was taken, not the mma.sync fallback.
    EXPECT_EQ(l.body["kernel"].value("tensor_maps", 0), 3) << l.body["kernel"].dump();
    EXPECT_EQ(l.body["kernel"]["threads"][0].get<int>(), 384) << l.body["kernel"].dump();
    tp::RunSpec rs;
    rs.seed = 5;
    rs.check_blocks = 8;
    auto r = c.run(rs);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.body.contains("check")) << r.body.dump();
    EXPECT_TRUE(r.body["check"].value("ok", false)) << r.body["check"].dump();
}

TEST(GpuHopper, GemmOnWgmmaMatchesTheInterpreter) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    run_checked(c, hopper_sample("gemm.py", {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}}));
}

TEST(GpuHopper, GemmEdgeTilesOnWgmma) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    // M and N not multiples of the tile, K not a multiple of 64: TMA zero-fills, stores guard.
    run_checked(c, hopper_sample("gemm.py", {{"M", "328"}, {"N", "520"}, {"K", "200"}}));
    // More tiles (16 x 9) than multiprocessors: the persistent grid walks several per block.
    run_checked(c, hopper_sample("gemm.py", {{"M", "2000"}, {"N", "2056"}, {"K", "136"}}));
}

TEST(GpuHopper, GemmBiasGeluOnWgmmaMatchesTheInterpreter) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    run_checked(c, hopper_sample("gemm_bias_gelu.py", {{"M", "512"}, {"N", "768"}, {"K", "512"}}));
    // The bias comes through each warpgroup's shared vector, loaded as the tile starts. N = 1000:
    // the last column tile's loads are clamped to bias[N - 1]. 36 x 4 tiles on 132 blocks: some
    // blocks walk a second tile and reload the vector (the checked last block is one of them).
    run_checked(c, hopper_sample("gemm_bias_gelu.py", {{"M", "4500"}, {"N", "1000"}, {"K", "136"}}));
}

TEST(GpuHopper, EpilogueRowAndColumnVectorsMatchTheInterpreter) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    // A row vector (scale), a column vector (bias), both through shared memory, and a 2-D
    // operand read from global, on a persistent grid of 32 x 8 tiles.
    tp::LoadSpec s;
    s.path = source_dir() + "/tests/gpu/data/epilogue_vectors.py";
    s.target = "sm_90a";
    run_checked(c, s);
}

TEST(GpuHopper, BlockK32RunsAsPairsOfIterations) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    // The sample's own tiles (block_K = 32): two iterations fill one 64-wide ring slot.
    // K = 1000: 32 iterations, the last slot half past K. K = 200: 7 iterations, the extra
    // half tile wholly past K (zero-filled by TMA).
    run_checked(c, hopper_sample("gemm.py", {{"M", "1000"}, {"N", "1000"}, {"K", "1000"}}, {}));
    run_checked(c, hopper_sample("gemm.py", {{"M", "520"}, {"N", "384"}, {"K", "200"}}, {}));
}

}  // namespace
