// libtileplay's C ABI tested through tileplay/c_api.h alone (no core header, no C++ type across
// the boundary): compile the samples, read their code and parameters, run them on the CPU with
// the test's own buffers and check the numbers, and every error path returns an error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "tileplay/c_api.h"

namespace {

// The checkout's samples; TILEPLAY_SOURCE_DIR overrides the build's path where the binary runs
// from a copied build folder (the GPU machine), as the GPU tests do.
const std::string kSourceDir = std::getenv("TILEPLAY_SOURCE_DIR") ? std::getenv("TILEPLAY_SOURCE_DIR") : TILEPLAY_SOURCE_DIR;
const std::string kSamples = kSourceDir + "/samples/";

struct Free {
    void operator()(tp_kernel* k) const { tp_kernel_free(k); }
};
using Kernel = std::unique_ptr<tp_kernel, Free>;

Kernel compile(const std::string& path, std::vector<const char*> defines, const char* stage = "ir", const char* target = "sm_80") {
    return Kernel(tp_compile(path.c_str(), nullptr, defines.data(), defines.size(), target, nullptr, 0, stage));
}

// IEEE half from a float that fp16 holds exactly (the test's values are small multiples of 1/8).
uint16_t to_half(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    if ((x & 0x7fffffffu) == 0) return static_cast<uint16_t>(sign);
    int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
    return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exp) << 10) | ((x >> 13) & 0x3ffu));
}

float from_half(uint16_t h) {
    int exp = (h >> 10) & 0x1f;
    float mant = static_cast<float>(h & 0x3ff);
    float v = exp == 0 ? std::ldexp(mant, -24) : std::ldexp(1.0f + mant / 1024.0f, exp - 15);
    return (h & 0x8000) ? -v : v;
}

// A machine without NVRTC compiles no PTX; the stages before it are tested all the same.
#define SKIP_WITHOUT_NVRTC(k) \
    if (!tp_kernel_ok(k) && std::string(tp_kernel_error(k)).find("NVRTC is not available") != std::string::npos) GTEST_SKIP() << tp_kernel_error(k)

tp_tensor tensor(void* data, const char* dtype, const std::vector<int64_t>& shape) {
    return tp_tensor{data, dtype, static_cast<int32_t>(shape.size()), shape.data()};
}

std::string write_temp(const std::string& name, const std::string& text) {
    std::string path = ::testing::TempDir() + name;
    std::ofstream(path) << text;
    return path;
}

TEST(CApi, VersionMatchesHeader) { EXPECT_EQ(tp_api_version(), TP_C_API_VERSION); }

TEST(CApi, VectorAddCompilesToPtxWithItsParameters) {
    Kernel k = compile(kSamples + "vector_add.py", {"N=4096"}, "ptx");
    SKIP_WITHOUT_NVRTC(k.get());
    ASSERT_TRUE(tp_kernel_ok(k.get())) << tp_kernel_diagnostics(k.get());
    EXPECT_STREQ(tp_kernel_error(k.get()), "");
    EXPECT_NE(std::string(tp_kernel_cuda(k.get())).find("__global__"), std::string::npos);
    std::string ptx = tp_kernel_ptx(k.get());
    EXPECT_NE(ptx.find(".entry " + std::string(tp_kernel_name(k.get()))), std::string::npos) << ptx.substr(0, 400);
    EXPECT_NE(std::string(tp_kernel_bound_params(k.get())).find("N=4096\n"), std::string::npos);
    ASSERT_EQ(tp_kernel_num_params(k.get()), 3);
    const char* names[] = {"A", "B", "C"};
    for (int i = 0; i < 3; ++i) {
        EXPECT_STREQ(tp_kernel_param_name(k.get(), i), names[i]);
        EXPECT_STREQ(tp_kernel_param_dtype(k.get(), i), "float32");
        ASSERT_EQ(tp_kernel_param_ndim(k.get(), i), 1);
        EXPECT_EQ(tp_kernel_param_dim(k.get(), i, 0), 4096);
        EXPECT_EQ(tp_kernel_param_is_output(k.get(), i), i == 2);  // out_idx=[-1]
        EXPECT_EQ(tp_kernel_param_is_scalar(k.get(), i), 0);
    }
    // Out of range reads are answered, not crashes.
    EXPECT_EQ(tp_kernel_param_name(k.get(), 3), nullptr);
    EXPECT_EQ(tp_kernel_param_dim(k.get(), 0, 1), -1);
    EXPECT_EQ(tp_kernel_param_dim_text(k.get(), -1, 0), nullptr);
}

TEST(CApi, AnEarlierStageLeavesTheLaterOnesEmpty) {
    Kernel k = compile(kSamples + "vector_add.py", {"N=4096"}, "cuda");
    ASSERT_TRUE(tp_kernel_ok(k.get())) << tp_kernel_diagnostics(k.get());
    EXPECT_NE(std::string(tp_kernel_cuda(k.get())).find("__global__"), std::string::npos);
    EXPECT_STREQ(tp_kernel_ptx(k.get()), "");
    size_t size = 1;
    EXPECT_EQ(tp_kernel_cubin(k.get(), &size), nullptr);
    EXPECT_EQ(size, 0u);
}

TEST(CApi, VectorAddRunsOnTheCpuWithHostBuffers) {
    const int64_t n = 1000;  // not a multiple of block_N: the guard matters
    Kernel k = compile(kSamples + "vector_add.py", {"N=1000"});
    ASSERT_TRUE(tp_kernel_ok(k.get())) << tp_kernel_diagnostics(k.get());
    std::vector<float> a(n), b(n), c(n, -1.0f);
    for (int64_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i) * 0.5f;
        b[i] = 3.0f - static_cast<float>(i % 7);
    }
    std::vector<int64_t> shape = {n};
    tp_tensor args[] = {tensor(a.data(), "float32", shape), tensor(b.data(), "float32", shape), tensor(c.data(), "float32", shape)};
    ASSERT_EQ(tp_kernel_run_cpu(k.get(), args, 3, nullptr, 0, 2), 0) << tp_kernel_error(k.get());
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;
}

TEST(CApi, GemmPtxRunsOnTensorCores) {
    Kernel k = compile(kSamples + "gemm.py", {"M=128", "N=128", "K=64"}, "ptx");
    SKIP_WITHOUT_NVRTC(k.get());
    ASSERT_TRUE(tp_kernel_ok(k.get())) << tp_kernel_diagnostics(k.get());
    EXPECT_NE(std::string(tp_kernel_ptx(k.get())).find("mma.sync"), std::string::npos);  // sm_80
}

TEST(CApi, GemmRunsOnTheCpuAndMatchesAHostProduct) {
    const int64_t m = 128, n = 128, kd = 64;
    Kernel k = compile(kSamples + "gemm.py", {"M=128", "N=128", "K=64", "block_K=32"});
    ASSERT_TRUE(tp_kernel_ok(k.get())) << tp_kernel_diagnostics(k.get());
    ASSERT_EQ(tp_kernel_num_params(k.get()), 3);
    EXPECT_STREQ(tp_kernel_param_dtype(k.get(), 0), "float16");
    EXPECT_EQ(tp_kernel_param_dim(k.get(), 1, 0), kd);
    std::vector<uint16_t> a(m * kd), b(kd * n), c(m * n, 0);
    std::vector<float> af(a.size()), bf(b.size());
    for (size_t i = 0; i < a.size(); ++i) a[i] = to_half(af[i] = static_cast<float>(static_cast<int>(i * 7 % 9) - 4) / 8.0f);
    for (size_t i = 0; i < b.size(); ++i) b[i] = to_half(bf[i] = static_cast<float>(static_cast<int>(i * 5 % 7) - 3) / 4.0f);
    std::vector<int64_t> sa = {m, kd}, sb = {kd, n}, sc = {m, n};
    tp_tensor args[] = {tensor(a.data(), "float16", sa), tensor(b.data(), "float16", sb), tensor(c.data(), "float16", sc)};
    ASSERT_EQ(tp_kernel_run_cpu(k.get(), args, 3, nullptr, 0, 0), 0) << tp_kernel_error(k.get());
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            float want = 0;
            for (int64_t x = 0; x < kd; ++x) want += af[i * kd + x] * bf[x * n + j];
            // Sums of products of eighths and quarters below 64: exact in fp32 and in fp16.
            ASSERT_EQ(from_half(c[i * n + j]), want) << "C[" << i << ", " << j << "]";
        }
}

TEST(CApi, WorkIsCountedOnTheTileIr) {
    // samples/gemm.py at its own tiles (128 x 128 x 32): 2 M N K flops; each block loads its
    // A and B tiles every k step and stores its C tile once, all fp16.
    Kernel k = compile(kSamples + "gemm.py", {"M=256", "N=256", "K=128"});
    ASSERT_TRUE(tp_kernel_ok(k.get())) << tp_kernel_diagnostics(k.get());
    double flops = 0, bytes = 0;
    EXPECT_EQ(tp_kernel_work(k.get(), &flops, &bytes), 1) << tp_kernel_work_assumptions(k.get());
    EXPECT_EQ(flops, 2.0 * 256 * 256 * 128);
    EXPECT_EQ(bytes, 4.0 * (128 / 32) * (128 * 32 + 32 * 128) * 2 + 256.0 * 256 * 2);
    EXPECT_EQ(tp_kernel_work(nullptr, &flops, &bytes), -1);
}

TEST(CApi, TargetFiguresComeFromTheTargetTable) {
    double bw = 0, tf = 0;
    int sms = 0;
    ASSERT_EQ(tp_target_figures("sm_90a", &bw, &tf, &sms), 0);
    EXPECT_GT(bw, 1000);
    EXPECT_GT(tf, 100);
    EXPECT_GT(sms, 100);
    EXPECT_NE(tp_target_figures("sm_12", &bw, &tf, &sms), 0);
    EXPECT_NE(tp_target_figures(nullptr, &bw, &tf, &sms), 0);
}

TEST(CApi, MissingFileIsAnErrorThatNamesIt) {
    Kernel k = compile("/nonexistent/kernel.py", {});
    ASSERT_NE(k, nullptr);
    EXPECT_FALSE(tp_kernel_ok(k.get()));
    std::string err = tp_kernel_error(k.get());
    EXPECT_NE(err.find("/nonexistent/kernel.py: cannot read the file"), std::string::npos) << err;
    Kernel none(tp_compile(nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr));
    EXPECT_FALSE(tp_kernel_ok(none.get()));
    EXPECT_STRNE(tp_kernel_error(none.get()), "");
}

TEST(CApi, SyntaxErrorCarriesItsLocation) {
    std::string path = write_temp("capi_syntax.py", "import tilelang.language as T\n\ndef f(N):\n    x = (1 +\n");
    Kernel k = compile(path, {});
    EXPECT_FALSE(tp_kernel_ok(k.get()));
    std::string err = tp_kernel_error(k.get());
    EXPECT_EQ(err.rfind(path + ":", 0), 0u) << err;
    EXPECT_NE(err.find(":4:"), std::string::npos) << err;  // the line the open bracket is on
    EXPECT_NE(std::string(tp_kernel_diagnostics(k.get())).find("error:"), std::string::npos);
    float x = 0;
    std::vector<int64_t> scalar_shape;
    tp_tensor t = tensor(&x, "float32", scalar_shape);
    EXPECT_NE(tp_kernel_run_cpu(k.get(), &t, 1, nullptr, 0, 1), 0);  // no kernel to run
    EXPECT_STRNE(tp_kernel_error(k.get()), "");
}

TEST(CApi, BadArgumentsAreRefusedBeforeAnythingRuns) {
    Kernel k = compile(kSamples + "vector_add.py", {"N=256"});
    ASSERT_TRUE(tp_kernel_ok(k.get())) << tp_kernel_diagnostics(k.get());
    std::vector<float> a(256), b(256), c(256), small(128);
    std::vector<int64_t> shape = {256}, short_shape = {128};
    tp_tensor args[] = {tensor(a.data(), "float32", shape), tensor(b.data(), "float32", shape), tensor(c.data(), "float32", shape)};
    EXPECT_NE(tp_kernel_run_cpu(k.get(), args, 2, nullptr, 0, 1), 0);
    EXPECT_NE(std::string(tp_kernel_error(k.get())).find("takes 3 tensor(s) and 0 scalar(s), got 2 and 0"), std::string::npos)
        << tp_kernel_error(k.get());
    tp_tensor wrong_size[] = {args[0], args[1], tensor(small.data(), "float32", short_shape)};
    EXPECT_NE(tp_kernel_run_cpu(k.get(), wrong_size, 3, nullptr, 0, 1), 0);
    EXPECT_NE(std::string(tp_kernel_error(k.get())).find("dimension 0 must be 256"), std::string::npos) << tp_kernel_error(k.get());
    tp_tensor wrong_dtype[] = {args[0], tensor(b.data(), "float16", shape), args[2]};
    EXPECT_NE(tp_kernel_run_cpu(k.get(), wrong_dtype, 3, nullptr, 0, 1), 0);
    EXPECT_NE(std::string(tp_kernel_error(k.get())).find("expects float32"), std::string::npos) << tp_kernel_error(k.get());
    tp_tensor bad_dtype[] = {args[0], tensor(b.data(), "float17", shape), args[2]};
    EXPECT_NE(tp_kernel_run_cpu(k.get(), bad_dtype, 3, nullptr, 0, 1), 0);
    EXPECT_NE(tp_kernel_run_cpu(k.get(), nullptr, 3, nullptr, 0, 1), 0);
    EXPECT_NE(tp_kernel_run_cpu(nullptr, args, 3, nullptr, 0, 1), 0);
    EXPECT_STREQ(tp_kernel_error(nullptr), "no kernel handle");
    // The failed runs leave the compile's verdict alone, and a good run still works.
    EXPECT_TRUE(tp_kernel_ok(k.get()));
    EXPECT_EQ(tp_kernel_run_cpu(k.get(), args, 3, nullptr, 0, 1), 0) << tp_kernel_error(k.get());
    EXPECT_STREQ(tp_kernel_error(k.get()), "");
}

// A kernel whose length is a run-time dimension: the buffers' shapes bind it.
const char* kDynamicScale = R"(import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale(block=64):
    n = T.dynamic("n")

    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, block), threads=64) as bx:
            for i in T.Parallel(block):
                if bx * block + i < n:
                    B[bx * block + i] = A[bx * block + i] * 2.0

    return main
)";

TEST(CApi, SymbolicDimensionsBindFromTheBuffers) {
    Kernel k = compile(write_temp("capi_dynamic.py", kDynamicScale), {});
    ASSERT_TRUE(tp_kernel_ok(k.get())) << tp_kernel_diagnostics(k.get());
    EXPECT_EQ(tp_kernel_param_dim(k.get(), 0, 0), -1);
    EXPECT_STREQ(tp_kernel_param_dim_text(k.get(), 0, 0), "n");
    std::vector<float> a(100), b(100, 0.0f);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i) - 7.5f;
    std::vector<int64_t> s100 = {100}, s99 = {99}, huge = {int64_t{1} << 40};
    tp_tensor args[] = {tensor(a.data(), "float32", s100), tensor(b.data(), "float32", s100)};
    ASSERT_EQ(tp_kernel_run_cpu(k.get(), args, 2, nullptr, 0, 1), 0) << tp_kernel_error(k.get());
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(b[i], 2 * a[i]) << "at " << i;
    tp_tensor disagree[] = {args[0], tensor(b.data(), "float32", s99)};
    EXPECT_NE(tp_kernel_run_cpu(k.get(), disagree, 2, nullptr, 0, 1), 0);
    EXPECT_NE(std::string(tp_kernel_error(k.get())).find("gives `n` = 99 but an earlier argument gave 100"), std::string::npos)
        << tp_kernel_error(k.get());
    // Too large for this machine: refused by its size before anything is allocated or read.
    tp_tensor too_big[] = {tensor(a.data(), "float32", huge), tensor(b.data(), "float32", huge)};
    EXPECT_NE(tp_kernel_run_cpu(k.get(), too_big, 2, nullptr, 0, 1), 0);
    EXPECT_NE(std::string(tp_kernel_error(k.get())).find("memory budget"), std::string::npos) << tp_kernel_error(k.get());
}

// Two `T.Kernel` launches: the first writes partial row sums, the second combines them (the lit
// test tests/codegen/two_launches.py, which checks its CUDA).
const std::string kTwoLaunches = kSourceDir + "/tests/codegen/two_launches.py";

TEST(CApi, EveryLaunchIsNamedAndRunsInOrder) {
    Kernel k = compile(kTwoLaunches, {}, "cuda");
    ASSERT_TRUE(tp_kernel_ok(k.get())) << tp_kernel_diagnostics(k.get());
    ASSERT_EQ(tp_kernel_num_launches(k.get()), 2);
    EXPECT_STREQ(tp_kernel_launch_name(k.get(), 0), "split_then_combine_kernel_0");
    EXPECT_STREQ(tp_kernel_launch_name(k.get(), 1), "split_then_combine_kernel_1");
    EXPECT_STREQ(tp_kernel_launch_name(k.get(), 0), tp_kernel_name(k.get()));
    EXPECT_EQ(tp_kernel_launch_name(k.get(), 2), nullptr);
    EXPECT_EQ(tp_kernel_launch_name(k.get(), -1), nullptr);
    std::vector<float> x(128 * 256), p(4 * 128, 0.0f), o(128, 0.0f);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
    std::vector<int64_t> sx = {128, 256}, sp = {4, 128}, so = {128};
    tp_tensor args[] = {tensor(x.data(), "float32", sx), tensor(p.data(), "float32", sp), tensor(o.data(), "float32", so)};
    ASSERT_EQ(tp_kernel_run_cpu(k.get(), args, 3, nullptr, 0, 1), 0) << tp_kernel_error(k.get());
    for (int64_t r = 0; r < 128; ++r) {
        float want = 0;
        for (int64_t c = 0; c < 256; ++c) want += x[static_cast<size_t>(r * 256 + c)];
        ASSERT_EQ(o[static_cast<size_t>(r)], want) << "row " << r;  // small integers: exact in float32
    }
}

TEST(CApi, BadDefinesAndStagesAreErrors) {
    Kernel k = compile(kSamples + "vector_add.py", {"N"});
    EXPECT_FALSE(tp_kernel_ok(k.get()));
    EXPECT_NE(std::string(tp_kernel_error(k.get())).find("define `N` is not NAME=VALUE"), std::string::npos);
    Kernel s = compile(kSamples + "vector_add.py", {"N=64"}, "sass");
    EXPECT_FALSE(tp_kernel_ok(s.get()));
    EXPECT_NE(std::string(tp_kernel_error(s.get())).find("unknown stage `sass`"), std::string::npos);
    Kernel t = compile(kSamples + "vector_add.py", {"N=64"}, "ir", "sm_12");
    EXPECT_FALSE(tp_kernel_ok(t.get()));
    EXPECT_STRNE(tp_kernel_error(t.get()), "");
}

TEST(CApi, LaunchWithoutACubinOrAGpuSaysWhy) {
    Kernel k = compile(kSamples + "vector_add.py", {"N=256"});  // stage ir: no cubin
    ASSERT_TRUE(tp_kernel_ok(k.get()));
    std::vector<int64_t> shape = {256};
    float* fake = reinterpret_cast<float*>(uintptr_t{0x1000});
    tp_tensor args[] = {tensor(fake, "float32", shape), tensor(fake, "float32", shape), tensor(fake, "float32", shape)};
    EXPECT_NE(tp_kernel_launch(k.get(), 0, nullptr, args, 3, nullptr, 0), 0);
    EXPECT_NE(std::string(tp_kernel_error(k.get())).find("no cubin to launch"), std::string::npos) << tp_kernel_error(k.get());
    if (tp_cuda_device_count() > 0) return;  // the GPU launch itself is tested on the GPU machine
    Kernel c = compile(kSamples + "vector_add.py", {"N=256"}, "cubin");
    if (!tp_kernel_ok(c.get())) GTEST_SKIP() << "no NVRTC here: " << tp_kernel_error(c.get());
    EXPECT_NE(tp_kernel_launch(c.get(), 0, nullptr, args, 3, nullptr, 0), 0);
    std::string err = tp_kernel_error(c.get());
    EXPECT_TRUE(err.find("cannot launch on a GPU") != std::string::npos || err.find("no CUDA device") != std::string::npos) << err;
}

}  // namespace
