// unstage_shared keeps what a kernel computes: the interpreter runs the Tile IR before and after
// the pass on the same inputs and every output matches bit for bit (tests/transform/
// unstage_shared.py holds the kernels and checks the rewritten IR itself).
#include <gtest/gtest.h>

#include <string>

#include "ir/functor.h"
#include "target.h"
#include "transform/unstage_shared.h"
#include "test_util.h"

using namespace tp;

namespace {

ir::PrimFuncPtr compile_ir(const std::string& kernel, std::vector<std::pair<std::string, std::string>> defines) {
    return test_util::compile_source_ir("tests/transform/unstage_shared.py", kernel, std::move(defines));
}

struct SharedAllocs : ir::IRVisitor {
    int n = 0;
    void visit_Allocate(const ir::AllocateNode& a, const ir::Stmt& s) override {
        n += a.buffer->scope == ir::Scope::Shared;
        ir::IRVisitor::visit_Allocate(a, s);
    }
};

int shared_allocs(const ir::PrimFunc& f) {
    SharedAllocs v;
    v.visit(f.body);
    return v.n;
}

// Runs `f` and its unstaged form on the same inputs; returns the number of shared buffers the
// pass removed.
int expect_same_outputs(const ir::PrimFuncPtr& f) {
    ir::PrimFuncPtr g = transform::unstage_shared(f, *parse_target("sm_90a"));
    test_util::expect_same_cpu_outputs(*f, *g, "unstage_shared");
    return shared_allocs(*f) - shared_allocs(*g);
}

}  // namespace

TEST(UnstageShared, OneRowBlocksLoseAllStagingAndComputeTheSame) {
    auto f = compile_ir("norm_rows", {});
    ASSERT_TRUE(f);
    EXPECT_EQ(expect_same_outputs(f), 3);
}

TEST(UnstageShared, EdgeRowsReadZeroAndAreNotStored) {
    // 100 rows in blocks of 8: the last block's rows 100..103 read 0 and are never stored.
    auto f = compile_ir("norm_rows", {{"M", "100"}, {"blk_m", "8"}});
    ASSERT_TRUE(f);
    EXPECT_EQ(expect_same_outputs(f), 1);  // X's staging goes; gamma and beta (read 8 times) stay
}

TEST(UnstageShared, StagedStoreBeforeAReadBackStays) {
    auto f = compile_ir("read_back", {});
    ASSERT_TRUE(f);
    auto g = std::make_shared<ir::PrimFunc>(*f);
    g->attrs["tp.unstage_shared"] = "true";  // 512 bytes of staging: only forced does it run
    EXPECT_EQ(expect_same_outputs(g), 0);
}

TEST(UnstageShared, SwitchedOffByThePassConfig) {
    auto f = compile_ir("norm_rows", {});
    ASSERT_TRUE(f);
    auto g = std::make_shared<ir::PrimFunc>(*f);
    g->attrs["tp.unstage_shared"] = "false";
    EXPECT_EQ(transform::unstage_shared(g, *parse_target("sm_90a")), g);
}
