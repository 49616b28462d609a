// Issue 18: no crash, no hang, no silent wrong code whatever the input. Sizes of 2^31 and
// 2^32 keep 64-bit index math (IR builder, traced kernels, emitted CUDA, the interpreter);
// deep or cyclic containers, huge shapes and long trace-time loops end in located errors;
// tensors that overflow or exceed the memory budget are refused before allocating; the CPU
// interpreter stops at its watchdog.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "ir/ir.h"
#include "tensor/npy.h"
#include "test_eval_util.h"
#include "tileplay/compiler.h"
#include "tileplay/interp.h"

using namespace tp;
using tp::eval_test::first_error;
using tp::eval_test::trace;

namespace {

const char* kVectorAdd = R"(import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def vector_add(N, block_N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), threads=256) as bx:
            for i in T.Parallel(block_N):
                idx = bx * block_N + i
                if idx < N:
                    C[idx] = A[idx] + B[idx]
    return main
)";

CompileResult compile_cuda(const std::string& src, std::vector<std::pair<std::string, std::string>> defines) {
    CompileRequest req;
    req.path = "k.py";
    req.source = src;
    req.defines = std::move(defines);
    req.target = "sm_90";
    req.stop_after = Stage::Cuda;
    return compile(req);
}

std::string factory(const std::string& body) {
    return "import tilelang\nimport tilelang.language as T\n\n@tilelang.jit\ndef k(A, n=4):\n" + body +
           "    A: T.Tensor((128,), T.float32)\n    with T.Kernel(1, threads=128) as bx:\n        T.clear(A)\n";
}

}  // namespace

TEST(WideIndex, ConstantThatDoesNotFitWidensInsteadOfWrapping) {
    auto i = std::make_shared<ir::VarNode>("i", ir::DataType::int32(), ir::VarKind::Loop);
    ir::Expr big = ir::int_imm(4294967552LL, ir::DataType::int64());
    ir::Expr cmp = ir::make_binary(ir::BinaryOp::LT, i, big);
    auto* b = cmp->as<ir::BinaryNode>();
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->a->dtype, ir::DataType::int64());
    EXPECT_EQ(ir::as_const_int(b->b), 4294967552LL);
    // A constant that fits still takes the variable's dtype (TVM's rule).
    ir::Expr small = ir::make_binary(ir::BinaryOp::LT, i, ir::int_imm(256, ir::DataType::int64()));
    EXPECT_EQ(small->as<ir::BinaryNode>()->a->dtype, ir::DataType::int32());
}

TEST(WideIndex, VectorAddAt2To32IndexesIn64Bits) {
    CompileResult r = compile_cuda(kVectorAdd, {{"N", "4294967552"}});
    ASSERT_TRUE(r.ok) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
    // The guard keeps the full bound (the coarsening pass turns `idx < 4294967552` into a
    // guard on the 16,777,217 blocks) and the index is a 64-bit product, not an int32 one
    // that wraps at block 8388608; before, the guard read `idx < 256`.
    EXPECT_NE(r.cuda.find("< 16777217LL"), std::string::npos) << r.cuda;
    EXPECT_EQ(r.cuda.find("idx < 256"), std::string::npos) << r.cuda;
    EXPECT_NE(r.cuda.find("const long long idx = ((bx * 256LL) + static_cast<long long>(tx))"), std::string::npos) << r.cuda;
}

TEST(WideIndex, VectorAddAt2To31IndexesIn64Bits) {
    CompileResult r = compile_cuda(kVectorAdd, {{"N", "2147483648"}});
    ASSERT_TRUE(r.ok) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
    // 8,388,608 blocks of 256 need no guard; their index must still not wrap to negative.
    EXPECT_EQ(r.cuda.find("-2147483648"), std::string::npos) << r.cuda;
    EXPECT_NE(r.cuda.find("const long long idx = ((bx * 256LL) + static_cast<long long>(tx))"), std::string::npos) << r.cuda;
}

TEST(WideIndex, SmallKernelsKeep32BitIndices) {
    CompileResult r = compile_cuda(kVectorAdd, {{"N", "1048576"}});
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.cuda.find("LL"), std::string::npos) << r.cuda;
}

TEST(WideIndex, InterpreterComputesTheLastBlockOfA2To32Launch) {
    // 2^24 + 1 blocks of 256 threads: the last block's indices pass 2^32. Only that block is
    // run (blocks are independent), and only the 256 elements past 2^32 exist.
    const char* src = R"(import tilelang
import tilelang.language as T

@tilelang.jit
def tail(N):
    @T.prim_func
    def main(C: T.Tensor((256,), "float32")):
        with T.Kernel(T.ceildiv(N, 256), threads=256) as bx:
            for i in T.Parallel(256):
                idx = bx * 256 + i
                if idx >= N - 256:
                    if idx < N:
                        C[idx - (N - 256)] = T.cast(idx - 4294967296, "float32")
    return main
)";
    auto t = trace(src, {{"N", "4294967552"}});
    ASSERT_TRUE(t.func) << first_error(t);
    std::map<std::string, HostTensor> args;
    std::string err;
    ASSERT_TRUE(allocate_args(*t.func, 0, {}, args, &err)) << err;
    InterpOptions o;
    o.sample_blocks = {(int64_t(1) << 24)};
    InterpReport rep = run_on_cpu(*t.func, args, o);
    ASSERT_TRUE(rep.ok) << rep.error << (rep.diagnostics.empty() ? "" : rep.diagnostics[0].message);
    EXPECT_EQ(rep.total_blocks, (int64_t(1) << 24) + 1);
    for (int64_t k = 0; k < 256; ++k) ASSERT_EQ(args["C"].get(k), static_cast<double>(k)) << k;
}

TEST(WideIndex, GridBeyondCudaLimitIsALocatedError) {
    auto t = trace(kVectorAdd, {{"N", "1099511627776"}, {"block_N", "1"}});
    EXPECT_EQ(first_error(t).rfind("BadKernelLaunch: invalid `T.Kernel` launch: grid extent 1099511627776 exceeds", 0), 0u) << first_error(t);
    ASSERT_FALSE(t.diags.empty());
    EXPECT_EQ(t.diags[0].span.begin.line, 8u);
}

TEST(Limits, CyclicListPrintsLikePython) {
    auto t = trace(factory("    z = []\n    z.append(z)\n    assert str(z) == '[[...]]', str(z)\n    assert z == z\n"));
    EXPECT_TRUE(t.func) << first_error(t);
}

TEST(Limits, DeeplyNestedListIsALocatedErrorNotACrash) {
    auto t = trace(factory("    z = []\n    for _ in range(100000):\n        z = [z]\n    s = f\"{z}\"\n"));
    EXPECT_EQ(first_error(t).rfind("NestingTooDeep: repr of containers nested deeper than 1000 levels", 0), 0u) << first_error(t);
    ASSERT_FALSE(t.diags.empty());
    EXPECT_EQ(t.diags[0].span.begin.line, 9u);
    auto eq = trace(factory("    a = []\n    b = []\n    a.append(a)\n    b.append(b)\n    c = a == b\n"));
    EXPECT_EQ(first_error(eq).rfind("NestingTooDeep: comparison", 0), 0u) << first_error(eq);
}

TEST(Limits, TraceTimeStepBudget) {
    auto t = trace(factory("    s = 0\n    for i in range(100000):\n        for j in range(100000):\n            s += 1\n"));
    EXPECT_EQ(first_error(t).rfind("TraceStepBudget:", 0), 0u) << first_error(t);
}

TEST(Limits, TraceStepLimitComesFromTheRequest) {
    // The fuzz target lowers the limit; the same loop passes under the default one.
    CompileRequest req;
    req.path = "k.py";
    req.source = factory("    s = 0\n    for i in range(3000):\n        s += 1\n");
    req.target = "sm_90";
    req.stop_after = Stage::Ir;
    EXPECT_TRUE(compile(req).ok);
    req.trace_step_limit = 1000;
    CompileResult r = compile(req);
    ASSERT_FALSE(r.ok);
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_EQ(r.diagnostics[0].kind, DiagKind::TraceStepBudget);
    EXPECT_NE(r.diagnostics[0].message.find("more than 1000 steps"), std::string::npos) << r.diagnostics[0].message;
    EXPECT_EQ(r.diagnostics[0].span.begin.line, 8u);
}

TEST(Limits, HugeListRepeatIsRefusedBeforeAllocating) {
    auto t = trace(factory("    z = [0] * 10**10\n"));
    EXPECT_EQ(first_error(t).rfind("SizeTooLarge: the result of `*` is too large", 0), 0u) << first_error(t);
    EXPECT_EQ(t.diags[0].span.begin.line, 6u);
}

TEST(Limits, ShapesThatOverflowOrHaveRankOver8) {
    auto big = trace("import tilelang\nimport tilelang.language as T\n\n@tilelang.jit\ndef k(A):\n"
                     "    A: T.Tensor((1 << 40, 1 << 40), T.float32)\n    with T.Kernel(1, threads=128) as bx:\n        T.clear(A)\n");
    EXPECT_EQ(first_error(big).rfind("SizeTooLarge: a tensor of shape 1099511627776 x 1099511627776 is too large", 0), 0u) << first_error(big);
    auto defined = trace(kVectorAdd, {{"N", "4611686018427387904"}});
    EXPECT_EQ(first_error(defined).rfind("SizeTooLarge:", 0), 0u) << first_error(defined);
    auto rank = trace("import tilelang\nimport tilelang.language as T\n\n@tilelang.jit\ndef k(A):\n"
                      "    A: T.Tensor((2, 2, 2, 2, 2, 2, 2, 2, 2), T.float32)\n    with T.Kernel(1, threads=128) as bx:\n        T.clear(A)\n");
    EXPECT_EQ(first_error(rank).rfind("SizeTooLarge: a tensor of rank 9 is too large: at most 8 dimensions", 0), 0u) << first_error(rank);
}

TEST(Limits, OversizedFragmentIsRefusedAtItsAllocation) {
    std::string src = std::string(TILEPLAY_SOURCE_DIR) + "/samples/softmax.py";
    std::ifstream in(src);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const char* bm : {"64", "2147483647", "2147483648"}) {
        auto t = trace(text, {{"M", "8192"}, {"N", "8192"}, {"block_M", bm}}, "softmax");
        EXPECT_EQ(first_error(t).rfind("SizeTooLarge: a fragment tile of ", 0), 0u) << bm << ": " << first_error(t);
    }
    auto ok = trace(text, {{"M", "8192"}, {"N", "8192"}}, "softmax");
    EXPECT_TRUE(ok.func) << first_error(ok);
}

TEST(Limits, TensorByteCountsAreOverflowChecked) {
    EXPECT_FALSE(checked_nbytes(ir::DataType::float32(), {int64_t(1) << 62}).has_value());
    EXPECT_FALSE(checked_nbytes(ir::DataType::float32(), {int64_t(1) << 40, int64_t(1) << 40}).has_value());
    EXPECT_FALSE(checked_nbytes(ir::DataType::float32(), {-1}).has_value());
    EXPECT_EQ(checked_nbytes(ir::DataType::float16(), {3, 5}), 30);
    EXPECT_THROW(HostTensor(ir::DataType::float32(), {int64_t(1) << 62}), std::length_error);
}

TEST(Limits, NpyHeaderClaimingMoreThanTheFileHoldsIsRefused) {
    HostTensor small(ir::DataType::float32(), {4});
    std::string bytes = encode_npy(small);
    // Rewrite the header in place with a 2^40 shape, padding with spaces to the same length.
    size_t end = bytes.find('\n');
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }";
    header.resize(end - 10, ' ');
    bytes.replace(10, end - 10, header);
    HostTensor out;
    std::string err;
    EXPECT_FALSE(decode_npy(bytes, out, &err));
    EXPECT_NE(err.find("the header's shape needs 4398046511104 bytes"), std::string::npos) << err;
}

TEST(Limits, RunsOverTheMemoryBudgetAreRefusedBeforeAllocating) {
    auto t = trace(kVectorAdd, {{"N", "4294967552"}});
    ASSERT_TRUE(t.func) << first_error(t);
    setenv("TILEPLAY_MEMORY_BUDGET", "1G", 1);
    std::map<std::string, HostTensor> args;
    std::string err;
    EXPECT_FALSE(allocate_args(*t.func, 0, {}, args, &err));
    unsetenv("TILEPLAY_MEMORY_BUDGET");
    EXPECT_TRUE(args.empty());
    EXPECT_NE(err.find("the run needs 144.0 GiB for its tensors (`A` float32[4294967552] 48.0 GiB, `B`"), std::string::npos) << err;
    EXPECT_NE(err.find("over the memory budget of 1.0 GiB (TILEPLAY_MEMORY_BUDGET); use smaller sizes (`-D`)"), std::string::npos) << err;
}

TEST(Limits, InterpreterWatchdogStopsAnEndlessLoop) {
    const char* src = R"(import tilelang
import tilelang.language as T

@tilelang.jit
def spin():
    @T.prim_func
    def main(A: T.Tensor((1,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            for k in T.serial(1 << 40):
                A[0] = A[0] + 1.0
    return main
)";
    auto t = trace(src);
    ASSERT_TRUE(t.func) << first_error(t);
    std::map<std::string, HostTensor> args;
    std::string err;
    ASSERT_TRUE(allocate_args(*t.func, 0, {}, args, &err)) << err;
    InterpOptions o;
    o.watchdog_s = 0.2;
    InterpReport rep = run_on_cpu(*t.func, args, o);
    EXPECT_FALSE(rep.ok);
    ASSERT_EQ(rep.diagnostics.size(), 1u);
    EXPECT_EQ(rep.diagnostics[0].kind, DiagKind::InterpreterTimeout);
    EXPECT_EQ(rep.diagnostics[0].span.begin.line, 9u);
    EXPECT_NE(rep.diagnostics[0].message.find("did not finish within 0.2 s on the CPU interpreter"), std::string::npos);
}
