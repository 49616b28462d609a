// drop_redundant_copies keeps what a kernel computes: the interpreter runs the Tile IR before and
// after the pass on the same inputs and every output matches bit for bit, for the kernel whose
// second copy goes and for each variant that must keep it (tests/transform/
// drop_redundant_copies.py holds the kernels and checks the rewritten IR itself).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ir/functor.h"
#include "tileplay/compiler.h"
#include "tileplay/interp.h"
#include "transform/drop_redundant_copies.h"

using namespace tp;

namespace {

ir::PrimFuncPtr compile_ir(std::vector<std::pair<std::string, std::string>> defines, const std::string& kernel = "two_pass") {
    static const std::string src = [] {
        std::ifstream in(TILEPLAY_SOURCE_DIR "/tests/transform/drop_redundant_copies.py");
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    }();
    CompileRequest req;
    req.path = "drop_redundant_copies.py";
    req.source = src;
    req.kernel = kernel;
    req.defines = std::move(defines);
    req.stop_after = Stage::Ir;
    CompileResult r = compile(req);
    EXPECT_TRUE(r.ok) << r.render_diagnostics();
    return r.func;
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
int expect_same_outputs(const ir::PrimFuncPtr& f) {
    ir::PrimFuncPtr g = transform::drop_redundant_copies(f);
    std::map<std::string, HostTensor> a, b;
    EXPECT_TRUE(allocate_args(*f, 7, {}, a, nullptr));
    EXPECT_TRUE(allocate_args(*g, 7, {}, b, nullptr));
    InterpReport ra = run_on_cpu(*f, a), rb = run_on_cpu(*g, b);
    EXPECT_TRUE(ra.ok) << ra.error;
    EXPECT_TRUE(rb.ok) << rb.error;
    for (const auto& [name, t] : a) {
        EXPECT_TRUE(b.count(name)) << name;
        if (b.count(name)) {
            EXPECT_EQ(t.bytes, b.at(name).bytes) << "tensor " << name << " differs after drop_redundant_copies";
        }
    }
    return copies(*f) - copies(*g);
}

}  // namespace

TEST(DropRedundantCopies, SecondPassOverAOneTileRowReusesTheFirstCopy) {
    auto f = compile_ir({});
    ASSERT_TRUE(f);
    EXPECT_EQ(expect_same_outputs(f), 1);
}

TEST(DropRedundantCopies, LoopAroundTheSecondCopyThatWritesNeither) {
    auto f = compile_ir({{"repeat", "3"}});
    ASSERT_TRUE(f);
    EXPECT_EQ(expect_same_outputs(f), 1);
}

TEST(DropRedundantCopies, SharedDestinationToo) {
    auto f = compile_ir({{"shared", "1"}});
    ASSERT_TRUE(f);
    EXPECT_EQ(expect_same_outputs(f), 1);
}

TEST(DropRedundantCopies, KeepsCopiesItCannotProveRedundant) {
    // Two tiles a row, then each variant of tests/transform/drop_redundant_copies.py that writes
    // x or X between the passes, reads another row, or copies under a branch.
    std::vector<std::vector<std::pair<std::string, std::string>>> cases = {{{"BLOCK_N", "128"}}};
    for (int mode = 1; mode <= 6; ++mode) cases.push_back({{"mode", std::to_string(mode)}});
    for (const auto& d : cases) {
        auto f = compile_ir(d);
        ASSERT_TRUE(f);
        EXPECT_EQ(expect_same_outputs(f), 0) << d[0].first << "=" << d[0].second;
    }
}

TEST(DropRedundantCopies, GemmAccumulationBetweenKeepsTheCopy) {
    auto f = compile_ir({}, "gemm_between");
    ASSERT_TRUE(f);
    EXPECT_EQ(expect_same_outputs(f), 0);
}

TEST(DropRedundantCopies, LoopThatChangesTheSourceKeepsItsCopyAndLaterOnes) {
    auto f = compile_ir({}, "loop_source");
    ASSERT_TRUE(f);
    EXPECT_EQ(expect_same_outputs(f), 0);
}

TEST(DropRedundantCopies, SwitchedOffByThePassConfig) {
    auto f = compile_ir({});
    ASSERT_TRUE(f);
    auto g = std::make_shared<ir::PrimFunc>(*f);
    g->attrs["tp.drop_redundant_copies"] = "false";
    EXPECT_EQ(transform::drop_redundant_copies(g), g);
}
