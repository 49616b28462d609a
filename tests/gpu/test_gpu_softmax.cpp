// samples/softmax.py on the GPU against the CPU interpreter at shapes that take each striped
// fragment path: runs of 8 with 16-byte copies proven in bounds (8192 x 8192, the bandwidth
// shape), runs of 8 with run-time row checks (two and three rows per block, ragged last
// block), fp32 tensors (runs of 4), and the per-element fallback (rows of 1000, which runs of
// 8 * 256 do not divide). The interpreter always checks the first and last blocks.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tileplay/sample_header.h"
#include "tileplay/worker_client.h"
#include "gpu_test_util.h"

using namespace gpu_test;

namespace {

void check_softmax(std::vector<std::pair<std::string, std::string>> defines, int check_blocks) {
    tp::WorkerClient c;
    tp::LoadSpec s = sample("softmax.py", std::move(defines));
    auto l = c.load(s);
    ASSERT_TRUE(l.ok) << l.error << "\n" << (l.body.is_object() ? l.body.value("diagnostics", std::string()) : l.stderr_tail);
    tp::RunSpec rs;
    rs.seed = 11;
    rs.check_blocks = check_blocks;
    auto r = c.run(rs);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.body.contains("check")) << r.body.dump();
    EXPECT_TRUE(r.body["check"].value("ok", false)) << r.body["check"].dump();
}

}  // namespace

TEST(GpuSoftmax, VectorRunsAtTheBandwidthShape) { check_softmax({{"M", "8192"}, {"N", "8192"}}, 64); }

TEST(GpuSoftmax, VectorRunsWithTwoRowsPerBlockAndARaggedLastBlock) {
    check_softmax({{"M", "1001"}, {"N", "8192"}, {"block_M", "2"}}, 0);
}

TEST(GpuSoftmax, VectorRunsWithThreeRowsOn128Threads) {
    check_softmax({{"M", "64"}, {"N", "1024"}, {"block_M", "3"}, {"threads", "128"}}, 0);
}

TEST(GpuSoftmax, VectorRunsOfFourForFp32) { check_softmax({{"M", "256"}, {"N", "4096"}, {"dtype", "float32"}}, 0); }

// Rows that are no whole number of rounds (V * threads) keep 16-byte runs; the last round's
// runs past the row's end are skipped: 125 of 256 threads hold a 1000-wide fp16 row, and an
// 8000-wide one is 3 rounds and 928 elements.
TEST(GpuSoftmax, VectorRunsWithAPartialLastRound) { check_softmax({{"M", "300"}, {"N", "1000"}}, 0); }

TEST(GpuSoftmax, VectorRunsWithAPartialLastRoundAtAWideRow) { check_softmax({{"M", "256"}, {"N", "8000"}}, 0); }

TEST(GpuSoftmax, VectorRunsOfFourWithTwoRowsAndAPartialRound) {
    check_softmax({{"M", "77"}, {"N", "1000"}, {"block_M", "2"}, {"dtype", "float32"}}, 0);
}

TEST(GpuSoftmax, ScalarStripesWhenRunsDoNotDivideTheRow) { check_softmax({{"M", "300"}, {"N", "1001"}}, 0); }

TEST(GpuSoftmax, ScalarStripesWithTwoRowsOfOddLength) {
    check_softmax({{"M", "77"}, {"N", "1001"}, {"block_M", "2"}}, 0);
}
