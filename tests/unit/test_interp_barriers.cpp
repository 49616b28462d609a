// The interpreter's mbarriers and `T.ws` roles on hand-built Tile IR: an arrive counts one
// arrival per thread that runs it (the role's 128 threads inside `T.ws`, the block's outside),
// arrivals past the count complete further phases, a wait passes only when the phase of its
// parity completed earlier in program order, and a refused wait names the barrier and line.
#include <gtest/gtest.h>

#include "ir/ir.h"
#include "test_util.h"
#include "tileplay/interp.h"

using namespace tp;
using namespace tp::ir;
using tp::test_util::at_line;

namespace {

Buffer barriers(std::vector<int64_t> counts) {
    auto b = std::make_shared<BufferNode>("bars", DataType(DataType::UInt, 64), std::vector<Expr>{int_imm(static_cast<int64_t>(counts.size()))},
                                          Scope::Barrier, Span{});
    b->arrive_counts = std::move(counts);
    return b;
}

Stmt arrive(const Buffer& b, int64_t i) { return std::make_shared<BarrierOpNode>(BarrierKind::Arrive, b, int_imm(i), nullptr); }
Stmt wait(const Buffer& b, int64_t i, int64_t parity, uint32_t line) {
    return std::make_shared<BarrierOpNode>(BarrierKind::Wait, b, int_imm(i), int_imm(parity), at_line(line));
}
Stmt role(std::vector<int64_t> groups, std::vector<Stmt> body) {
    return std::make_shared<RoleBlockNode>(std::move(groups), make_seq(std::move(body)));
}

// One block of `threads` threads running `body` with the barriers allocated around it.
InterpReport run(const Buffer& bars, std::vector<Stmt> body, int64_t threads) {
    auto tx = std::make_shared<VarNode>("tx", DataType::int32(), VarKind::ThreadIdx);
    auto bx = std::make_shared<VarNode>("bx", DataType::int32(), VarKind::BlockIdx);
    PrimFunc f;
    f.name = "k";
    Stmt inner = std::make_shared<AllocateNode>(bars, nullptr, make_seq(std::move(body)));
    f.body = std::make_shared<KernelLaunchNode>(std::vector<Expr>{int_imm(1)}, std::vector<Var>{bx}, std::vector<int64_t>{threads},
                                                std::vector<Var>{tx}, inner);
    std::map<std::string, HostTensor> args;
    return run_on_cpu(f, args);
}

}  // namespace

TEST(InterpBarriers, RoleArrivalCompletesOnePhase) {
    auto b = barriers({128});
    auto r = run(b, {role({0}, {arrive(b, 0)}), role({1}, {wait(b, 0, 0, 10)})}, 256);
    EXPECT_TRUE(r.ok) << (r.diagnostics.empty() ? r.error : r.diagnostics[0].message);
    // The next phase (parity 1) has no arrivals yet.
    r = run(b, {role({0}, {arrive(b, 0)}), role({1}, {wait(b, 0, 0, 10), wait(b, 0, 1, 11)})}, 256);
    ASSERT_FALSE(r.ok);
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].kind, DiagKind::BarrierWaitNeverCompletes);
    EXPECT_EQ(r.diagnostics[0].span.begin.line, 11u);
    EXPECT_NE(r.diagnostics[0].message.find("`bars[0]` for parity 1"), std::string::npos) << r.diagnostics[0].message;
    EXPECT_NE(r.diagnostics[0].message.find("completed 1 phase(s) and holds 0 of the 128"), std::string::npos) << r.diagnostics[0].message;
}

TEST(InterpBarriers, BlockWideArriveCountsEveryThread) {
    // 256 threads on a count of 128: two phases, so parity 1 (the second) is done and parity 0
    // names the third, still open.
    auto b = barriers({128});
    EXPECT_TRUE(run(b, {arrive(b, 0), wait(b, 0, 1, 5)}, 256).ok);
    auto r = run(b, {arrive(b, 0), wait(b, 0, 0, 6)}, 256);
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.diagnostics[0].span.begin.line, 6u);
    // Two warp groups in one role are 256 threads as well.
    EXPECT_TRUE(run(b, {role({0, 1}, {arrive(b, 0)}), wait(b, 0, 1, 7)}, 256).ok);
}

TEST(InterpBarriers, PartialArrivalsCarryToTheCompletingArrive) {
    // A count of 256 needs both roles' arrivals: after the first, the wait is refused.
    auto b = barriers({256, 128});
    auto r = run(b, {role({0}, {arrive(b, 0)}), wait(b, 0, 0, 3)}, 256);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.diagnostics[0].message.find("holds 128 of the 256"), std::string::npos) << r.diagnostics[0].message;
    EXPECT_TRUE(run(b, {role({0}, {arrive(b, 0)}), role({1}, {arrive(b, 0)}), wait(b, 0, 0, 3)}, 256).ok);
    // Each barrier of the list keeps its own phase: barrier 1 never got an arrival.
    r = run(b, {role({0}, {arrive(b, 0)}), role({1}, {arrive(b, 0)}), wait(b, 1, 0, 4)}, 256);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.diagnostics[0].message.find("`bars[1]`"), std::string::npos) << r.diagnostics[0].message;
}

TEST(InterpBarriers, FreshBarrierPassesParityOne) {
    // A fresh barrier is in phase 0: the phase before it (parity 1) counts as complete, which is
    // how a producer's first wait on an `empty` barrier passes.
    auto b = barriers({128});
    EXPECT_TRUE(run(b, {wait(b, 0, 1, 2)}, 128).ok);
    EXPECT_FALSE(run(b, {wait(b, 0, 0, 2)}, 128).ok);
}
