// Evaluator units: both factory styles, parameter binding, Python semantics at trace time,
// IR staging of T.* calls, and TileLang's own example files when the mirror is present.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "eval/evaluator.h"
#include "eval/tile_builtins.h"
#include "frontend/parser.h"
#include "ir/ir.h"

namespace tp {
namespace {

struct Traced {
    std::shared_ptr<const ir::PrimFunc> func;
    std::vector<Diagnostic> diags;
    std::string ir;
    std::vector<FactoryInfo> factories;
};

Traced trace(const std::string& src, std::vector<std::pair<std::string, std::string>> defines = {}, std::string kernel = "") {
    Traced t;
    auto file = SourceFile::from_string("test.py", src);
    DiagnosticEngine diags(file);
    auto mod = frontend::parse_module(file, diags);
    if (mod) {
        t.factories = eval::find_factories(*mod);
        eval::EvalRequest req;
        req.kernel = kernel;
        req.defines = std::move(defines);
        t.func = eval::evaluate_kernel(mod, req, diags).func;
        if (t.func) t.ir = ir::print(*t.func);
    }
    t.diags = diags.take();
    return t;
}

std::string first_error(const Traced& t) { return t.diags.empty() ? "" : std::string(diag_info(t.diags[0].kind).name) + ": " + t.diags[0].message; }

// Finds the first statement of a kind anywhere in the body.
const ir::StmtNode* find(const ir::Stmt& s, ir::NodeKind k) {
    if (!s) return nullptr;
    if (s->kind == k) return s.get();
    if (auto* q = s->as<ir::SeqStmtNode>()) {
        for (const auto& x : q->seq)
            if (auto* r = find(x, k)) return r;
    } else if (auto* f = s->as<ir::ForNode>()) return find(f->body, k);
    else if (auto* a = s->as<ir::AllocateNode>()) return find(a->body, k);
    else if (auto* l = s->as<ir::LetStmtNode>()) return find(l->body, k);
    else if (auto* kl = s->as<ir::KernelLaunchNode>()) return find(kl->body, k);
    else if (auto* i = s->as<ir::IfThenElseNode>()) {
        if (auto* r = find(i->then_case, k)) return r;
        return find(i->else_case, k);
    }
    return nullptr;
}

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

TEST(Eval, PythonSemanticsAtTraceTime) {
    const char* src = R"(
import tilelang.language as T

CONST = (-7 // 2, -7 % 3, 2 ** 10, 7 / 2)
NAMES = {"a": 1, "b": 2}


def pick(*args, scale=1, **kw):
    return sum(args) * scale + len(kw)


@T.prim_func
def main(A: T.Tensor((16,), "int32")):
    with T.Kernel(1, threads=32) as bx:
        vals = [CONST[0], CONST[1], CONST[2], int(CONST[3] * 2)]
        first, *rest = sorted(vals, reverse=True)
        total = pick(*rest, scale=2, extra=1)
        lam = lambda x, y=3: x * y
        keys = list(NAMES)
        for i, (k, v) in enumerate(NAMES.items()):
            A[i] = v + lam(i)
        A[4] = first
        A[5] = total
        A[6] = min(3, 9, 1) + max([4, 2]) + abs(-5) + divmod(17, 5)[1]
        A[7] = len(keys) if "b" in NAMES and not ("z" in NAMES) else -1
)";
    auto t = trace(src);
    ASSERT_TRUE(t.func) << first_error(t);
    // CONST = (-4, 2, 1024, 3.5); sorted desc = [1024, 7, 2, -4]; pick(7, 2, -4)*2 + 1 = 11
    EXPECT_NE(t.ir.find("A[0] = 1"), std::string::npos) << t.ir;
    EXPECT_NE(t.ir.find("A[1] = 5"), std::string::npos) << t.ir;
    EXPECT_NE(t.ir.find("A[4] = 1024"), std::string::npos) << t.ir;
    EXPECT_NE(t.ir.find("A[5] = 11"), std::string::npos) << t.ir;
    EXPECT_NE(t.ir.find("A[6] = 12"), std::string::npos) << t.ir;
    EXPECT_NE(t.ir.find("A[7] = 2"), std::string::npos) << t.ir;
}

TEST(Eval, IrOperatorsUseFloorSemantics) {
    const char* src = R"(
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64,), "float32"), n: T.int32):
    with T.Kernel(4, threads=64) as bx:
        for i in T.Parallel(64):
            A[(bx * 64 + i) // 2 % 64] = T.if_then_else(i < n and i >= 0, 1.0, 0.0)
)";
    auto t = trace(src);
    ASSERT_TRUE(t.func) << first_error(t);
    auto* st = find(t.func->body, ir::NodeKind::BufferStore)->as<ir::BufferStoreNode>();
    ASSERT_TRUE(st);
    auto* mod = st->indices[0]->as<ir::BinaryNode>();
    ASSERT_TRUE(mod);
    EXPECT_EQ(mod->op, ir::BinaryOp::FloorMod);
    EXPECT_EQ(mod->a->as<ir::BinaryNode>()->op, ir::BinaryOp::FloorDiv);
    auto* sel = st->value->as<ir::SelectNode>();
    ASSERT_TRUE(sel);
    EXPECT_EQ(sel->cond->as<ir::BinaryNode>()->op, ir::BinaryOp::And);
    EXPECT_TRUE(t.func->params[1].var);
}

TEST(Eval, DiagnosticsCarrySpansAndSuggestions) {
    const char* src = "import tilelang.language as T\n\n\n@T.prim_func\ndef main(A: T.Tensor((8,), \"float32\")):\n"
                      "    with T.Kernel(1, threads=32) as bx:\n        T.fil(A, 0)\n";
    auto t = trace(src);
    ASSERT_FALSE(t.func);
    ASSERT_EQ(t.diags.size(), 1u);
    EXPECT_EQ(t.diags[0].kind, DiagKind::UnknownTileFunction);
    EXPECT_EQ(t.diags[0].span.begin.line, 7u);
    EXPECT_EQ(t.diags[0].span.begin.col, 9u);
    EXPECT_NE(t.diags[0].message.find("did you mean `T.fill`"), std::string::npos);
}

TEST(Eval, HostCodeIsNeverRun) {
    const char* src = R"(
import torch
import argparse
import tilelang.language as T

parser = argparse.ArgumentParser()
X = torch.randn(4)


@T.prim_func
def main(A: T.Tensor((8,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        T.fill(A, 1)


if __name__ == "__main__":
    raise SystemExit(main())
)";
    auto t = trace(src);
    ASSERT_TRUE(t.func) << first_error(t);
    auto bad = trace(std::string(src) + "\n\n@T.prim_func\ndef uses(A: T.Tensor((8,), \"float32\")):\n    with T.Kernel(1) as bx:\n        T.fill(A, X.sum())\n",
                     {}, "uses");
    ASSERT_FALSE(bad.func);
    EXPECT_EQ(bad.diags[0].kind, DiagKind::UnsupportedConstruct);
    EXPECT_NE(bad.diags[0].message.find("torch.randn"), std::string::npos) << bad.diags[0].message;
}

TEST(Eval, TileRegistryIsDocumented) {
    auto all = eval::tile_builtins();
    EXPECT_GT(all.size(), 50u);
    bool has_gemm = false;
    for (const auto& b : all) {
        EXPECT_FALSE(b.signature.empty()) << b.name;
        EXPECT_FALSE(b.doc.empty()) << b.name;
        has_gemm |= b.name == "gemm";
    }
    EXPECT_TRUE(has_gemm);
}

TEST(Eval, VectorAddIsFast) {
    const char* src = R"(
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def vector_add(N, block=256, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                C[bx * block + i] = A[bx * block + i] + B[bx * block + i]

    return main
)";
    auto file = SourceFile::from_string("v.py", src);
    DiagnosticEngine diags(file);
    auto mod = frontend::parse_module(file, diags);
    ASSERT_TRUE(mod);
    eval::EvalRequest req;
    req.defines = {{"N", "1048576"}};
    auto t0 = std::chrono::steady_clock::now();
    constexpr int kRuns = 50;
    for (int i = 0; i < kRuns; ++i) ASSERT_TRUE(eval::evaluate_kernel(mod, req, diags).func);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / kRuns;
    // Well under 1 ms on any machine; a generous bound keeps the test stable under load.
    EXPECT_LT(ms, 5.0) << ms << " ms per evaluation";
}

// TileLang's own examples (read from the reference mirror when it is present).
TEST(Eval, TileLangExamples) {
    const char* mirror = "/work/.mirror/tile-ai+tilelang/repo";
    if (!std::filesystem::exists(mirror)) GTEST_SKIP() << "no TileLang mirror";
    struct Case {
        const char* path;
        const char* kernel;
        std::vector<std::pair<std::string, std::string>> defines;
    };
    std::vector<Case> cases = {
        {"examples/gemm/example_gemm.py", "", {{"M", "256"}, {"N", "256"}, {"K", "256"}, {"block_M", "128"}, {"block_N", "128"}, {"block_K", "32"}}},
        {"examples/quickstart.py", "", {{"M", "256"}, {"N", "256"}, {"K", "256"}, {"block_M", "128"}, {"block_N", "128"}, {"block_K", "32"}}},
        {"examples/elementwise/example_elementwise_add.py", "", {{"M", "256"}, {"N", "256"}, {"block_M", "32"}, {"block_N", "32"}, {"in_dtype", "float32"}, {"out_dtype", "float32"}, {"threads", "128"}}},
        {"examples/gemm_splitk/example_tilelang_gemm_splitk.py", "", {{"M", "256"}, {"N", "256"}, {"K", "256"}, {"block_M", "64"}, {"block_N", "64"}, {"block_K", "32"}, {"split_k", "4"}}},
        {"examples/gemm/example_gemm_autotune.py", "matmul", {{"M", "256"}, {"N", "256"}, {"K", "256"}, {"block_M", "64"}, {"block_N", "64"}, {"block_K", "32"}, {"num_stages", "2"}, {"thread_num", "128"}, {"enable_rasteration", "True"}}},
        {"examples/flash_attention/example_mha_fwd_bshd.py", "", {{"batch", "1"}, {"heads", "2"}, {"seq_len", "128"}, {"dim", "64"}, {"is_causal", "True"}}},
        {"examples/flash_attention/example_mha_fwd_bhsd.py", "", {{"batch", "1"}, {"heads", "2"}, {"seq_q", "128"}, {"seq_kv", "256"}, {"dim", "64"}, {"is_causal", "True"}}},
        {"examples/flash_attention/example_gqa_fwd_bshd.py", "", {{"batch", "1"}, {"heads", "4"}, {"seq_len", "128"}, {"dim", "64"}, {"is_causal", "False"}, {"groups", "2"}}},
        {"examples/norm/rms_norm.py", "rms_norm", {{"M", "256"}, {"N", "256"}, {"blk_m", "1"}}},
        {"examples/norm/layernorm.py", "_layernorm_fwd", {{"N", "256"}, {"D", "128"}}},
        {"examples/online_softmax/online_softmax.py", "", {}},
        {"examples/topk/example_topk.py", "", {{"M", "320"}, {"N", "128"}, {"topk", "6"}, {"blk_m", "64"}}},
        {"examples/cast/example_per_token_cast_to_fp8.py", "", {{"M", "256"}, {"N", "256"}, {"blk_m", "8"}}},
    };
    for (const auto& c : cases) {
        std::string cmd = std::string("git -C ") + mirror + " show HEAD:" + c.path;
        FILE* p = popen(cmd.c_str(), "r");
        ASSERT_TRUE(p);
        std::string text;
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
        pclose(p);
        ASSERT_FALSE(text.empty()) << c.path;
        auto t = trace(text, c.defines, c.kernel);
        EXPECT_TRUE(t.func) << c.path << ": " << first_error(t);
        EXPECT_TRUE(t.diags.empty()) << c.path << ": " << first_error(t);
    }
}

}  // namespace
}  // namespace tp
