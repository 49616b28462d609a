// Kernel functions of several `T.Kernel` launches: the split into one function per launch, the
// kernel info of each launch (name, grid, threads, shared memory) that the launcher reads, the
// arguments and geometry it builds per launch, and the interpreter running the launches in
// order (a split-K GEMM whose combine launch reads the first launch's partial tiles).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "ir/launches.h"

#include "tileplay/compiler.h"
#include "tileplay/interp.h"
#include "worker/launch_args.h"

using namespace tp;

namespace {

// The kernel source, shared with the GPU test (tests/gpu/data/splitk_two_launches.py).
std::string split_k_source() {
    std::ifstream in(std::string(TILEPLAY_SOURCE_DIR) + "/tests/gpu/data/splitk_two_launches.py");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

CompileResult compile_splitk(const std::string& target, Stage stop) {
    CompileRequest req;
    req.path = "splitk.py";
    req.source = split_k_source();
    req.target = target;
    req.stop_after = stop;
    return compile(req);
}

TEST(Launches, SplitKeepsOneLaunchPerFunction) {
    CompileResult r = compile_splitk("sm_80", Stage::Ir);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    ASSERT_EQ(ir::count_launches(r.func->body), 2u);
    auto parts = ir::split_launches(r.func);
    ASSERT_EQ(parts.size(), 2u);
    for (const auto& p : parts) {
        EXPECT_EQ(ir::count_launches(p->body), 1u);
        EXPECT_EQ(p->params.size(), r.func->params.size());
    }
    EXPECT_NE(parts[0]->body, parts[1]->body);
    EXPECT_EQ(ir::count_launches(ir::join_launches(parts)->body), 2u);
    EXPECT_EQ(ir::split_launches(parts[0]).at(0), parts[0]);  // one launch comes back as itself
}

TEST(Launches, KernelInfoHasEachLaunch) {
    CompileResult r = compile_splitk("sm_80", Stage::Cuda);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    const KernelInfo& k = r.kernel;
    ASSERT_EQ(k.launch_count(), 2u);
    EXPECT_EQ(k.name, "splitk_gemm_kernel_0");
    EXPECT_EQ(k.grid, (std::vector<int64_t>{1, 2, 4}));
    EXPECT_EQ(k.threads, (std::vector<int64_t>{128}));
    const KernelInfo second = k.launch(1);
    EXPECT_EQ(second.name, "splitk_gemm_kernel_1");
    EXPECT_EQ(second.grid, (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(second.logical_grid, (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(second.threads, (std::vector<int64_t>{64}));
    EXPECT_EQ(second.params.size(), k.params.size());  // the parameters are the kernel's
    EXPECT_EQ(second.launch_count(), 1u);
    EXPECT_EQ(worker::kernel_names(k), (std::vector<std::string>{"splitk_gemm_kernel_0", "splitk_gemm_kernel_1"}));
    // Each name is a __global__ function of the module.
    EXPECT_NE(r.cuda.find("void __launch_bounds__(128) splitk_gemm_kernel_0("), std::string::npos) << r.cuda;
    EXPECT_NE(r.cuda.find("void __launch_bounds__(64) splitk_gemm_kernel_1("), std::string::npos) << r.cuda;
    EXPECT_EQ(r.lowered_launches.size(), 2u);

    // set_launch writes one launch's fields and leaves the others.
    KernelInfo copy = k;
    KernelInfo changed = copy.launch(1);
    changed.threads = {32};
    copy.set_launch(1, changed);
    EXPECT_EQ(copy.launch(1).threads, (std::vector<int64_t>{32}));
    EXPECT_EQ(copy.threads, (std::vector<int64_t>{128}));
    EXPECT_EQ(copy.launch_count(), 2u);
}

TEST(Launches, LauncherBuildsEachLaunchsGeometryAndArguments) {
    CompileResult r = compile_splitk("sm_80", Stage::Cuda);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    std::map<std::string, worker::DeviceArg> dev;
    for (const auto& p : r.kernel.params) dev[p.name] = {ir::DataType::parse(p.dtype).value(), p.shape, 0x1000};
    runtime::LaunchConfig first = worker::build_launch_config(r.kernel.launch(0), {}, 0);
    runtime::LaunchConfig second = worker::build_launch_config(r.kernel.launch(1), {}, 0);
    EXPECT_EQ(first.describe(), "grid (1, 2, 4) block (128, 1, 1) smem 0");
    EXPECT_EQ(second.describe(), "grid (1, 2, 1) block (64, 1, 1) smem 0");
    EXPECT_EQ(worker::build_kernel_args(r.kernel.launch(1), dev, {}).size(), r.kernel.params.size());
}

TEST(Launches, OneLaunchKeepsItsName) {
    const char* one = R"(import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def copy(N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(N // 128, threads=128) as bx:
            for i in T.Parallel(128):
                B[bx * 128 + i] = A[bx * 128 + i]
    return main
)";
    CompileRequest req;
    req.path = "one.py";
    req.source = one;
    req.target = "sm_80";
    req.stop_after = Stage::Cuda;
    CompileResult r = compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    EXPECT_EQ(r.kernel.launch_count(), 1u);
    EXPECT_EQ(r.kernel.name, "copy_kernel");
    EXPECT_EQ(worker::kernel_names(r.kernel), (std::vector<std::string>{"copy_kernel"}));
}

TEST(Launches, InterpreterRunsTheLaunchesInOrder) {
    CompileResult r = compile_splitk("sm_80", Stage::Ir);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    std::map<std::string, HostTensor> args;
    std::string why;
    ASSERT_TRUE(allocate_args(*r.func, 7, {}, args, &why)) << why;
    const HostTensor a = args.at("A"), b = args.at("B");
    InterpOptions opts;
    opts.threads = 2;
    InterpReport rep = run_on_cpu(*r.func, args, opts);
    ASSERT_TRUE(rep.ok) << rep.error;
    EXPECT_EQ(rep.total_blocks, 8 + 2);  // both launches' blocks
    EXPECT_EQ(rep.blocks_run, 10);
    const HostTensor& c = args.at("C");
    const int64_t M = 128, N = 64, K = 256;
    double worst = 0;
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            double want = 0;
            for (int64_t k = 0; k < K; ++k) want += a.get(i * K + k) * b.get(k * N + j);
            worst = std::max(worst, std::abs(c.get(i * N + j) - want) / std::max(1.0, std::abs(want)));
        }
    EXPECT_LT(worst, 1e-2);

    // A sample of blocks cannot stand for a later launch: refused, saying why.
    std::map<std::string, HostTensor> again;
    ASSERT_TRUE(allocate_args(*r.func, 7, {}, again, &why)) << why;
    opts.sample_blocks = {0};
    InterpReport sampled = run_on_cpu(*r.func, again, opts);
    EXPECT_FALSE(sampled.ok);
    EXPECT_NE(sampled.error.find("2 `T.Kernel` launches"), std::string::npos) << sampled.error;
}

}  // namespace
