// GPU tests of striped fragments with 8-element runs at both ends of a kernel: fp32 or bf16
// loaded with vector accesses, per-row reductions of a one-round tile whose rows each sit in
// 16 lanes of a warp (tp::reduce_striped's row-group path), and fp8 stored 8 bytes a run
// (tests/gpu/data/row_group_quant.py). The row maxima and sums stay in each row's 16 threads
// (FragLayout::StripedRow: shuffles only, one register a round). Every block is checked against
// the CPU interpreter, including a ragged last block whose rows past M load as zeros and are not
// stored, and tiles of two and four rounds.
#include <gtest/gtest.h>

#include "tileplay/worker_client.h"
#include "gpu_test_util.h"

using namespace gpu_test;

namespace {

void check_quant(std::vector<std::pair<std::string, std::string>> defines, int check_blocks) {
    tp::WorkerClient c;
    tp::LoadSpec s;
    s.path = source_dir() + "/tests/gpu/data/row_group_quant.py";
    s.defines = std::move(defines);
    auto l = c.load(s);
    ASSERT_TRUE(l.ok) << l.error << "\n" << (l.body.is_object() ? l.body.dump() : l.stderr_tail);
    tp::RunSpec rs;
    rs.seed = 5;
    rs.check_blocks = check_blocks;
    auto r = c.run(rs);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.body.contains("check")) << r.body.dump();
    EXPECT_TRUE(r.body["check"].value("ok", false)) << r.body["check"].dump();
}

}  // namespace

TEST(GpuStriped, Fp32RowGroupsToE4m3) { check_quant({{"M", "256"}, {"N", "512"}}, 128); }

TEST(GpuStriped, Bf16RowGroupsToE5m2) { check_quant({{"M", "256"}, {"N", "512"}, {"dtype", "bfloat16"}, {"qtype", "float8_e5m2"}}, 128); }

TEST(GpuStriped, RaggedLastBlock) { check_quant({{"M", "1001"}, {"N", "256"}}, 252); }

TEST(GpuStriped, TwoRoundsOfRows) { check_quant({{"M", "1001"}, {"N", "256"}, {"threads", "64"}}, 0); }

TEST(GpuStriped, FourRoundsOfBf16Rows) {
    check_quant({{"M", "256"}, {"N", "512"}, {"threads", "32"}, {"dtype", "bfloat16"}, {"qtype", "float8_e5m2"}}, 0);
}
