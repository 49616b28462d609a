// The LLVM JIT against the interpreter, construct by construct, on small kernels written in the
// DSL: each runs on both engines from the same seeded inputs. Element-wise code, copies, fills,
// reductions, loops and branches keep the interpreter's order of operations, so their outputs
// must be equal bit for bit; T.gemm sums in f32 in another order, so it is held to the dtype's
// tolerance. Built only where libtileplay_jit is.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "jit_test_util.h"

using namespace tp;
using namespace tp::jit_test;

namespace {

const char* kElementwise = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[3, 4, 5])
def ew(N=1000, block=128, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), S: T.Tensor((N,), "float32"),
             C: T.Tensor((N,), dtype), D: T.Tensor((N,), "float32"), E: T.Tensor((N,), "int32")):
        with T.Kernel(T.ceildiv(N, block), threads=128) as bx:
            for i in T.Parallel(block):
                g = bx * block + i
                if g < N:
                    C[g] = A[g] * B[g] + A[g] / (B[g] + T.cast(3.0, dtype)) - T.max(A[g], B[g])
                    D[g] = T.exp(S[g]) + T.exp2(S[g] * 0.5) - T.log(T.abs(S[g]) + 1.0) + T.sqrt(T.abs(S[g])) * T.tanh(S[g])
                    D[g] += T.sigmoid(S[g]) + T.floor(S[g]) + T.rsqrt(T.abs(S[g]) + 1.0) + T.min(S[g], 0.25) + T.erf(S[g])
                    E[g] = (g * 7) // 3 - (g % 5) + (g >> 1) - T.cast(S[g] * 10.0, "int32") + T.if_then_else(S[g] > 0, 1, -1)
                else:
                    T.device_assert(g >= N)

    return main
)";

const char* kTiles = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1, 2, 3, 4])
def tiles(M=50, N=70, block_M=16, block_N=32, dtype="float16"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype), RowMax: T.Tensor((M,), "float32"),
             ColSum: T.Tensor((T.ceildiv(M, block_M), N), "float32"), Misc: T.Tensor((T.ceildiv(M, block_M), T.ceildiv(N, block_N) * 4), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            x = T.alloc_shared((block_M, block_N), dtype)
            f = T.alloc_fragment((block_M, block_N), "float32")
            r = T.alloc_fragment((block_M,), "float32")
            c = T.alloc_fragment((block_N,), "float32")
            acc = T.alloc_var("float32", init=1.5)
            T.copy(X[by * block_M, bx * block_N], x)
            T.clear(f)
            for i, j in T.Parallel(block_M, block_N):
                f[i, j] = x[i, j] * 2.0 - 1.0
            T.reduce_max(f, r, dim=1)
            T.reduce_sum(f, c, dim=0, clear=True)
            T.reduce_absmax(f, r, dim=1, clear=False)
            for k in T.serial(4):
                if k % 2 == 0:
                    acc = acc * 1.25 + c[k]
                else:
                    acc = acc - r[k]
            T.copy(f, Y[by * block_M, bx * block_N])
            if bx == 0:
                T.copy(r, RowMax[by * block_M])
            T.copy(c, ColSum[by, bx * block_N])
            T.fill(Misc[by, bx * 4:bx * 4 + 4], acc)

    return main
)";

// The interpreter's unit-test GEMM (either operand transposed), read from its one file.
std::string read_gemm() {
    std::ifstream in(TILEPLAY_SOURCE_DIR "/tests/unit/Inputs/transposed_matmul.py");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}
const std::string kGemm = read_gemm();

const char* kLoops = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1])
def loops(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "int32"), B: T.Tensor((8,), "int32")):
        with T.Kernel(4, threads=32) as bx:
            n = T.alloc_var("int32", init=0)
            k = T.alloc_var("int32", init=0)
            for i in T.serial(N):
                if A[i] > 3:
                    break
                n = n + 1
            k = bx
            while k < 100:
                k = k * 2 + 1
            B[bx] = n * 1000 + k
            for i in T.serial(1 << 17):
                B[4 + bx] = B[4 + bx] + (i & 3)

    return main
)";

const char* kSpin = R"(
import tilelang
import tilelang.language as T

@tilelang.jit
def spin(A):
    A: T.Tensor((1,), T.float32)
    with T.Kernel(1, threads=32) as bx:
        for k in T.serial(1 << 40):
            A[0] = A[0] + 1.0
)";

const char* kOutOfBounds = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1])
def oob(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(2, threads=128) as bx:
            for i in T.Parallel(N):
                B[i] = A[i + bx]

    return main
)";

// T.rng_* (each thread's Philox generator) is not lowered: the launch stays on the interpreter.
const char* kRng = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[0])
def draws(n=9):
    @T.prim_func
    def main(A: T.Tensor((2, n), "uint32")):
        with T.Kernel(2, threads=1) as bx:
            T.rng_init(12345, bx, 4 * bx + 1)
            for k in T.serial(n):
                A[bx, k] = T.rng_rand()

    return main
)";
TEST(Jit, ElementwiseMathAndIntegersAreBitwiseEqual) {
    require_jit();
    for (const char* dtype : {"float16", "bfloat16", "float32"}) {
        SCOPED_TRACE(dtype);
        Both r = run_both(compile_ir(kElementwise, {{"dtype", dtype}}));
        expect_jit(r);
        expect_bitwise(r);
    }
}

TEST(Jit, CopyFillReduceLoopsAreBitwiseEqual) {
    require_jit();
    for (const char* dtype : {"float16", "bfloat16", "float32"}) {
        SCOPED_TRACE(dtype);
        Both r = run_both(compile_ir(kTiles, {{"dtype", dtype}}));
        expect_jit(r);
        expect_bitwise(r);
    }
}

TEST(Jit, GemmWithinToleranceForEveryLayoutAndEdge) {
    require_jit();
    struct Case {
        const char *m, *n, *k, *bm, *bn, *bk, *ta, *tb, *dtype, *out;
    };
    // Ragged problem sizes (partial tiles through T.copy's zero fill), tiles the 4 x 16 register
    // tile covers exactly, and tiles with leftover rows and columns.
    for (const Case& c : {Case{"64", "64", "64", "32", "32", "16", "False", "False", "float16", "float32"},
                          Case{"72", "40", "50", "32", "32", "16", "True", "False", "float16", "float16"},
                          Case{"45", "70", "33", "18", "24", "16", "False", "True", "bfloat16", "float32"},
                          Case{"30", "30", "20", "30", "30", "8", "True", "True", "float32", "float32"}}) {
        SCOPED_TRACE(std::string(c.m) + "x" + c.n + "x" + c.k + " tiles " + c.bm + "x" + c.bn + "x" + c.bk + " " + c.dtype);
        Both r = run_both(compile_ir(kGemm, {{"M", c.m},
                                             {"N", c.n},
                                             {"K", c.k},
                                             {"block_M", c.bm},
                                             {"block_N", c.bn},
                                             {"block_K", c.bk},
                                             {"trans_A", c.ta},
                                             {"trans_B", c.tb},
                                             {"dtype", c.dtype},
                                             {"out", c.out}}));
        expect_jit(r);
        expect_close(r);
    }
}

TEST(Jit, BreakWhileAndLongLoopsAreBitwiseEqual) {
    require_jit();
    Both r = run_both(compile_ir(kLoops, {}));
    expect_jit(r);
    expect_bitwise(r);
}

TEST(Jit, WatchdogStopsALongInnerLoopAtItsLine) {
    require_jit();
    Both r = run_both(compile_ir(kSpin, {}), [](InterpOptions& o) { o.watchdog_s = 0.3; });
    EXPECT_EQ(r.jit.engine, "jit");
    ASSERT_FALSE(r.jit.ok);
    ASSERT_EQ(r.jit.diagnostics.size(), 1u);
    ASSERT_EQ(r.interp.diagnostics.size(), 1u);
    EXPECT_EQ(r.jit.diagnostics[0].kind, DiagKind::InterpreterTimeout);
    // The same message (block (0, 0, 0)) at the same loop as the interpreter's.
    EXPECT_EQ(r.jit.diagnostics[0].message, r.interp.diagnostics[0].message);
    EXPECT_EQ(r.jit.diagnostics[0].span, r.interp.diagnostics[0].span);
}

TEST(Jit, FaultReRunsOnTheInterpreterForItsDiagnostic) {
    require_jit();
    Both r = run_both(compile_ir(kOutOfBounds, {}));
    EXPECT_EQ(r.jit.engine, "interpreter");
    EXPECT_NE(r.jit.jit_note.find("fault"), std::string::npos) << r.jit.jit_note;
    ASSERT_FALSE(r.jit.ok);
    ASSERT_FALSE(r.jit.diagnostics.empty());
    EXPECT_EQ(r.jit.diagnostics[0].kind, DiagKind::OutOfBoundsAccess);
    EXPECT_EQ(r.jit.diagnostics[0].message, r.interp.diagnostics.at(0).message);
}

// Warp roles and mbarriers: a block runs its roles in program order on both engines, and the
// arrive counts move the phases alike; a wait that program order cannot complete faults on the
// JIT and the interpreter's re-run reports it at its line.
const char* kRoles = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1])
def roles(N=512, block=64, first_wait=0):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=256) as bx:
            s = T.alloc_shared((block,), "float32")
            acc = T.alloc_fragment((block,), "float32")
            ready = T.alloc_barrier(arrive_count=128)
            done = T.alloc_barrier(arrive_count=128)
            with T.ws(0):
                T.clear(acc)
                if first_wait == 1:
                    T.barrier_wait(ready, 0)
            for ko in T.serial(3):
                with T.ws(1):
                    T.barrier_wait(done, (ko + 1) % 2)
                    T.copy(A[bx * block], s)
                    T.barrier_arrive(ready)
                with T.ws(0):
                    T.barrier_wait(ready, ko % 2)
                    for i in T.Parallel(block):
                        acc[i] = acc[i] + s[i] * (ko + 1)
                    T.barrier_arrive(done)
            with T.ws(0):
                T.copy(acc, B[bx * block])

    return main
)";

TEST(Jit, RolesAndMbarriersRunInProgramOrder) {
    require_jit();
    Both r = run_both(compile_ir(kRoles, {}));
    expect_jit(r);
    expect_bitwise(r);
    Both bad = run_both(compile_ir(kRoles, {{"first_wait", "1"}}));
    EXPECT_EQ(bad.jit.engine, "interpreter");
    EXPECT_NE(bad.jit.jit_note.find("fault"), std::string::npos) << bad.jit.jit_note;
    ASSERT_FALSE(bad.jit.diagnostics.empty());
    EXPECT_EQ(bad.jit.diagnostics[0].kind, DiagKind::BarrierWaitNeverCompletes);
    EXPECT_EQ(bad.jit.diagnostics[0].message, bad.interp.diagnostics.at(0).message);
}

// A copy whose source extent is symbolic (`A[bx, D:]` of a tensor with a dynamic dim): the
// regions are paired at run time, element by element, as the interpreter does.
const char* kDynamicCopy = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1])
def tail(D=16, block=32):
    n = T.dynamic("n")

    @T.prim_func
    def main(A: T.Tensor((4, n), "float16"), B: T.Tensor((4, block), "float32")):
        with T.Kernel(4, threads=32) as bx:
            s = T.alloc_shared((block,), "float32")
            T.copy(A[bx, D:], s)
            for i in T.Parallel(block):
                s[i] = s[i] * 2.0
            T.copy(s, B[bx, 0:block])

    return main
)";

TEST(Jit, CopyWithRuntimeExtentsPairsRegionsAtRunTime) {
    require_jit();
    auto f = compile_ir(kDynamicCopy, {});
    Both r = run_both(f, nullptr, {{"n", 48}});
    expect_jit(r);
    expect_bitwise(r);
    // Extents that do not pair (n - D != block) are the interpreter's shape mismatch.
    Both bad = run_both(f, nullptr, {{"n", 40}});
    EXPECT_EQ(bad.jit.engine, "interpreter");
    ASSERT_FALSE(bad.jit.diagnostics.empty());
    EXPECT_EQ(bad.jit.diagnostics[0].kind, DiagKind::ShapeMismatch);
    EXPECT_EQ(bad.jit.diagnostics[0].message, bad.interp.diagnostics.at(0).message);
}

// A block-level kernel that reads the thread index: both engines run a block as one program
// where it reads 0, and the JIT's run carries the interpreter's warning.
TEST(Jit, ThreadIndexReadsZeroWithTheInterpretersWarning) {
    require_jit();
    std::ifstream in(TILEPLAY_SOURCE_DIR "/tests/errors/warn_thread_index_on_interpreter.py");
    std::stringstream text;
    text << in.rdbuf();
    Both r = run_both(compile_ir(text.str(), {}, "warn.py"), [](InterpOptions& o) { o.source_path = "warn.py"; });
    expect_jit(r);
    expect_bitwise(r);
    ASSERT_EQ(r.jit.warnings.size(), 1u);
    ASSERT_EQ(r.interp.warnings.size(), 1u);
    EXPECT_EQ(r.jit.warnings[0].kind, DiagKind::ThreadIndexOnInterpreter);
    EXPECT_EQ(r.jit.warnings[0].message, r.interp.warnings[0].message);
    EXPECT_EQ(r.jit.warnings[0].span, r.interp.warnings[0].span);
}

TEST(Jit, UnsupportedConstructFallsBackWithTheReason) {
    require_jit();
    Both r = run_both(compile_ir(kRng, {}));
    EXPECT_EQ(r.jit.engine, "interpreter");
    EXPECT_NE(r.jit.jit_note.find("rng"), std::string::npos) << r.jit.jit_note;
    expect_bitwise(r);
}

TEST(Jit, SampledBlocksAndWrittenMasksMatch) {
    require_jit();
    auto f = compile_ir(kGemm, {{"M", "96"}, {"N", "64"}, {"K", "32"}, {"block_M", "32"}, {"block_N", "32"}, {"block_K", "16"}, {"out", "float32"}});
    Both r = run_both(f, [](InterpOptions& o) {
        o.sample_blocks = {1, 4};
        o.track_written = true;
    });
    expect_jit(r);
    expect_close(r);
    EXPECT_EQ(r.jit.written, r.interp.written);
    EXPECT_EQ(r.jit.blocks_run, 2);
}

TEST(Jit, UncheckedModeGivesTheSameResults) {
    require_jit();
    Both r = run_both(compile_ir(kTiles, {}), [](InterpOptions& o) { o.jit_checked = false; });
    expect_jit(r);
    expect_bitwise(r);
}

}  // namespace
