// GPU tests of the sm_90a path: samples/gemm.py and samples/gemm_bias_gelu.py compiled for
// sm_90a with Hopper-sized tiles take the general producer/consumer lowering (a TMA producer
// warpgroup beside the user's two consumer warpgroups; the worker reports the tensor maps it
// encoded) and match the CPU interpreter, including edge tiles (TMA zero-fills, the stores
// guard), epilogues reading row and column vectors, and the sample's own tiles (block_K = 32
// on one consumer warpgroup owning two interleaved 64-row blocks).
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
                           Defines tiles = {{"block_M", "128"}, {"block_N", "256"}, {"block_K", "64"}, {"num_stages", "4"}, {"threads", "256"}}) {
    tp::LoadSpec s;
    s.path = source_dir() + "/samples/" + name;
    s.target = "sm_90a";
    s.defines = tiles;
    s.defines.insert(s.defines.end(), defines.begin(), defines.end());
    return s;
}

void run_checked(tp::WorkerClient& c, const tp::LoadSpec& spec, int consumer_threads = 256) {
    auto l = c.load(spec);
    ASSERT_TRUE(l.ok) << l.error << "\n" << (l.body.is_object() ? l.body.dump() : l.stderr_tail);
    ASSERT_TRUE(l.body.contains("kernel")) << l.body.dump();
    // Two tensor maps (A and B) and a producer warpgroup beside the consumers mean the TMA +
    // wgmma path was taken, not the cp.async + mma.sync fallback.
    // (a third where C leaves through TMA stores of whole 128-byte panels)
    EXPECT_GE(l.body["kernel"].value("tensor_maps", 0), 2) << l.body["kernel"].dump();
    EXPECT_EQ(l.body["kernel"]["threads"][0].get<int>(), consumer_threads + 128) << l.body["kernel"].dump();
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

// A persistent grid: one block per SM walks the 512 tiles (edge tiles included) in
// T.use_swizzle's order; the ring's phases carry over from tile to tile. Taken by default (the
// grid is four waves deep and every tile does the same work), asked for, and switched off.
TEST(GpuHopper, PersistentGridWalksEveryTile) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    for (const char* config : {"", "true", "false"}) {
        SCOPED_TRACE(std::string("tp.persistent=") + config);
        tp::LoadSpec s = hopper_sample("gemm.py", {{"M", "4000"}, {"N", "4000"}, {"K", "200"}});
        if (*config) s.pass_configs = {{"tp.persistent", config}};
        auto l = c.load(s);
        ASSERT_TRUE(l.ok) << l.error;
        EXPECT_EQ(l.body["kernel"].value("persistent", false), std::string(config) != "false") << l.body["kernel"].dump();
        run_checked(c, s);
    }
}

TEST(GpuHopper, GemmEdgeTilesOnWgmma) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    // M and N not multiples of the tile, K not a multiple of 64: TMA zero-fills, stores guard.
    run_checked(c, hopper_sample("gemm.py", {{"M", "328"}, {"N", "520"}, {"K", "200"}}));
    // K = 136: the last k tile is mostly past K.
    run_checked(c, hopper_sample("gemm.py", {{"M", "2000"}, {"N", "2056"}, {"K", "136"}}));
}

TEST(GpuHopper, GemmBiasGeluOnWgmmaMatchesTheInterpreter) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    run_checked(c, hopper_sample("gemm_bias_gelu.py", {{"M", "512"}, {"N", "768"}, {"K", "512"}}));
    // N = 1000: the last column tile's bias loads and stores are guarded.
    run_checked(c, hopper_sample("gemm_bias_gelu.py", {{"M", "4500"}, {"N", "1000"}, {"K", "136"}}));
}

TEST(GpuHopper, EpilogueRowAndColumnVectorsMatchTheInterpreter) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    // A row vector (scale), a column vector (bias) and a 2-D operand read from global in the
    // fragment epilogue.
    tp::LoadSpec s;
    s.path = source_dir() + "/tests/gpu/data/epilogue_vectors.py";
    s.target = "sm_90a";
    run_checked(c, s);
}

TEST(GpuHopper, SampleTilesOnOneWarpgroupWithInterleavedBlocks) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    // The sample's own tiles (128 x 128 x 32, 128 threads): one consumer warpgroup issues two
    // m64 blocks per k step (rows 16w and 64 + 16w per warp). K = 1000: the last k tile half
    // past K; K = 200: 7 k tiles on a 3-slot ring (two stages plus the running group's).
    run_checked(c, hopper_sample("gemm.py", {{"M", "1000"}, {"N", "1000"}, {"K", "1000"}}, {}), 128);
    run_checked(c, hopper_sample("gemm.py", {{"M", "520"}, {"N", "384"}, {"K", "200"}}, {}), 128);
}

// Consumer groups (forced with tp.consumer_groups=2 on grids this small): two 128 x 128 column
// tiles run as one block of two consumer warpgroups sharing each A tile, each with its own B
// tiles and its own TMA-store epilogue; edge tiles in both directions.
TEST(GpuHopper, ConsumerGroupsShareTheATile) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    for (Defines d : {Defines{{"M", "1000"}, {"N", "1000"}, {"K", "1000"}}, Defines{{"M", "520"}, {"N", "1016"}, {"K", "200"}}}) {
        tp::LoadSpec s = hopper_sample("gemm.py", d, {});
        s.pass_configs = {{"tp.consumer_groups", "2"}};
        run_checked(c, s, 256);
    }
    // C staged through shared memory by the kernel: each group its own C tile.
    tp::LoadSpec s;
    s.path = source_dir() + "/tests/gpu/data/staged_gemm.py";
    s.target = "sm_90a";
    s.defines = {{"M", "1000"}, {"N", "1800"}, {"K", "136"}, {"threads", "128"}, {"block_N", "128"}, {"block_K", "32"}};
    s.pass_configs = {{"tp.consumer_groups", "2"}};
    run_checked(c, s, 256);
}

// C staged by the kernel through shared memory (tests/gpu/data/staged_gemm.py), as TileLang's
// own examples write it: the tile
// leaves by one thread's TMA store after the consumers' fence and barrier; edge tiles clipped by
// the tensor map. Persistent too, where the next tile's writes into C_shared must wait for the
// store to have read it.
TEST(GpuHopper, SharedTileStoredByTma) {
    tp::WorkerClient c;
    if (!on_hopper(c)) GTEST_SKIP() << "needs an sm_90 GPU";
    for (const char* persistent : {"false", "true"}) {
        SCOPED_TRACE(persistent);
        tp::LoadSpec s;
        s.path = source_dir() + "/tests/gpu/data/staged_gemm.py";
        s.target = "sm_90a";
        s.defines = {{"M", "1000"}, {"N", "1800"}, {"K", "136"}};
        s.pass_configs = {{"tp.persistent", persistent}};
        auto l = c.load(s);
        ASSERT_TRUE(l.ok) << l.error;
        EXPECT_EQ(l.body["kernel"].value("tensor_maps", 0), 3) << l.body["kernel"].dump();
        tp::RunSpec rs;
        rs.seed = 3;
        rs.check_blocks = 0;  // every tile
        auto r = c.run(rs);
        ASSERT_TRUE(r.ok) << r.error;
        EXPECT_TRUE(r.body["check"].value("ok", false)) << r.body["check"].dump();
    }
}

}  // namespace
