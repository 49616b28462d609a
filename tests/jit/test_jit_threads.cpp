// Thread-level kernels (each block run as its threads) on the JIT against the interpreter, bit
// for bit: barriers in loops and under uniform branches, shared-memory exchanges, a reduction
// tree, warp shuffles (xor, up, down, segments narrower than a warp, a partial last warp, int
// values), block-wide tile ops between per-thread code, TVM's thread allreduce on a 2-D thread
// block, per-thread T.print, threads that reach different barriers (the interpreter's error),
// and every lesson that is written at thread level.
#include <gtest/gtest.h>

#include <filesystem>

#include "jit_test_util.h"
#include "tileplay/sample_header.h"

using namespace tp;
using namespace tp::jit_test;

namespace {

// A tree reduction through shared memory: barriers inside a loop, a branch on the thread
// index between them; blocks of odd index first exchange mirrored values under a branch on
// the block index (uniform in the block), with barriers on both sides.
const char* kTree = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1, 2])
def tree(blocks=4, threads=128, rounds=7, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((blocks * threads,), dtype), S: T.Tensor((blocks,), dtype), M: T.Tensor((blocks * threads,), dtype)):
        with T.Kernel(blocks, threads=threads) as bx:
            tx = T.get_thread_binding(0)
            buf = T.alloc_shared((threads,), dtype)
            mine = T.alloc_local((1,), dtype)
            buf[tx] = A[bx * threads + tx] * 1.5
            T.sync_threads()
            if bx % 2 == 1:
                mine[0] = buf[threads - 1 - tx]
                T.sync_threads()
                buf[tx] = mine[0] - buf[tx] * 0.25
                T.sync_threads()
            else:
                T.sync_threads()
            M[bx * threads + tx] = buf[tx]
            T.sync_threads()
            for r in T.serial(rounds):
                half = threads >> (r + 1)
                if tx < half:
                    buf[tx] = buf[tx] + buf[tx + half]
                T.sync_threads()
            if tx == 0:
                S[bx] = buf[0]

    return main
)";

// Warp shuffles: an xor butterfly sum, an inclusive scan with lanes below (segments of 16), a
// read of lane + 3 in segments of 8, and an int value across the warp's mirror lane.
const char* kShuffles = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1, 2, 3, 4])
def shuffles(threads=64, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((threads,), dtype), X: T.Tensor((threads,), dtype), U: T.Tensor((threads,), dtype),
             D: T.Tensor((threads,), dtype), I: T.Tensor((threads,), "int32")):
        with T.Kernel(1, threads=threads) as bx:
            tx = T.get_thread_binding(0)
            v = T.alloc_local((1,), dtype)
            u = T.alloc_local((1,), dtype)
            t = T.alloc_local((1,), dtype)
            v[0] = A[tx]
            for k in T.serial(5):
                v[0] = v[0] + T.tvm_warp_shuffle(0xFFFFFFFF, v[0], tx ^ (16 >> k), 32, 32)
            X[tx] = v[0]
            u[0] = A[tx]
            for k in T.serial(4):
                t[0] = T.tvm_warp_shuffle(0xFFFFFFFF, u[0], tx - (1 << k), 16, 32)
                if tx % 16 >= (1 << k):
                    u[0] = u[0] + t[0]
            U[tx] = u[0]
            D[tx] = T.tvm_warp_shuffle(0xFFFFFFFF, A[tx] * 3.0, tx + 3, 8, 32)
            I[tx] = T.tvm_warp_shuffle(0xFFFFFFFF, tx * 7 - 100, 31 - tx % 32, 32, 32)

    return main
)";

// Block-wide tile ops (T.copy, a T.Parallel loop, T.reduce_max) between per-thread code, which
// reads what they wrote and writes what they read next; per-thread T.print.
const char* kMixed = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1])
def mixed(blocks=3, threads=64, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((blocks * threads,), dtype), B: T.Tensor((blocks * threads,), dtype)):
        with T.Kernel(blocks, threads=threads) as bx:
            tx = T.get_thread_binding(0)
            s = T.alloc_shared((threads,), dtype)
            f = T.alloc_fragment((threads,), dtype)
            m = T.alloc_fragment((1,), dtype)
            v = T.alloc_local((1,), dtype)
            T.copy(A[bx * threads:(bx + 1) * threads], s)
            for i in T.Parallel(threads):
                s[i] = s[i] * 2.0
            v[0] = s[threads - 1 - tx] + T.cast(tx, dtype)
            s[tx] = v[0]
            T.copy(s, f)
            T.reduce_max(f, m, dim=0)
            if tx < 2:
                T.print(v[0], msg="v")
            B[bx * threads + tx] = s[tx] - m[0]

    return main
)";

// TVM's cross-thread reduction idiom on a 2-D thread block (tests/frontend/thread_allreduce.py).
const char* kAllreduce = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[0, 1])
def allreduce(X=4, R=8):
    @T.prim_func
    def main(S: T.Tensor((X,), "float32"), M: T.Tensor((X,), "float32")):
        with T.Kernel(1, threads=(X, R)) as bx:
            tx = T.get_thread_binding(0)
            ty = T.get_thread_binding(1)
            s = T.alloc_local((1,), "float32")
            m = T.alloc_local((1,), "float32")
            with T.attr(T.comm_reducer(lambda x, y: x + y, [T.cast(0, "float32")]), "reduce_scope", T.reinterpret(T.uint64(0), dtype="handle")):
                T.evaluate(T.tvm_thread_allreduce(T.uint32(1), T.cast((tx + 1) * (ty + 1), "float32") * 0.1, True, s[0], ty, dtype="handle"))
            with T.attr(T.comm_reducer(lambda x, y: T.max(x, y), [T.cast(-1e30, "float32")]), "reduce_scope",
                        T.reinterpret(T.uint64(0), dtype="handle")):
                T.evaluate(T.tvm_thread_allreduce(T.uint32(1), T.cast((tx + 1) * (ty + 1), "float32"), True, m[0], ty, dtype="handle"))
            if ty == 0:
                S[tx] = s[0]
                M[tx] = m[0]

    return main
)";

// Threads that reach different barriers: the branch reads the thread index through a local
// buffer, which the thread-level scan does not follow, so only the run can tell.
const char* kDiverge = R"(
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1])
def diverge(threads=64):
    @T.prim_func
    def main(A: T.Tensor((threads,), "float32"), B: T.Tensor((threads,), "float32")):
        with T.Kernel(1, threads=threads) as bx:
            tx = T.get_thread_binding(0)
            k = T.alloc_local((1,), "int32")
            k[0] = tx
            if k[0] < 32:
                T.sync_threads()
            B[tx] = A[tx]

    return main
)";

TEST(JitThreads, ReductionTreeWithBarriersInLoopsAndUniformBranches) {
    require_jit();
    for (const char* dtype : {"float16", "bfloat16", "float32"}) {
        SCOPED_TRACE(dtype);
        Both r = run_both(compile_ir(kTree, {{"dtype", dtype}}));
        expect_jit(r);
        expect_bitwise(r);
    }
    // More threads than a warp's multiple, and two threads.
    Both r = run_both(compile_ir(kTree, {{"threads", "96"}, {"rounds", "6"}}));
    expect_jit(r);
    expect_bitwise(r);
    Both two = run_both(compile_ir(kTree, {{"threads", "2"}, {"rounds", "1"}}), [](InterpOptions& o) { o.threads = 1; });
    expect_jit(two);
    expect_bitwise(two);
}

TEST(JitThreads, WarpShufflesAreBitwiseEqual) {
    require_jit();
    for (const char* dtype : {"float16", "bfloat16", "float32"}) {
        for (const char* threads : {"64", "48"}) {  // 48: lanes past the block's last thread read their own value
            SCOPED_TRACE(std::string(dtype) + " threads=" + threads);
            Both r = run_both(compile_ir(kShuffles, {{"dtype", dtype}, {"threads", threads}}));
            expect_jit(r);
            expect_bitwise(r);
        }
    }
}

TEST(JitThreads, BlockWideTileOpsBetweenPerThreadCode) {
    require_jit();
    for (const char* dtype : {"float16", "float32"}) {
        SCOPED_TRACE(dtype);
        std::string jit_text, interp_text;
        std::shared_ptr<const ir::PrimFunc> f = compile_ir(kMixed, {{"dtype", dtype}});
        Both r;
        std::string err;
        ASSERT_TRUE(allocate_args(*f, 7, {}, r.interp_args, &err)) << err;
        r.jit_args = r.interp_args;
        InterpOptions oi, oj;
        oi.print_sink = [&](const std::string& s) { interp_text += s; };
        oj.print_sink = [&](const std::string& s) { jit_text += s; };
        oj.engine = CpuEngine::Auto;
        r.interp = run_on_cpu(*f, r.interp_args, oi);
        r.jit = run_on_cpu(*f, r.jit_args, oj);
        expect_jit(r);
        expect_bitwise(r);
        EXPECT_FALSE(interp_text.empty());
        EXPECT_EQ(jit_text, interp_text);
    }
}

TEST(JitThreads, ThreadAllreduceOnTwoThreadAxes) {
    require_jit();
    Both r = run_both(compile_ir(kAllreduce, {}));
    expect_jit(r);
    expect_bitwise(r);
}

TEST(JitThreads, ThreadsAtDifferentBarriersGetTheInterpretersError) {
    require_jit();
    Both r = run_both(compile_ir(kDiverge, {}));
    ASSERT_FALSE(r.interp.ok);
    EXPECT_FALSE(r.jit.ok);
    ASSERT_EQ(r.jit.diagnostics.size(), r.interp.diagnostics.size());
    ASSERT_FALSE(r.interp.diagnostics.empty());
    EXPECT_EQ(r.interp.diagnostics[0].kind, DiagKind::ThreadsDiverge);
    EXPECT_EQ(r.jit.diagnostics[0].message, r.interp.diagnostics[0].message);
    EXPECT_EQ(r.jit.diagnostics[0].span, r.interp.diagnostics[0].span);
}

// Every lesson and solution that compiles, at its cpu-args, on both engines; the thread-level
// ones (lesson 7's exchange, with and without its barrier) must run on the JIT.
TEST(JitThreads, EveryLessonMatchesTheInterpreter) {
    require_jit();
    int thread_level_on_jit = 0;
    const auto root = std::filesystem::path(TILEPLAY_SOURCE_DIR) / "lessons";
    for (const auto& dir : {root, root / "solutions"}) {
        for (const auto& e : std::filesystem::directory_iterator(dir)) {
            if (e.path().extension() != ".py") continue;
            SCOPED_TRACE(e.path().string());
            const std::string src = read_text(e.path());
            SampleHeader h = parse_sample_header(src);
            CompileRequest req;
            req.path = e.path().string();
            req.source = src;
            req.kernel = h.kernel;
            req.defines = h.cpu_args;
            req.fallback_defines = h.args;
            req.stop_after = Stage::Ir;
            CompileResult cr = compile(req);
            if (!cr.ok) continue;  // an exercise with its gap still open
            std::map<std::string, int64_t> symbols;
            for (const auto& [k, v] : h.cpu_args) {
                char* end = nullptr;
                long long x = std::strtoll(v.c_str(), &end, 10);
                if (end && *end == 0) symbols[k] = x;
            }
            Both r = run_both(
                cr.func, [](InterpOptions& o) { o.print_sink = [](const std::string&) {}; }, symbols);
            ASSERT_TRUE(r.interp.ok) << r.interp.error;
            EXPECT_TRUE(r.jit.ok) << r.jit.error;
            const bool threads = cr.ir.find("get_thread_binding") != std::string::npos || src.find("get_thread_binding") != std::string::npos;
            std::cout << "[ jit      ] " << e.path().filename().string() << ": " << r.jit.engine
                      << (r.jit.jit_note.empty() ? "" : " (" + r.jit.jit_note + ")") << "\n";
            if (threads) {
                EXPECT_EQ(r.jit.engine, "jit") << r.jit.jit_note;
                thread_level_on_jit += r.jit.engine == "jit";
            }
            if (cr.ir.find("T.gemm") == std::string::npos)
                expect_bitwise(r);
            else
                expect_close(r);
        }
    }
    EXPECT_GE(thread_level_on_jit, 2);
}

}  // namespace
