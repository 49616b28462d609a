// Kernel functions of several `T.Kernel` launches on the GPU: a split-K GEMM whose first launch
// writes fp32 partial tiles (cp.async or TMA + wgmma, by target) and whose second launch sums
// them. Through the worker, checked against the interpreter (which runs every block of each
// launch in order); and in process, the launches queued on one stream by hand, checked against
// a GEMM on the host, so a launch that ran before the one it reads from shows.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "runtime/device.h"
#include "tensor/tensor.h"
#include "tileplay/compiler.h"
#include "tileplay/worker_client.h"
#include "worker/launch_args.h"

namespace {

// The kernel source, shared with the unit test.
std::string split_k_source() {
    std::ifstream in(gpu_test::source_dir() + "/tests/gpu/data/splitk_two_launches.py");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

TEST(GpuLaunches, SplitKGemmMatchesTheInterpreter) {
    tp::WorkerClient c;
    tp::LoadSpec s;
    s.path = "splitk.py";
    s.source = split_k_source();
    s.defines = {{"M", "256"}, {"N", "384"}, {"K", "512"}};
    auto l = c.load(s);
    ASSERT_TRUE(l.ok) << l.error << "\n" << l.body.dump();
    ASSERT_EQ(l.body["kernel"]["launches"].size(), 2u) << l.body.dump();
    tp::RunSpec rs;
    rs.seed = 5;
    rs.check_blocks = 8;  // asked for a sample: a kernel of several launches is checked whole
    auto r = c.run(rs);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.body.contains("check")) << r.body.dump();
    const auto& chk = r.body["check"];
    EXPECT_TRUE(chk.value("ok", false)) << chk.dump();
    EXPECT_FALSE(chk.value("sampled", true)) << chk.dump();
    EXPECT_TRUE(chk.contains("every_block_because")) << chk.dump();
}

TEST(GpuLaunches, InProcessLaunchesRunInOrderOnOneStream) {
    using tp::ir::DataType;
    const int64_t M = 256, N = 256, K = 512, splits = 4;
    tp::runtime::DeviceContext ctx;
    tp::CompileRequest req;
    req.path = "splitk.py";
    req.source = split_k_source();
    req.target = ctx.info().best_target();
    req.defines = {{"M", std::to_string(M)}, {"N", std::to_string(N)}, {"K", std::to_string(K)}};
    tp::CompileResult r = tp::compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics(false) << r.nvrtc_log;
    ASSERT_EQ(r.kernel.launch_count(), 2u);

    tp::HostTensor a(DataType::float16(), {M, K}), b(DataType::float16(), {K, N});
    a.fill_random(21);
    b.fill_random(22);
    tp::HostTensor p(DataType::float32(), {splits, M, N}), out(DataType::float16(), {M, N});
    for (int64_t i = 0; i < out.numel(); ++i) out.set(i, 12345.0);  // the combine must overwrite it
    auto da = tp::runtime::DeviceTensor::from_host(a);
    auto db = tp::runtime::DeviceTensor::from_host(b);
    auto dp = tp::runtime::DeviceTensor::from_host(p);
    auto dc = tp::runtime::DeviceTensor::from_host(out);
    std::map<std::string, tp::worker::DeviceArg> dev = {{"A", {da.dtype, da.shape, da.buffer.ptr()}},
                                                        {"B", {db.dtype, db.shape, db.buffer.ptr()}},
                                                        {"P", {dp.dtype, dp.shape, dp.buffer.ptr()}},
                                                        {"C", {dc.dtype, dc.shape, dc.buffer.ptr()}}};
    tp::runtime::LoadedKernel kernel(r.cubin, tp::worker::kernel_names(r.kernel));
    ASSERT_EQ(kernel.count(), 2u);
    for (size_t i = 0; i < r.kernel.launch_count(); ++i) {
        const tp::KernelInfo li = r.kernel.launch(i);
        tp::runtime::KernelArgs args = tp::worker::build_kernel_args(li, dev, {});
        kernel.launch(i, tp::worker::build_launch_config(li, {}, ctx.info().sm_count), args);
    }
    ctx.synchronize();
    out = dc.to_host();
    double worst = 0;
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            double want = 0;
            for (int64_t k = 0; k < K; ++k) want += a.get(i * K + k) * b.get(k * N + j);
            worst = std::max(worst, std::abs(out.get(i * N + j) - want) / std::max(1.0, std::abs(want)));
        }
    EXPECT_LT(worst, 2e-2);
}

// A varlen kernel's grid scalar (`max_len`) that the request leaves out is drawn as the CPU run
// draws it (the longest segment of the offsets table) and launched with that value, so the
// GPU run and its interpreter check see the same launch.
TEST(GpuLaunches, AGridScalarLeftOutIsDrawnAsOnTheCpu) {
    tp::WorkerClient c;
    tp::LoadSpec s;
    s.path = "varlen_scalar.py";
    s.source = R"(import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[2])
def seg(batch=4, total=256, block=32):
    @T.prim_func
    def main(X: T.Tensor((total,), "float32"), cu: T.Tensor((batch + 1,), "int32"), Y: T.Tensor((total,), "float32"), max_len: T.int32):
        with T.Kernel(T.ceildiv(max_len, block), batch, threads=block) as (bx, by):
            start = cu[by]
            end = cu[by + 1]
            tx = T.get_thread_binding()
            if start + bx * block + tx < end:
                Y[start + bx * block + tx] = X[start + bx * block + tx] * 2.0

    return main
)";
    auto l = c.load(s);
    ASSERT_TRUE(l.ok) << l.error << "\n" << l.body.dump();
    tp::RunSpec rs;
    rs.seed = 3;
    rs.check_blocks = 0;
    auto r = c.run(rs);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.body.contains("check")) << r.body.dump();
    EXPECT_TRUE(r.body["check"].value("ok", false)) << r.body["check"].dump();
}

// A grid of 70001 rows of blocks passes CUDA's 65535 in y: it is launched as one x dimension
// and each block takes its (bx, by) apart. Every block writes its own indices; all are read back.
TEST(GpuLaunches, GridPastTheYLimitRunsEveryBlockOnce) {
    using tp::ir::DataType;
    const int64_t rows = 70001, cols = 3;
    tp::runtime::DeviceContext ctx;
    tp::CompileRequest req;
    req.path = "tall_grid.py";
    req.source = R"(import tilelang
import tilelang.language as T


@tilelang.jit
def tall(R, C):
    @T.prim_func
    def main(B: T.Tensor((R, C), "int32")):
        with T.Kernel(C, R, threads=32) as (bx, by):
            if T.get_thread_binding() == 0:
                B[by, bx] = B[by, bx] + by * 8 + bx + 1
    return main
)";
    req.target = ctx.info().best_target();
    req.defines = {{"R", std::to_string(rows)}, {"C", std::to_string(cols)}};
    tp::CompileResult r = tp::compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics(false) << r.nvrtc_log;
    ASSERT_EQ(r.kernel.grid, (std::vector<int64_t>{rows * cols}));
    ASSERT_EQ(r.kernel.logical_grid, (std::vector<int64_t>{cols, rows}));
    tp::HostTensor b(DataType::int32(), {rows, cols});
    auto db = tp::runtime::DeviceTensor::from_host(b);  // zeros: a block run twice shows as a sum
    std::map<std::string, tp::worker::DeviceArg> dev = {{"B", {db.dtype, db.shape, db.buffer.ptr()}}};
    tp::runtime::LoadedKernel kernel(r.cubin, tp::worker::kernel_names(r.kernel));
    tp::runtime::KernelArgs args = tp::worker::build_kernel_args(r.kernel, dev, {});
    kernel.launch(0, tp::worker::build_launch_config(r.kernel, {}, ctx.info().sm_count), args);
    ctx.synchronize();
    b = db.to_host();
    int64_t wrong = 0;
    for (int64_t y = 0; y < rows; ++y)
        for (int64_t x = 0; x < cols; ++x) wrong += b.get(y * cols + x) != static_cast<double>(y * 8 + x + 1);
    EXPECT_EQ(wrong, 0);
}

}  // namespace
