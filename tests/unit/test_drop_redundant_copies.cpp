// drop_redundant_copies keeps what a kernel computes: the interpreter runs the Tile IR before and
// after the pass on the same inputs and every output matches bit for bit, for the kernel whose
// second copy goes and for each variant that must keep it (tests/transform/
// drop_redundant_copies.py holds the kernels and checks the rewritten IR itself).
#include <gtest/gtest.h>

#include <string>

#include "ir/functor.h"
#include "transform/drop_redundant_copies.h"
#include "test_util.h"

using namespace tp;

namespace {

ir::PrimFuncPtr compile_ir(std::vector<std::pair<std::string, std::string>> defines, const std::string& kernel = "two_pass") {
    return test_util::compile_source_ir("tests/transform/drop_redundant_copies.py", kernel, std::move(defines));
}

int copies(const ir::PrimFunc& f) {
    struct Count : ir::IRVisitor {
        int n = 0;
        void visit_CopyOp(const ir::CopyOpNode& c, const ir::Stmt& s) override {
            ++n;
            ir::IRVisitor::visit_CopyOp(c, s);
        }
    } v;
    v.visit(f.body);
    return v.n;
}

// Runs `f` and its form without redundant copies on the same inputs; returns the copies dropped.
int copies_dropped_keeping_outputs(const ir::PrimFuncPtr& f) {
    ir::PrimFuncPtr g = transform::drop_redundant_copies(f);
    test_util::expect_same_cpu_outputs(*f, *g, "drop_redundant_copies");
    return copies(*f) - copies(*g);
}

}  // namespace

TEST(DropRedundantCopies, SecondPassOverAOneTileRowReusesTheFirstCopy) {
    auto f = compile_ir({});
    ASSERT_TRUE(f);
    EXPECT_EQ(copies_dropped_keeping_outputs(f), 1);
}

TEST(DropRedundantCopies, LoopAroundTheSecondCopyThatWritesNeither) {
    auto f = compile_ir({{"repeat", "3"}});
    ASSERT_TRUE(f);
    EXPECT_EQ(copies_dropped_keeping_outputs(f), 1);
}

TEST(DropRedundantCopies, SharedDestinationToo) {
    auto f = compile_ir({{"shared", "1"}});
    ASSERT_TRUE(f);
    EXPECT_EQ(copies_dropped_keeping_outputs(f), 1);
}

TEST(DropRedundantCopies, KeepsCopiesItCannotProveRedundant) {
    // Two tiles a row, then each variant of tests/transform/drop_redundant_copies.py that writes
    // x or X between the passes, reads another row, or copies under a branch.
    std::vector<std::vector<std::pair<std::string, std::string>>> cases = {{{"BLOCK_N", "128"}}};
    for (int mode = 1; mode <= 6; ++mode) cases.push_back({{"mode", std::to_string(mode)}});
    for (const auto& d : cases) {
        auto f = compile_ir(d);
        ASSERT_TRUE(f);
        EXPECT_EQ(copies_dropped_keeping_outputs(f), 0) << d[0].first << "=" << d[0].second;
    }
}

TEST(DropRedundantCopies, GemmAccumulationBetweenKeepsTheCopy) {
    auto f = compile_ir({}, "gemm_between");
    ASSERT_TRUE(f);
    EXPECT_EQ(copies_dropped_keeping_outputs(f), 0);
}

TEST(DropRedundantCopies, LoopThatChangesTheSourceKeepsItsCopyAndLaterOnes) {
    auto f = compile_ir({}, "loop_source");
    ASSERT_TRUE(f);
    EXPECT_EQ(copies_dropped_keeping_outputs(f), 0);
}

TEST(DropRedundantCopies, SwitchedOffByThePassConfig) {
    auto f = compile_ir({});
    ASSERT_TRUE(f);
    auto g = std::make_shared<ir::PrimFunc>(*f);
    g->attrs["tp.drop_redundant_copies"] = "false";
    EXPECT_EQ(transform::drop_redundant_copies(g), g);
}
