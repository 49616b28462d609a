// Tile IR library: folding builders, dtype promotion and names, printer text, and the
// mutator's "same pointer when nothing changed" contract.
#include <gtest/gtest.h>

#include "ir/functor.h"
#include "ir/ir.h"

using namespace tp::ir;

namespace {
Var var(const char* n, DataType t = DataType::int32()) { return std::make_shared<VarNode>(n, t, VarKind::Loop); }
}  // namespace

TEST(IrBuilder, FoldsConstantsAndIdentities) {
    Expr x = var("x");
    EXPECT_EQ(as_const_int(make_binary(BinaryOp::Mul, int_imm(2), int_imm(64))), 128);
    EXPECT_EQ(make_binary(BinaryOp::Add, x, int_imm(0)), x);
    EXPECT_EQ(make_binary(BinaryOp::Add, int_imm(0), x), x);
    EXPECT_EQ(make_binary(BinaryOp::Mul, x, int_imm(1)), x);
    EXPECT_EQ(as_const_int(make_binary(BinaryOp::Mul, x, int_imm(0))), 0);
    EXPECT_EQ(as_const_int(make_binary(BinaryOp::FloorDiv, int_imm(-7), int_imm(2))), -4);
    EXPECT_EQ(as_const_int(make_binary(BinaryOp::FloorMod, int_imm(-7), int_imm(2))), 1);
    EXPECT_EQ(as_const_int(make_binary(BinaryOp::Div, int_imm(-7), int_imm(2))), -3);
    EXPECT_EQ(as_const_int(make_binary(BinaryOp::Mod, int_imm(-7), int_imm(2))), -1);
    // Division by zero is left for the evaluator to report, never folded.
    EXPECT_FALSE(as_const_int(make_binary(BinaryOp::FloorDiv, int_imm(1), int_imm(0))));
    Expr lt = make_binary(BinaryOp::LT, int_imm(1), int_imm(2));
    EXPECT_EQ(lt->dtype, DataType::boolean());
    EXPECT_EQ(as_const_int(lt), 1);
}

TEST(IrBuilder, PromotesLikeTileLang) {
    Expr h = var("h", DataType::float16());
    EXPECT_EQ(make_binary(BinaryOp::Mul, h, float_imm(0.5))->dtype, DataType::float16());
    Expr i64 = var("n", DataType::int64());
    EXPECT_EQ(make_binary(BinaryOp::Add, i64, int_imm(1))->dtype, DataType::int64());
    Expr f = var("f", DataType::float32());
    auto* b = make_binary(BinaryOp::Add, h, f)->as<BinaryNode>();
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->dtype, DataType::float32());
    EXPECT_NE(b->a->as<CastNode>(), nullptr);  // operand converted explicitly
    EXPECT_EQ(promote(DataType::float16(), DataType::bfloat16()), DataType::float32());
    EXPECT_EQ(promote(DataType::int32(), DataType(DataType::UInt, 32)), DataType(DataType::UInt, 32));
}

TEST(IrBuilder, SeqFlattensAndSelectFolds) {
    Expr x = var("x");
    Stmt a = std::make_shared<EvaluateNode>(x), b = std::make_shared<EvaluateNode>(x);
    Stmt inner = make_seq({a, nullptr, b});
    auto* s = make_seq({inner, a})->as<SeqStmtNode>();
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->seq.size(), 3u);
    EXPECT_EQ(make_seq({a}), a);
    EXPECT_EQ(make_select(int_imm(1, DataType::boolean()), x, int_imm(3)), x);
}

TEST(IrDtype, NamesAndParse) {
    EXPECT_EQ(DataType::float16().name(), "float16");
    EXPECT_EQ(DataType::bfloat16().cuda_name(), "bfloat16_t");
    EXPECT_EQ(DataType::float16().cuda_name(), "half_t");
    EXPECT_EQ(DataType::parse("fp16"), DataType::float16());
    EXPECT_EQ(DataType::parse("torch.bfloat16"), DataType::bfloat16());
    EXPECT_EQ(DataType::parse("e4m3_float8"), DataType(DataType::Float8E4M3, 8));
    EXPECT_EQ(DataType::parse("float"), DataType::float32());
    EXPECT_FALSE(DataType::parse("float17"));
}

TEST(IrPrinter, TileLangLikeText) {
    Var i = var("i"), j = var("j"), by = std::make_shared<VarNode>("by", DataType::int32(), VarKind::BlockIdx);
    auto A = std::make_shared<BufferNode>("A", DataType::float16(), std::vector<Expr>{int_imm(1024), int_imm(1024)}, Scope::Global);
    auto S = std::make_shared<BufferNode>("A_shared", DataType::float16(), std::vector<Expr>{int_imm(128), int_imm(32)}, Scope::Shared);
    Expr row = make_binary(BinaryOp::Mul, by, int_imm(128));
    Stmt copy = std::make_shared<CopyOpNode>(BufferRegion{A, {{row, int_imm(128)}, {int_imm(0), int_imm(32)}}},
                                             BufferRegion{S, {{int_imm(0), int_imm(128)}, {int_imm(0), int_imm(32)}}});
    EXPECT_EQ(print(copy), "T.copy(A[by * 128:by * 128 + 128, 0:32], A_shared[0:128, 0:32])\n");
    Stmt store = std::make_shared<BufferStoreNode>(S, std::vector<Expr>{i, j}, make_cast(DataType::float16(), float_imm(0)));
    Stmt nest = std::make_shared<ForNode>(i, int_imm(0), int_imm(128), ForKind::Parallel,
                                          std::make_shared<ForNode>(j, int_imm(0), int_imm(32), ForKind::Parallel, store));
    Stmt alloc = std::make_shared<AllocateNode>(S, nullptr, nest);
    EXPECT_EQ(print(alloc),
              "A_shared = T.alloc_shared((128, 32), \"float16\")\n"
              "for i, j in T.Parallel(128, 32):\n"
              "    A_shared[i, j] = T.float16(0.0)\n");
    Expr e = make_binary(BinaryOp::Mul, make_binary(BinaryOp::Add, i, j), int_imm(2));
    EXPECT_EQ(print(e), "(i + j) * 2");
    EXPECT_EQ(print(make_binary(BinaryOp::FloorMod, i, int_imm(4))), "i % 4");
    EXPECT_EQ(print(make_binary(BinaryOp::Max, i, j)), "T.max(i, j)");
}

namespace {
class NoOp : public IRMutator {};
class RenameLoads : public IRMutator {
public:
    Var from, to;
protected:
    Expr visit_Var(const VarNode& n, const Expr& e) override { return &n == from.get() ? Expr(to) : e; }
};
}  // namespace

TEST(IrMutator, ReturnsSamePointerWhenUnchanged) {
    Var i = var("i"), k = var("k");
    auto B = std::make_shared<BufferNode>("B", DataType::float32(), std::vector<Expr>{int_imm(64)}, Scope::Global);
    Stmt body = std::make_shared<BufferStoreNode>(B, std::vector<Expr>{i}, make_binary(BinaryOp::Add, std::make_shared<BufferLoadNode>(B, std::vector<Expr>{i}), float_imm(1)));
    Stmt loop = std::make_shared<ForNode>(i, int_imm(0), int_imm(64), ForKind::Serial, make_seq({body, body}));
    NoOp n;
    EXPECT_EQ(n.mutate(loop), loop);
    RenameLoads r;
    r.from = i;
    r.to = k;
    Stmt out = r.mutate(loop);
    EXPECT_NE(out, loop);
    EXPECT_NE(print(out).find("B[k] = B[k] + 1.0"), std::string::npos) << print(out);
}
