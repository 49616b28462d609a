// The CPU interpreter on TileLang's top-k kernel (tests/codegen/reduce_int_topk.py): repeated
// row arg-max through T.reduce_max of a float fragment and of an int32 fragment of column
// indices. Checked against a direct C++ version of the same algorithm (ties: the largest
// column wins and every tied copy is knocked out at once), on random rows plus a row with a
// planted tie.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tileplay/compiler.h"
#include "tileplay/interp.h"

using namespace tp;

namespace {

std::string read_source(const std::string& rel) {
    std::ifstream in(std::string(TILEPLAY_SOURCE_DIR) + "/" + rel);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(InterpTopk, IntReduceMaxPicksTheLargestTiedColumn) {
    const int64_t M = 48, N = 128, topk = 5, blk_m = 16;
    CompileRequest req;
    req.path = "reduce_int_topk.py";
    req.source = read_source("tests/codegen/reduce_int_topk.py");
    ASSERT_FALSE(req.source.empty());
    req.defines = {{"M", std::to_string(M)}, {"N", std::to_string(N)}, {"topk", std::to_string(topk)}, {"blk_m", std::to_string(blk_m)}};
    req.stop_after = Stage::Ir;
    CompileResult r = compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();

    std::map<std::string, HostTensor> args;
    std::string why;
    ASSERT_TRUE(allocate_args(*r.func, 5, {}, args, &why)) << why;
    HostTensor& x = args.at("logits");
    ASSERT_EQ(x.shape, (std::vector<int64_t>{M, N}));
    // Row 7: the maximum 9.5 twice (columns 3 and 77), then 8.25 once.
    x.set(7 * N + 3, 9.5);
    x.set(7 * N + 77, 9.5);
    x.set(7 * N + 100, 8.25);
    std::vector<double> rows = x.to_doubles();

    InterpReport rep = run_on_cpu(*r.func, args);
    ASSERT_TRUE(rep.ok) << rep.error << (rep.diagnostics.empty() ? "" : rep.diagnostics[0].message);
    const HostTensor& gates = args.at("topk_gates");
    const HostTensor& idx = args.at("topk_indices");
    ASSERT_EQ(idx.dtype, ir::DataType::int32());
    for (int64_t i = 0; i < M; ++i) {
        std::vector<double> row(rows.begin() + i * N, rows.begin() + (i + 1) * N);
        for (int64_t k = 0; k < topk; ++k) {
            double m = *std::max_element(row.begin(), row.end());
            int64_t arg = -1;
            for (int64_t j = 0; j < N; ++j)
                if (row[j] == m) arg = j;
            for (auto& v : row)
                if (v == m) v = -10000.0;
            EXPECT_EQ(gates.get(i * topk + k), m) << "row " << i << " k " << k;
            EXPECT_EQ(idx.get(i * topk + k), arg) << "row " << i << " k " << k;
        }
    }
    EXPECT_EQ(idx.get(7 * topk + 0), 77);
    EXPECT_EQ(gates.get(7 * topk + 1), 8.25);  // the tied 9.5 went out together
    EXPECT_EQ(idx.get(7 * topk + 1), 100);
}

}  // namespace
