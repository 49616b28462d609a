// The lowering's layout formulas against the Tensor-Core templates' own (tp_layout.cuh,
// compiled here as host code): warp partition per GemmWarpPolicy, accumulator (row, col) of
// every (thread, local index), row/column slots, and fragment layout inference on a
// FlashAttention-shaped kernel built by hand.
#include <gtest/gtest.h>

#define TP_HD inline
#include "codegen/cuda/runtime/tp_layout.cuh"
#include "ir/functor.h"
#include "transform/fragment_layout.h"
#include "transform/layout_inference.h"

using namespace tp;
using namespace tp::ir;
using tp::transform::FragLayout;

namespace {

int64_t eval(const Expr& e) {
    auto c = as_const_int(e);
    EXPECT_TRUE(c.has_value()) << print(e);
    return c ? *c : -1;
}

template <int BM, int BN, int WM, int WN>
void check_acc() {
    using L = tp::AccLayout<BM, BN, WM, WN>;
    FragLayout f;
    f.kind = FragLayout::Acc;
    f.bm = BM, f.bn = BN, f.warps_m = WM, f.warps_n = WN, f.threads = L::kThreads;
    ASSERT_EQ(f.local_size(), L::kSize);
    for (int tid = 0; tid < L::kThreads; tid += 7) {
        for (int i = 0; i < L::kSize; ++i) {
            ASSERT_EQ(eval(f.acc_row(int_imm(tid), int_imm(i))), L::row(tid, i)) << tid << " " << i;
            ASSERT_EQ(eval(f.acc_col(int_imm(tid), int_imm(i))), L::col(tid, i)) << tid << " " << i;
            ASSERT_EQ(eval(f.row_slot_of(int_imm(i))), L::row_slot(i));
            ASSERT_EQ(eval(f.col_slot_of(int_imm(i))), L::col_slot(i));
        }
        for (int s = 0; s < L::kRowSlots; ++s) ASSERT_EQ(eval(f.slot_row(int_imm(tid), int_imm(s))), L::slot_row(tid, s));
        for (int s = 0; s < L::kColSlots; ++s) ASSERT_EQ(eval(f.slot_col(int_imm(tid), int_imm(s))), L::slot_col(tid, s));
    }
}

}  // namespace

TEST(FragmentLayout, MatchesAccLayoutTemplate) {
    check_acc<128, 128, 2, 2>();
    check_acc<64, 64, 4, 1>();
    check_acc<128, 256, 2, 4>();
    check_acc<64, 128, 1, 4>();
}

TEST(FragmentLayout, WarpPartitionMatchesTemplate) {
    const GemmWarpPolicy policies[] = {GemmWarpPolicy::Square, GemmWarpPolicy::FullRow, GemmWarpPolicy::FullCol};
    const tp::WarpPolicy tpl[] = {tp::WarpPolicy::Square, tp::WarpPolicy::FullRow, tp::WarpPolicy::FullCol};
    for (int M : {16, 32, 64, 128, 256})
        for (int N : {8, 32, 64, 128, 256})
            for (int warps : {1, 2, 4, 8})
                for (int p = 0; p < 3; ++p) {
                    int wm = 0, wn = 0;
                    bool ok = transform::warp_partition(M, N, warps, policies[p], wm, wn);
                    tp::WarpGrid g = tp::warp_partition(M, N, warps, tpl[p]);
                    ASSERT_EQ(ok, g.m > 0) << M << "x" << N << " warps " << warps << " policy " << p;
                    if (ok) {
                        EXPECT_EQ(wm, g.m) << M << "x" << N << " warps " << warps << " policy " << p;
                        EXPECT_EQ(wn, g.n) << M << "x" << N << " warps " << warps << " policy " << p;
                    }
                }
}

// gemm into acc (FullRow on 4 warps), reduce_max over dim=1 into m, a T.Parallel over acc
// indexing m[i], a copy acc -> acc_cast, and an unrelated 1-D fragment.
TEST(LayoutInference, PropagatesFromGemmThroughReduceCopyAndLoops) {
    auto buf = [](const char* n, DataType t, std::vector<int64_t> shape, Scope sc) {
        std::vector<Expr> s;
        for (auto d : shape) s.push_back(int_imm(d));
        return std::make_shared<BufferNode>(n, t, s, sc);
    };
    Buffer Qs = buf("Q_shared", DataType::float16(), {64, 64}, Scope::Shared);
    Buffer Ks = buf("K_shared", DataType::float16(), {64, 64}, Scope::Shared);
    Buffer acc = buf("acc", DataType::float32(), {64, 64}, Scope::Fragment);
    Buffer cast = buf("acc_cast", DataType::float16(), {64, 64}, Scope::Fragment);
    Buffer m = buf("m", DataType::float32(), {64}, Scope::Fragment);
    Buffer other = buf("other", DataType::float32(), {256}, Scope::Fragment);
    auto whole = [](const Buffer& b) {
        BufferRegion r{b, {}};
        for (const auto& d : b->shape) r.region.push_back({int_imm(0), d});
        return r;
    };
    auto g = std::make_shared<GemmOpNode>(whole(Qs), whole(Ks), whole(acc));
    g->transpose_B = true;
    g->policy = GemmWarpPolicy::FullRow;
    Stmt red = std::make_shared<ReduceOpNode>(ReduceKind::Max, acc, m, 1, true);
    Var i = std::make_shared<VarNode>("i", DataType::int32(), VarKind::Loop);
    Var j = std::make_shared<VarNode>("j", DataType::int32(), VarKind::Loop);
    Expr v = make_binary(BinaryOp::Sub, std::make_shared<BufferLoadNode>(acc, std::vector<Expr>{i, j}),
                         std::make_shared<BufferLoadNode>(m, std::vector<Expr>{i}));
    Stmt body = std::make_shared<BufferStoreNode>(acc, std::vector<Expr>{i, j}, v);
    Stmt loop = std::make_shared<ForNode>(i, int_imm(0), int_imm(64), ForKind::Parallel,
                                          std::make_shared<ForNode>(j, int_imm(0), int_imm(64), ForKind::Parallel, body));
    Stmt cp = std::make_shared<CopyOpNode>(whole(acc), whole(cast));
    Stmt seq = make_seq({g, red, loop, cp});
    for (const Buffer& b : {other, m, cast, acc, Ks, Qs}) seq = std::make_shared<AllocateNode>(b, nullptr, seq);
    Var bx = std::make_shared<VarNode>("bx", DataType::int32(), VarKind::BlockIdx);
    PrimFunc f;
    f.name = "fa";
    f.body = std::make_shared<KernelLaunchNode>(std::vector<Expr>{int_imm(1)}, std::vector<Var>{bx}, std::vector<int64_t>{128},
                                                std::vector<Var>{}, seq);
    DiagnosticEngine diags(SourceFile::from_string("fa.py", ""));
    auto layouts = transform::infer_fragment_layouts(f, diags);
    ASSERT_FALSE(diags.has_errors());
    FragLayout a = layouts.at(acc.get());
    EXPECT_EQ(a.kind, FragLayout::Acc);
    EXPECT_EQ(a.warps_m, 4);
    EXPECT_EQ(a.warps_n, 1);
    EXPECT_EQ(a.local_size(), 32);
    EXPECT_TRUE(layouts.at(cast.get()) == a);
    EXPECT_EQ(layouts.at(m.get()).kind, FragLayout::Row);
    EXPECT_EQ(layouts.at(m.get()).local_size(), 2);
    EXPECT_EQ(layouts.at(other.get()).kind, FragLayout::Striped);
    EXPECT_EQ(layouts.at(other.get()).local_size(), 2);
}
