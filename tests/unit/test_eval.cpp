// Evaluator units: both factory styles, parameter binding, jit decorator options and
// trace-time folding of branches. The rest of the evaluator's units are in
// test_eval_semantics.cpp; shared helpers in test_eval_util.h.
#include <gtest/gtest.h>

#include "eval/evaluator.h"
#include "frontend/parser.h"
#include "ir/ir.h"
#include "test_eval_util.h"

namespace tp {
namespace {

using namespace eval_test;

const char* kEager = R"(
import tilelang
import tilelang.language as T


@tilelang.jit
def matmul(A, B, block_M, block_N, block_K, dtype=T.float16, accum_dtype=T.float32):
    M, N, K = T.const("M, N, K")
    A: T.Tensor((M, K), dtype)
    B: T.Tensor((K, N), dtype)
    C = T.empty((M, N), dtype)
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_K, block_N), dtype)
        C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
            T.copy(A[by * block_M, k * block_K], A_shared)
            T.copy(B[k * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        for i, j in T.Parallel(block_M, block_N):
            C_local[i, j] = T.max(C_local[i, j], 0)
        T.copy(C_local, C[by * block_M, bx * block_N])
    return C


if __name__ == "__main__":
    import torch
    kernel = matmul.compile(M=1024)
)";

TEST(Eval, EagerStyleGemm) {
    auto t = trace(kEager, {{"M", "256"}, {"N", "256"}, {"K", "128"}, {"block_M", "64"}, {"block_N", "64"}, {"block_K", "32"}});
    ASSERT_TRUE(t.func) << first_error(t);
    const auto& f = *t.func;
    ASSERT_EQ(f.params.size(), 3u);
    EXPECT_EQ(f.params[0].name, "A");
    EXPECT_FALSE(f.params[0].is_output);
    EXPECT_EQ(f.params[2].name, "C");
    EXPECT_TRUE(f.params[2].is_output);
    EXPECT_EQ(*ir::as_const_int(f.params[0].buffer->shape[1]), 128);
    EXPECT_EQ(f.bound_params.at("block_K"), 32);
    auto* kl = find(f.body, ir::NodeKind::KernelLaunch)->as<ir::KernelLaunchNode>();
    ASSERT_TRUE(kl);
    EXPECT_EQ(*ir::as_const_int(kl->grid[0]), 4);
    EXPECT_EQ(kl->block_vars[1]->name, "by");
    EXPECT_EQ(kl->threads, std::vector<int64_t>{128});
    // The three allocations are hoisted around the body, in program order.
    auto* a0 = kl->body->as<ir::AllocateNode>();
    ASSERT_TRUE(a0);
    EXPECT_EQ(a0->buffer->name, "A_shared");
    EXPECT_EQ(a0->buffer->scope, ir::Scope::Shared);
    auto* loop = find(f.body, ir::NodeKind::For)->as<ir::ForNode>();
    EXPECT_EQ(loop->for_kind, ir::ForKind::Pipelined);
    EXPECT_EQ(loop->num_stages, 3);
    EXPECT_EQ(*ir::as_const_int(loop->extent), 4);
    // A point copy takes its extents from the shared tile.
    auto* copy = find(f.body, ir::NodeKind::CopyOp)->as<ir::CopyOpNode>();
    EXPECT_EQ(copy->src.buffer->name, "A");
    EXPECT_EQ(*ir::as_const_int(copy->src.region[0].extent), 64);
    EXPECT_EQ(*ir::as_const_int(copy->src.region[1].extent), 32);
    EXPECT_TRUE(find(f.body, ir::NodeKind::GemmOp));
    EXPECT_TRUE(find(f.body, ir::NodeKind::FillOp));
}

TEST(Eval, UnboundConstStaysSymbolic) {
    auto t = trace(kEager, {{"block_M", "64"}, {"block_N", "64"}, {"block_K", "32"}});
    ASSERT_TRUE(t.func) << first_error(t);
    ASSERT_EQ(t.func->params.size(), 6u);  // A, B, C, then M, N, K
    EXPECT_EQ(t.func->params[3].name, "M");
    ASSERT_TRUE(t.func->params[3].var);
    EXPECT_EQ(t.func->params[3].var->var_kind, ir::VarKind::Symbolic);
    EXPECT_FALSE(ir::as_const_int(t.func->params[0].buffer->shape[0]));
}

TEST(Eval, FindFactoriesListsParamsWithoutRunning) {
    auto t = trace(kEager, {{"block_M", "64"}, {"block_N", "64"}, {"block_K", "32"}});
    ASSERT_EQ(t.factories.size(), 1u);
    const auto& f = t.factories[0];
    EXPECT_EQ(f.name, "matmul");
    EXPECT_EQ(f.line, 7u);
    ASSERT_GE(f.params.size(), 10u);
    EXPECT_EQ(f.params[0].kind, "tensor");
    EXPECT_TRUE(f.params[2].required);
    EXPECT_EQ(f.params[5].default_text, "T.float16");
    EXPECT_EQ(f.params[5].kind, "dtype");
    EXPECT_EQ(f.params.back().name, "K");
}

TEST(Eval, MissingAndUnknownParameters) {
    auto t = trace(kEager, {{"block_M", "64"}});
    ASSERT_FALSE(t.func);
    EXPECT_EQ(t.diags[0].kind, DiagKind::MissingParameter);
    EXPECT_NE(t.diags[0].message.find("`block_N`, `block_K`"), std::string::npos);
    auto u = trace(kEager, {{"blockM", "64"}});
    ASSERT_FALSE(u.func);
    EXPECT_EQ(u.diags[0].kind, DiagKind::UnknownParameter);
    EXPECT_NE(u.diags[0].message.find("`block_M`"), std::string::npos);
}

const char* kJit = R"(
import itertools
import math
import tilelang
import tilelang.language as T
from functools import partial


def get_configs():
    p = dict(block_M=[64, 128], threads=[128, 256])
    return [dict(zip(p, v)) for v in itertools.product(*p.values())]


@tilelang.autotune(configs=get_configs())
@tilelang.jit(out_idx=[-1], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def softmax(M, N, block_M=64, threads=128, causal=False):
    dtype = "float16"
    scale = 1.0 / math.sqrt(N)
    sizes = [block_M * k for k in range(1, 3) if k != 2]

    @T.macro
    def rowmax(src, dst):
        T.reduce_max(src, dst, dim=-1, clear=True)

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            x = T.alloc_fragment((sizes[0], N), "float")
            m = T.alloc_fragment((block_M,), "float")
            acc = T.alloc_var(T.int32, init=0)
            T.copy(X[bx * block_M : (bx + 1) * block_M, :], x)
            rowmax(x, m)
            for i, j in T.Parallel(block_M, N):
                t = x[i, j] * scale - m[i]
                x[i, j] = T.exp2(t) if not causal else T.if_then_else(j <= i, T.exp2(t), 0)
            for k in T.serial(2, 8, 2):
                if bx * block_M + k < M:
                    acc = acc + k
                else:
                    acc += 1
            T.copy(x, Y[bx * block_M, 0])

    return main
)";

TEST(Eval, JitStyleWithMacroOutIdxAndPassConfigs) {
    auto t = trace(kJit, {{"M", "256"}, {"N", "128"}});
    ASSERT_TRUE(t.func) << first_error(t);
    const auto& f = *t.func;
    ASSERT_EQ(f.params.size(), 2u);
    EXPECT_FALSE(f.params[0].is_output);
    EXPECT_TRUE(f.params[1].is_output);
    EXPECT_EQ(f.attrs.at("out_idx"), "1");
    EXPECT_EQ(f.attrs.at("fast_math"), "true");
    EXPECT_TRUE(t.factories[0].is_autotune);
    auto* red = find(f.body, ir::NodeKind::ReduceOp)->as<ir::ReduceOpNode>();
    ASSERT_TRUE(red);
    EXPECT_EQ(red->dim, 1);  // -1 normalised
    EXPECT_EQ(red->reduce_kind, ir::ReduceKind::Max);
    // `t = ...` inside the parallel loop is a let; the slice copy has extent block_M.
    EXPECT_TRUE(find(f.body, ir::NodeKind::LetStmt));
    auto* copy = find(f.body, ir::NodeKind::CopyOp)->as<ir::CopyOpNode>();
    EXPECT_EQ(*ir::as_const_int(copy->src.region[0].extent), 64);
    EXPECT_EQ(*ir::as_const_int(copy->src.region[1].extent), 128);
    // The serial loop with step 2 runs (8 - 2) / 2 = 3 times; the IR `if` is staged.
    bool found_serial = false;
    std::vector<const ir::StmtNode*> stack = {f.body.get()};
    while (!stack.empty()) {
        auto* s = stack.back();
        stack.pop_back();
        if (!s) continue;
        if (auto* fr = s->as<ir::ForNode>()) {
            if (fr->for_kind == ir::ForKind::Serial) {
                found_serial = true;
                EXPECT_EQ(*ir::as_const_int(fr->extent), 3);
                EXPECT_TRUE(fr->body->as<ir::IfThenElseNode>());
            }
            stack.push_back(fr->body.get());
        } else if (auto* q = s->as<ir::SeqStmtNode>()) {
            for (const auto& x : q->seq) stack.push_back(x.get());
        } else if (auto* a = s->as<ir::AllocateNode>()) {
            stack.push_back(a->body.get());
        } else if (auto* k = s->as<ir::KernelLaunchNode>()) {
            stack.push_back(k->body.get());
        } else if (auto* l = s->as<ir::LetStmtNode>()) {
            stack.push_back(l->body.get());
        }
    }
    EXPECT_TRUE(found_serial);
    // alloc_var keeps its constant init on the hoisted allocation.
    EXPECT_NE(t.ir.find("acc"), std::string::npos);
}

TEST(Eval, TraceTimeIfFoldsAndCausalBranch) {
    auto a = trace(kJit, {{"M", "256"}, {"N", "128"}, {"causal", "True"}});
    ASSERT_TRUE(a.func) << first_error(a);
    EXPECT_NE(a.ir.find("if_then_else"), std::string::npos);
    auto b = trace(kJit, {{"M", "256"}, {"N", "128"}, {"causal", "False"}});
    ASSERT_TRUE(b.func);
    EXPECT_EQ(b.ir.find("if_then_else"), std::string::npos);
}

}  // namespace
}  // namespace tp
