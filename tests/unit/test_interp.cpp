// CPU interpreter on hand-built Tile IR: tiled GEMM (boundary tiles, both transposes) against
// the reference, reductions over both dims, safe T.copy at edges, out-of-bounds reports,
// device asserts, T.print format, atomics across blocks and sampled blocks.
#include <gtest/gtest.h>

#include "ir/ir.h"
#include "test_util.h"
#include "reference/reference.h"
#include "tileplay/interp.h"

using namespace tp;
using namespace tp::ir;
using namespace tp::test_util;

namespace {

Var var(const std::string& n, VarKind k = VarKind::Loop) { return std::make_shared<VarNode>(n, DataType::int32(), k); }
Expr add(Expr a, Expr b) { return make_binary(BinaryOp::Add, std::move(a), std::move(b)); }
Expr mul(Expr a, Expr b) { return make_binary(BinaryOp::Mul, std::move(a), std::move(b)); }
Expr c(int64_t v) { return int_imm(v); }

BufferRegion tile(const Buffer& b, std::vector<Expr> mins, std::vector<int64_t> ext) {
    BufferRegion r{b, {}};
    for (size_t i = 0; i < mins.size(); ++i) r.region.push_back({mins[i], c(ext[i])});
    return r;
}
int64_t ceildiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The canonical tiled GEMM (example_gemm.py) with optional transposed operands.
PrimFunc make_gemm(int64_t M, int64_t N, int64_t K, int64_t bm, int64_t bn, int64_t bk, bool ta, bool tb, bool head_index) {
    DataType h = DataType::float16(), f32 = DataType::float32();
    auto A = buf("A", h, ta ? std::vector<int64_t>{K, M} : std::vector<int64_t>{M, K}, Scope::Global);
    auto B = buf("B", h, tb ? std::vector<int64_t>{N, K} : std::vector<int64_t>{K, N}, Scope::Global);
    auto C = buf("C", h, {M, N}, Scope::Global);
    auto As = buf("A_shared", h, ta ? std::vector<int64_t>{bk, bm} : std::vector<int64_t>{bm, bk}, Scope::Shared);
    auto Bs = buf("B_shared", h, tb ? std::vector<int64_t>{bn, bk} : std::vector<int64_t>{bk, bn}, Scope::Shared);
    auto Cl = buf("C_local", f32, {bm, bn}, Scope::Fragment);
    auto bx = var("bx", VarKind::BlockIdx), by = var("by", VarKind::BlockIdx), tx = var("tx", VarKind::ThreadIdx);
    auto ko = var("ko");
    Expr m0 = mul(by, c(bm)), n0 = mul(bx, c(bn)), k0 = mul(ko, c(bk));
    BufferRegion a_src = head_index ? tile(A, ta ? std::vector<Expr>{k0, m0} : std::vector<Expr>{m0, k0}, {1, 1})
                                    : tile(A, ta ? std::vector<Expr>{k0, m0} : std::vector<Expr>{m0, k0},
                                           ta ? std::vector<int64_t>{bk, bm} : std::vector<int64_t>{bm, bk});
    BufferRegion b_src = tile(B, tb ? std::vector<Expr>{n0, k0} : std::vector<Expr>{k0, n0},
                              tb ? std::vector<int64_t>{bn, bk} : std::vector<int64_t>{bk, bn});
    auto gemm = std::make_shared<GemmOpNode>(whole(As), whole(Bs), whole(Cl));
    gemm->transpose_A = ta;
    gemm->transpose_B = tb;
    Stmt loop_body = make_seq({std::make_shared<CopyOpNode>(a_src, whole(As)), std::make_shared<CopyOpNode>(b_src, whole(Bs)), gemm});
    auto loop = std::make_shared<ForNode>(ko, c(0), c(ceildiv(K, bk)), ForKind::Pipelined, loop_body);
    Stmt body = make_seq({std::make_shared<FillOpNode>(whole(Cl), float_imm(0.0)), loop,
                          std::make_shared<CopyOpNode>(whole(Cl), tile(C, {m0, n0}, {1, 1}))});
    body = std::make_shared<AllocateNode>(Cl, nullptr, body);
    body = std::make_shared<AllocateNode>(Bs, nullptr, body);
    body = std::make_shared<AllocateNode>(As, nullptr, body);
    auto kl = std::make_shared<KernelLaunchNode>(std::vector<Expr>{c(ceildiv(N, bn)), c(ceildiv(M, bm))}, std::vector<Var>{bx, by},
                                                 std::vector<int64_t>{128}, std::vector<Var>{tx}, body);
    PrimFunc f;
    f.name = "matmul";
    f.params = {{"A", A, nullptr, false}, {"B", B, nullptr, false}, {"C", C, nullptr, true}};
    f.body = kl;
    return f;
}

PrimFunc wrap_kernel(std::vector<Param> params, std::vector<Expr> grid, std::vector<Var> bvars, Stmt body) {
    auto tx = var("tx", VarKind::ThreadIdx);
    PrimFunc f;
    f.name = "k";
    f.params = std::move(params);
    f.body = std::make_shared<KernelLaunchNode>(std::move(grid), std::move(bvars), std::vector<int64_t>{128}, std::vector<Var>{tx}, body);
    return f;
}

void check_gemm(int64_t M, int64_t N, int64_t K, int64_t bm, int64_t bn, int64_t bk, bool ta, bool tb, bool head) {
    PrimFunc f = make_gemm(M, N, K, bm, bn, bk, ta, tb, head);
    std::map<std::string, HostTensor> args;
    std::string err;
    ASSERT_TRUE(allocate_args(f, 1, {}, args, &err)) << err;
    InterpReport r = run_on_cpu(f, args);
    ASSERT_TRUE(r.ok) << r.error << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
    HostTensor ref = reference::gemm(args["A"], args["B"], ta, tb, DataType::float16());
    CompareResult cmp = compare_tensors(args["C"], ref);
    EXPECT_TRUE(cmp.pass) << "rel_fro=" << cmp.rel_fro << " max_abs=" << cmp.max_abs;
    EXPECT_LT(cmp.max_abs, 0.1);
}

}  // namespace

TEST(Interp, TiledGemmMatchesReference) { check_gemm(128, 128, 64, 64, 64, 32, false, false, false); }
TEST(Interp, GemmBoundaryTilesNotMultiplesOfTheBlock) { check_gemm(100, 72, 50, 64, 64, 32, false, false, true); }
TEST(Interp, GemmTransposedA) { check_gemm(96, 64, 48, 32, 32, 16, true, false, false); }
TEST(Interp, GemmTransposedB) { check_gemm(96, 80, 48, 32, 32, 16, false, true, false); }
TEST(Interp, GemmTransposedBoth) { check_gemm(70, 90, 40, 32, 32, 16, true, true, false); }

TEST(Interp, ReduceOverBothDimsWithAndWithoutClear) {
    DataType f32 = DataType::float32();
    auto X = buf("X", f32, {8, 16}, Scope::Global);
    auto R0 = buf("R0", f32, {16}, Scope::Global);  // max over dim 0
    auto R1 = buf("R1", f32, {8}, Scope::Global);   // sum over dim 1, accumulated twice
    auto Xs = buf("X_frag", f32, {8, 16}, Scope::Fragment);
    auto r0 = buf("r0", f32, {16}, Scope::Fragment), r1 = buf("r1", f32, {8}, Scope::Fragment);
    auto bx = var("bx", VarKind::BlockIdx);
    Stmt body = make_seq({std::make_shared<CopyOpNode>(whole(X), whole(Xs)),
                          std::make_shared<ReduceOpNode>(ReduceKind::Max, Xs, r0, 0, true),
                          std::make_shared<FillOpNode>(whole(r1), float_imm(1.0)),
                          std::make_shared<ReduceOpNode>(ReduceKind::Sum, Xs, r1, 1, false),
                          std::make_shared<CopyOpNode>(whole(r0), whole(R0)), std::make_shared<CopyOpNode>(whole(r1), whole(R1))});
    body = std::make_shared<AllocateNode>(Xs, nullptr, std::make_shared<AllocateNode>(r0, nullptr, std::make_shared<AllocateNode>(r1, nullptr, body)));
    PrimFunc f = wrap_kernel({{"X", X, nullptr, false}, {"R0", R0, nullptr, true}, {"R1", R1, nullptr, true}}, {c(1)}, {bx}, body);
    std::map<std::string, HostTensor> args;
    ASSERT_TRUE(allocate_args(f, 3, {}, args, nullptr));
    auto r = run_on_cpu(f, args);
    ASSERT_TRUE(r.ok);
    const HostTensor& x = args["X"];
    for (int j = 0; j < 16; ++j) {
        double mx = -1e30;
        for (int i = 0; i < 8; ++i) mx = std::max(mx, x.at({i, j}));
        EXPECT_DOUBLE_EQ(args["R0"].get(j), mx);
    }
    for (int i = 0; i < 8; ++i) {
        double s = 1.0;
        for (int j = 0; j < 16; ++j) s += x.at({i, j});
        EXPECT_NEAR(args["R1"].get(i), s, 1e-5);
    }
}

TEST(Interp, OutOfBoundsStoreIsReportedWithLineShapeIndexAndBlock) {
    DataType f32 = DataType::float32();
    auto Y = buf("Y", f32, {10}, Scope::Global);
    auto bx = var("bx", VarKind::BlockIdx), i = var("i");
    // for i in T.Parallel(4): Y[bx * 4 + i] = 1   -- block 2 writes Y[8..11]
    Stmt st = std::make_shared<BufferStoreNode>(Y, std::vector<Expr>{add(mul(bx, c(4)), i)}, float_imm(1.0), at_line(7));
    Stmt body = std::make_shared<ForNode>(i, c(0), c(4), ForKind::Parallel, st);
    PrimFunc f = wrap_kernel({{"Y", Y, nullptr, true}}, {c(3)}, {bx}, body);
    std::map<std::string, HostTensor> args;
    ASSERT_TRUE(allocate_args(f, 0, {}, args, nullptr));
    InterpOptions o;
    o.source_path = "k.py";
    auto r = run_on_cpu(f, args, o);
    ASSERT_FALSE(r.ok);
    ASSERT_EQ(r.diagnostics.size(), 1u);
    const Diagnostic& d = r.diagnostics[0];
    EXPECT_EQ(d.kind, DiagKind::OutOfBoundsAccess);
    EXPECT_EQ(d.span.begin.line, 7u);
    EXPECT_EQ(d.file, "k.py");
    EXPECT_EQ(d.message.substr(0, d.message.find(';')), "out-of-bounds write of `Y` with shape [10] at index [10] in block (2, 0, 0)");
}

TEST(Interp, SafeCopyZeroFillsReadsAndDropsWritesAtEdges) {
    DataType f32 = DataType::float32();
    auto X = buf("X", f32, {5}, Scope::Global), Y = buf("Y", f32, {5}, Scope::Global);
    auto S = buf("S", f32, {4}, Scope::Shared);
    auto bx = var("bx", VarKind::BlockIdx);
    Stmt body = make_seq({std::make_shared<CopyOpNode>(tile(X, {mul(bx, c(4))}, {4}), whole(S)),
                          std::make_shared<FillOpNode>(tile(S, {c(3)}, {1}), float_imm(0.0)),  // overwritten by nothing
                          std::make_shared<CopyOpNode>(whole(S), tile(Y, {mul(bx, c(4))}, {4}))});
    body = std::make_shared<AllocateNode>(S, nullptr, body);
    PrimFunc f = wrap_kernel({{"X", X, nullptr, false}, {"Y", Y, nullptr, true}}, {c(2)}, {bx}, body);
    std::map<std::string, HostTensor> args;
    ASSERT_TRUE(allocate_args(f, 9, {}, args, nullptr));
    auto r = run_on_cpu(f, args);
    ASSERT_TRUE(r.ok) << (r.diagnostics.empty() ? r.error : r.diagnostics[0].message);
    EXPECT_EQ(args["Y"].get(0), args["X"].get(0));
    EXPECT_EQ(args["Y"].get(3), 0.0);  // filled with 0 in block 0
    EXPECT_EQ(args["Y"].get(4), args["X"].get(4));
}

TEST(Interp, DeviceAssertFailsWithMessageAndPrintUsesTileLangFormat) {
    DataType i32 = DataType::int32();
    auto Y = buf("Y", i32, {2}, Scope::Global);
    auto bx = var("bx", VarKind::BlockIdx);
    Stmt body = make_seq({std::make_shared<PrintOpNode>(Expr(add(bx, c(40))), "v"),
                          std::make_shared<AssertOpNode>(make_binary(BinaryOp::LT, bx, c(1)), "bx must be 0", at_line(9))});
    PrimFunc f = wrap_kernel({{"Y", Y, nullptr, true}}, {c(2)}, {bx}, body);
    std::map<std::string, HostTensor> args;
    ASSERT_TRUE(allocate_args(f, 0, {}, args, nullptr));
    std::string printed;
    InterpOptions o;
    o.threads = 1;
    o.print_sink = [&](const std::string& s) { printed += s; };
    auto r = run_on_cpu(f, args, o);
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.diagnostics[0].kind, DiagKind::DeviceAssertFailed);
    EXPECT_EQ(r.diagnostics[0].message, "`T.device_assert` failed in block (1, 0, 0): bx must be 0");
    EXPECT_EQ(r.diagnostics[0].span.begin.line, 9u);
    EXPECT_NE(printed.find("msg='v' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): dtype=int value=40\n"), std::string::npos) << printed;
}

TEST(Interp, AtomicAddAcrossBlocksAndSampledBlocks) {
    DataType f32 = DataType::float32();
    auto Y = buf("Y", f32, {1}, Scope::Global);
    auto Z = buf("Z", f32, {64}, Scope::Global);
    auto bx = var("bx", VarKind::BlockIdx);
    Stmt body = make_seq({std::make_shared<AtomicAddOpNode>(tile(Y, {c(0)}, {1}), std::variant<BufferRegion, Expr>(float_imm(1.0))),
                          std::make_shared<BufferStoreNode>(Z, std::vector<Expr>{bx}, make_cast(f32, bx))});
    PrimFunc f = wrap_kernel({{"Y", Y, nullptr, true}, {"Z", Z, nullptr, true}}, {c(64)}, {bx}, body);
    std::map<std::string, HostTensor> args;
    ASSERT_TRUE(allocate_args(f, 0, {}, args, nullptr));
    InterpOptions o;
    o.threads = 2;
    auto r = run_on_cpu(f, args, o);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(args["Y"].get(0), 64.0);
    EXPECT_EQ(r.blocks_run, 64);
    std::map<std::string, HostTensor> args2;
    ASSERT_TRUE(allocate_args(f, 0, {}, args2, nullptr));
    o.sample_blocks = {3, 17};
    o.track_written = true;
    r = run_on_cpu(f, args2, o);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.blocks_run, 2);
    EXPECT_EQ(args2["Y"].get(0), 2.0);
    const auto& w = r.written["Z"];
    ASSERT_EQ(w.size(), 64u);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(w[i], (i == 3 || i == 17) ? 1 : 0) << i;
    EXPECT_EQ(args2["Z"].get(17), 17.0);
}
