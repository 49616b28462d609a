// sm_75 code on a newer GPU: the tutorial GEMM compiled for sm_75 (register-staged pipeline,
// m16n8k8 mma) as PTX, JIT-compiled by the driver for the device at load, run on random fp16
// inputs and compared with a double-precision GEMM on the host. No sm_75 card is needed, so
// the T4 path's tile staging, barriers and edge zero-fill are checked on whatever GPU there is.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "tensor/tensor.h"
#include "tileplay/compiler.h"
#include "gpu_test_util.h"

using namespace gpu_test;

namespace {

struct Sm75Case {
    int64_t m, n, k;
    int stages;
};

void run_case(const Sm75Case& c) {
    using tp::ir::DataType;
    tp::CompileRequest req;
    req.path = source_dir() + "/samples/gemm.py";
    req.target = "sm_75";
    req.stop_after = tp::Stage::Ptx;
    req.defines = {{"M", std::to_string(c.m)}, {"N", std::to_string(c.n)}, {"K", std::to_string(c.k)},
                   {"num_stages", std::to_string(c.stages)}};
    tp::CompileResult r = tp::compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics(false) << r.nvrtc_log;
    // The staged form is what this test is about: fail loudly if the lowering stops using it.
    ASSERT_NE(r.cuda.find("tp::copy_g2r<"), std::string::npos) << r.cuda;
    ASSERT_NE(r.ptx.find(".target sm_75"), std::string::npos);

    tp::runtime::DeviceContext ctx;
    std::vector<uint8_t> image(r.ptx.begin(), r.ptx.end());
    tp::runtime::LoadedKernel kernel(image, r.kernel.name);  // the driver JITs sm_75 PTX here

    tp::HostTensor a(DataType::float16(), {c.m, c.k}), b(DataType::float16(), {c.k, c.n});
    a.fill_random(11);
    b.fill_random(12);
    tp::HostTensor out(DataType::float16(), {c.m, c.n});
    for (int64_t i = 0; i < out.numel(); ++i) out.set(i, 12345.0);  // the kernel must overwrite it
    auto da = tp::runtime::DeviceTensor::from_host(a);
    auto db = tp::runtime::DeviceTensor::from_host(b);
    auto dc = tp::runtime::DeviceTensor::from_host(out);
    tp::runtime::KernelArgs args;
    args.add_pointer(da.buffer.ptr());
    args.add_pointer(db.buffer.ptr());
    args.add_pointer(dc.buffer.ptr());
    auto cfg = tp::runtime::make_launch_config(r.kernel.grid, r.kernel.threads, r.kernel.dynamic_shared_bytes);
    kernel.launch(cfg, args);
    ctx.synchronize();
    out = dc.to_host();

    tp::HostTensor ref(DataType::float16(), {c.m, c.n});
    for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j) {
            double s = 0;
            for (int64_t p = 0; p < c.k; ++p) s += a.get(i * c.k + p) * b.get(p * c.n + j);
            ref.set(i * c.n + j, s);
        }
    tp::CompareResult cmp = tp::compare_tensors(out, ref);
    EXPECT_TRUE(cmp.pass) << "M=" << c.m << " N=" << c.n << " K=" << c.k << " stages=" << c.stages
                          << ": rel_fro " << cmp.rel_fro << " max_abs " << cmp.max_abs << " at " << cmp.worst_index;
}

// Whole tiles: the IN_BOUNDS loads, two buffers although three stages were asked for.
TEST(Sm75PtxJit, GemmWholeTiles) { run_case({256, 256, 256, 3}); }
// Edge tiles in M, N and K: rows/columns past the tensor are zero-filled in registers.
TEST(Sm75PtxJit, GemmEdgeTiles) { run_case({200, 136, 200, 2}); }
// K = 190: A's rows are not 16-byte aligned, so its tiles load element by element.
TEST(Sm75PtxJit, GemmUnalignedRows) { run_case({136, 200, 190, 2}); }

}  // namespace
