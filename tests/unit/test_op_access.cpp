// The regions each tile op object says it reads and writes (ops::tile_op_access), which the
// passes that order and check statements ask instead of reading node fields themselves.
#include <gtest/gtest.h>

#include "ir/ir.h"
#include "ops/access.h"

using namespace tp;
using namespace tp::ir;

namespace {

Buffer buf(const std::string& n, std::vector<int64_t> shape, Scope s, DataType t = DataType::float16()) {
    std::vector<Expr> sh;
    for (auto d : shape) sh.push_back(int_imm(d));
    return std::make_shared<BufferNode>(n, t, sh, s, Span{});
}

// The buffers of a list of regions, by name, in order.
std::vector<std::string> names(const std::vector<BufferRegion>& rs) {
    std::vector<std::string> out;
    for (const auto& r : rs) out.push_back(r.buffer->name);
    return out;
}
using Names = std::vector<std::string>;

}  // namespace

TEST(OpAccess, CopyReadsSourceWritesDestinationAndIsAStageProducer) {
    auto A = buf("A", {256, 256}, Scope::Global), As = buf("A_shared", {64, 32}, Scope::Shared);
    BufferRegion src{A, {{int_imm(64), int_imm(64)}, {int_imm(0), int_imm(32)}}};
    CopyOpNode copy(src, ops::whole_region(As));
    auto a = ops::tile_op_access(copy);
    ASSERT_TRUE(a);
    EXPECT_EQ(names(a->reads), Names{"A"});
    EXPECT_EQ(names(a->writes), Names{"A_shared"});
    EXPECT_EQ(as_const_int(a->reads[0].region[0].min), 64);  // the region, not just the buffer
    EXPECT_TRUE(a->stage_producer);
    EXPECT_FALSE(a->barrier);
}

// A pipeline runs only loads stages ahead: a tile the loop body fills from registers (attention's
// P tile) is written and read in the same stage, so it is kept once, as TileLang keeps it.
TEST(OpAccess, CopyFromRegistersIsNoStageProducer) {
    auto P = buf("P_l", {64, 64}, Scope::Fragment, DataType::float32()), Ps = buf("P_shared", {64, 64}, Scope::Shared);
    CopyOpNode copy(ops::whole_region(P), ops::whole_region(Ps));
    auto a = ops::tile_op_access(copy);
    ASSERT_TRUE(a);
    EXPECT_EQ(names(a->writes), Names{"P_shared"});
    EXPECT_FALSE(a->stage_producer);
}

TEST(OpAccess, GemmReadsItsAccumulatorUnlessItClearsIt) {
    auto As = buf("A_s", {64, 32}, Scope::Shared), Bs = buf("B_s", {32, 64}, Scope::Shared);
    auto C = buf("C_l", {64, 64}, Scope::Fragment, DataType::float32());
    GemmOpNode g(ops::whole_region(As), ops::whole_region(Bs), ops::whole_region(C));
    auto a = ops::tile_op_access(g);
    ASSERT_TRUE(a);
    EXPECT_EQ(names(a->reads), (Names{"A_s", "B_s", "C_l"}));
    EXPECT_EQ(names(a->writes), Names{"C_l"});
    EXPECT_FALSE(a->stage_producer);
    g.clear_accum = true;
    EXPECT_EQ(names(ops::tile_op_access(g)->reads), (Names{"A_s", "B_s"}));
}

TEST(OpAccess, ReduceReadsWholeSourceAndCombinesIntoDestination) {
    auto S = buf("S", {64, 128}, Scope::Fragment, DataType::float32()), M = buf("M", {64}, Scope::Fragment, DataType::float32());
    ReduceOpNode r(ReduceKind::Max, S, M, 1, /*clear=*/true);
    auto a = ops::tile_op_access(r);
    ASSERT_TRUE(a);
    EXPECT_EQ(names(a->reads), Names{"S"});
    EXPECT_EQ(names(a->writes), Names{"M"});
    ASSERT_EQ(a->reads[0].region.size(), 2u);
    EXPECT_EQ(as_const_int(a->reads[0].region[1].extent), 128);
    ReduceOpNode combine(ReduceKind::Sum, S, M, 1, /*clear=*/false);
    EXPECT_EQ(names(ops::tile_op_access(combine)->reads), (Names{"S", "M"}));
}

TEST(OpAccess, FillAtomicAndPrint) {
    auto F = buf("F", {16}, Scope::Shared), G = buf("G", {16}, Scope::Global);
    FillOpNode fill(ops::whole_region(F), int_imm(0));
    EXPECT_TRUE(ops::tile_op_access(fill)->reads.empty());
    EXPECT_EQ(names(ops::tile_op_access(fill)->writes), Names{"F"});

    AtomicAddOpNode tile_add(ops::whole_region(G), ops::whole_region(F));
    EXPECT_EQ(names(ops::tile_op_access(tile_add)->reads), (Names{"G", "F"}));
    EXPECT_EQ(names(ops::tile_op_access(tile_add)->writes), Names{"G"});
    AtomicAddOpNode scalar_add(BufferRegion{G, {{int_imm(3), int_imm(1)}}}, Expr(int_imm(1)));
    EXPECT_EQ(names(ops::tile_op_access(scalar_add)->reads), Names{"G"});

    PrintOpNode print(Buffer(F), "f");
    auto p = ops::tile_op_access(print);
    EXPECT_EQ(names(p->reads), Names{"F"});
    EXPECT_TRUE(p->writes.empty());
    EXPECT_TRUE(p->barrier);
}

TEST(OpAccess, OtherStatementsAreNoTileOps) {
    EvaluateNode e(int_imm(0));
    EXPECT_FALSE(ops::tile_op_access(e));
}
