// The user's own CUDA on the GPU: a kernel that T.import_source's a device function and
// T.call_extern's it with a pointer and with a value (tests/codegen/extern_call.py). The CPU
// interpreter cannot run such a kernel, so the check is against the arithmetic on the host.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "gpu_test_util.h"
#include "runtime/device.h"
#include "tensor/tensor.h"
#include "tileplay/compiler.h"
#include "worker/launch_args.h"

namespace {

TEST(GpuExtern, ImportedDeviceFunctionsRunWhereTheyAreCalled) {
    using tp::ir::DataType;
    const int64_t N = 64;
    tp::runtime::DeviceContext ctx;
    std::ifstream in(gpu_test::source_dir() + "/tests/codegen/extern_call.py");
    std::stringstream ss;
    ss << in.rdbuf();
    tp::CompileRequest req;
    req.path = "extern_call.py";
    req.source = ss.str();
    req.kernel = "bump";
    req.target = ctx.info().best_target();
    req.defines = {{"N", std::to_string(N)}};
    tp::CompileResult r = tp::compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics(false) << r.nvrtc_log;
    tp::HostTensor x(DataType::float32(), {N}), out(DataType::float32(), {N});
    x.fill_random(3);
    auto dx = tp::runtime::DeviceTensor::from_host(x);
    auto dout = tp::runtime::DeviceTensor::from_host(out);
    std::map<std::string, tp::worker::DeviceArg> dev = {{"X", {dx.dtype, dx.shape, dx.buffer.ptr()}},
                                                        {"Out", {dout.dtype, dout.shape, dout.buffer.ptr()}}};
    tp::runtime::LoadedKernel kernel(r.cubin, tp::worker::kernel_names(r.kernel));
    tp::runtime::KernelArgs args = tp::worker::build_kernel_args(r.kernel, dev, {});
    kernel.launch(0, tp::worker::build_launch_config(r.kernel, {}, ctx.info().sm_count), args);
    ctx.synchronize();
    out = dout.to_host();
    for (int64_t t = 0; t < N / 2; ++t) {
        // add_one over X_local[0..3] (X_local[2..3] never loaded: only [0] and [1] are read back),
        // then twice() of the first by value; the second is the bumped load.
        EXPECT_FLOAT_EQ(out.get(2 * t), 2.0f * static_cast<float>(x.get(2 * t) + 1.0)) << t;
        EXPECT_FLOAT_EQ(out.get(2 * t + 1), static_cast<float>(x.get(2 * t + 1) + 1.0)) << t;
    }
}

}  // namespace
