// The sm_90a path without a GPU: which kernels take the warp-specialized TMA + wgmma lowering
// (and which keep mma.sync), the tensor maps the compile result describes, the driver request
// those become, and kernel arguments passed by value as raw bytes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "runtime/device.h"
#include "runtime/tensor_map.h"
#include "tileplay/compiler.h"

namespace {

using namespace tp;

CompileResult compile_sample(const std::string& name, const std::string& arch, std::vector<std::pair<std::string, std::string>> defines) {
    CompileRequest req;
    req.path = std::string(TILEPLAY_SOURCE_DIR) + "/samples/" + name;
    std::ifstream in(req.path);
    std::stringstream text;
    text << in.rdbuf();
    req.source = text.str();
    req.target = arch;
    req.defines = std::move(defines);
    req.stop_after = Stage::Cuda;
    return compile(req);
}

const std::vector<std::pair<std::string, std::string>> kHopperTiles = {
    {"M", "1024"}, {"N", "1024"}, {"K", "1024"}, {"block_M", "128"}, {"block_N", "256"}, {"block_K", "64"}, {"num_stages", "4"}};

TEST(Hopper, GemmOnSm90aIsWarpSpecialized) {
    CompileResult r = compile_sample("gemm.py", "sm_90a", kHopperTiles);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    ASSERT_EQ(r.kernel.tensor_maps.size(), 3u);
    EXPECT_EQ(r.kernel.tensor_maps[0].param, "A");
    EXPECT_EQ(r.kernel.tensor_maps[0].box, (std::vector<int64_t>{64, 128}));
    EXPECT_EQ(r.kernel.tensor_maps[1].param, "B");
    EXPECT_EQ(r.kernel.tensor_maps[1].box, (std::vector<int64_t>{64, 64}));
    EXPECT_EQ(r.kernel.tensor_maps[1].swizzle_bytes, 128);
    // The final T.copy(C_local, C[...]) is a staged TMA store: C's map, one box per warpgroup panel.
    EXPECT_EQ(r.kernel.tensor_maps[2].param, "C");
    EXPECT_EQ(r.kernel.tensor_maps[2].box, (std::vector<int64_t>{64, 64}));
    EXPECT_EQ(r.kernel.threads, (std::vector<int64_t>{384}));  // 2 consumer warpgroups + the producer
    EXPECT_EQ(r.kernel.grid, (std::vector<int64_t>{4, 8}));    // fewer tiles than SMs: one block each
    // The subtiled store stages two 64 x 64 panels per warpgroup (32 KiB), so the ring keeps
    // its 4 slots of 48 KiB in 227 KiB (a whole 64 KiB staging tile would leave 3).
    EXPECT_NE(r.cuda.find("tp::WsGemm<half_t, 128, 256, 64, 4, 2, false, false>::consume("), std::string::npos);
    EXPECT_NE(r.cuda.find("tp_ws_cstage = reinterpret_cast<half_t*>(tp_smem + 196608)"), std::string::npos);
    EXPECT_NE(r.cuda.find("::store_tma(&C_local[0], &tp_ws_cstage[0], &tp_tma_2,"), std::string::npos);
    // C is written through its tensor map only, and is still a (non-const) kernel output.
    EXPECT_NE(r.cuda.find("half_t* __restrict__ C,"), std::string::npos);
    EXPECT_EQ(r.cuda.find("const half_t* __restrict__ C,"), std::string::npos);
    EXPECT_EQ(r.cuda.find("tp::gemm_ss<"), std::string::npos);
}

TEST(Hopper, ArchSpecificCodeRunsOnItsBaseDevice) {
    // inspect reads cuFuncGetAttribute and tune times configs only for code the GPU can load.
    EXPECT_TRUE(target_runs_on("sm_90a", "sm_90"));
    EXPECT_TRUE(target_runs_on("sm_90", "sm_90"));
    EXPECT_FALSE(target_runs_on("sm_90a", "sm_80"));
    EXPECT_FALSE(target_runs_on("sm_80", "sm_90"));
    EXPECT_FALSE(target_runs_on("sm_90", ""));
}

TEST(Hopper, LargeGemmRunsPersistent) {
    auto d = kHopperTiles;
    d[0].second = d[1].second = "4096";
    CompileResult r = compile_sample("gemm.py", "sm_90a", d);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    // One block per tile in the grid; the launcher caps it at the device's SM count and the
    // kernel walks its tiles by gridDim.x, so no SM count of the target table is baked in.
    EXPECT_TRUE(r.kernel.persistent);
    EXPECT_EQ(r.kernel.grid, (std::vector<int64_t>{512}));
    EXPECT_NE(r.cuda.find("gridDim.x"), std::string::npos);
    EXPECT_EQ(r.kernel.logical_grid, (std::vector<int64_t>{16, 32}));  // what the interpreter checks
}

TEST(Hopper, OtherTargetsAndShapesKeepMmaSync) {
    // sm_90 has TMA but no wgmma; block_K = 48 is neither a 128-byte swizzle row nor half of
    // one (32 is taken in pairs); the tutorial's default 128 threads with block_M = 256 needs
    // more than two consumer warpgroups.
    for (auto [arch, key, value] : {std::tuple{"sm_90", "block_K", "64"}, std::tuple{"sm_90a", "block_K", "48"},
                                    std::tuple{"sm_90a", "block_M", "256"}, std::tuple{"sm_80", "block_K", "64"}}) {
        auto d = kHopperTiles;
        for (auto& kv : d) {
            if (kv.first == key) kv.second = value;
            if (kv.first == "num_stages") kv.second = "2";  // fits every case's shared memory
        }
        CompileResult r = compile_sample("gemm.py", arch, d);
        ASSERT_TRUE(r.ok) << arch << " " << key << "=" << value << "\n" << r.render_diagnostics();
        EXPECT_TRUE(r.kernel.tensor_maps.empty()) << arch << " " << key << "=" << value;
        EXPECT_NE(r.cuda.find("tp::gemm_ss<"), std::string::npos) << arch << " " << key << "=" << value;
        EXPECT_EQ(r.cuda.find("wgmma"), std::string::npos);
    }
}

TEST(Hopper, ElementwiseEpilogueIsWarpSpecialized) {
    CompileResult r = compile_sample("gemm_bias_gelu.py", "sm_90a", kHopperTiles);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    EXPECT_EQ(r.kernel.tensor_maps.size(), 3u);  // bias + GELU on the accumulator is per-thread
    // The GELU loop runs on the registers (as tp::gelu_erf, math-idioms); the staged store
    // follows it.
    EXPECT_EQ(r.cuda.find("tp::erf("), std::string::npos);
    EXPECT_LT(r.cuda.find("tp::gelu_erf("), r.cuda.find("::store_tma("));
}

const char* kSharedEpilogue = R"(import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def staged(M=1024, N=1024, K=1024, block_M=128, block_N=256, block_K=64):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=256) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_shared = T.alloc_shared((block_M, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])
    return main
)";

TEST(Hopper, EpilogueThroughSharedMemoryTakesTheGeneralWgmmaPath) {
    // Staging C through shared memory needs block-wide barriers the producer never reaches, so
    // the kernel is not warp-specialized; its T.gemm still runs on wgmma (ops::plan_wgmma:
    // 8 warps of 16 rows, one m64n256 per warpgroup), from tiles in cp.async stages.
    CompileRequest req;
    req.path = "staged.py";
    req.source = kSharedEpilogue;
    req.target = "sm_90a";
    req.stop_after = Stage::Cuda;
    CompileResult r = compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    EXPECT_TRUE(r.kernel.tensor_maps.empty());
    EXPECT_NE(r.cuda.find("tp::gemm_wgmma_ss<128, 256, 64, 8, 1, false, false, half_t>("), std::string::npos) << r.cuda;
    EXPECT_EQ(r.cuda.find("tp::gemm_ss<"), std::string::npos);
    // B (64 x 256) is wider than 128 bytes: 128-byte panels; A (128 x 64) one swizzled row each.
    EXPECT_NE(r.cuda.find("tp::copy_g2s<64, 256, 256, half_t, 2"), std::string::npos) << r.cuda;
    EXPECT_NE(r.cuda.find("tp::copy_g2s<128, 64, 256, half_t, true"), std::string::npos) << r.cuda;
}

TEST(Hopper, TensorMapRequestOfARowMajorTensor) {
    auto r = runtime::tensor_map_request(ir::DataType::float16(), {4096, 2048}, {64, 128}, 128);
    EXPECT_EQ(r.dtype, 6);
    EXPECT_EQ(r.dims, (std::vector<uint64_t>{2048, 4096}));
    EXPECT_EQ(r.strides, (std::vector<uint64_t>{4096}));
    EXPECT_EQ(r.box, (std::vector<uint32_t>{64, 128}));
    EXPECT_EQ(r.swizzle, 3);
    EXPECT_EQ(runtime::tensor_map_request(ir::DataType::bfloat16(), {8, 64}, {64, 8}, 0).dtype, 9);
}

TEST(Hopper, TensorMapRequestRejectsWhatTmaCannotDescribe) {
    // Rows of 100 halves are 200 bytes: not whole 16-byte units.
    EXPECT_THROW(runtime::tensor_map_request(ir::DataType::float16(), {64, 100}, {64, 64}, 128), std::invalid_argument);
    // A 128-element box row is 256 bytes, wider than the 128-byte swizzle span.
    EXPECT_THROW(runtime::tensor_map_request(ir::DataType::float16(), {256, 256}, {128, 64}, 128), std::invalid_argument);
    EXPECT_THROW(runtime::tensor_map_request(ir::DataType::float16(), {256, 256}, {64, 512}, 128), std::invalid_argument);
    EXPECT_THROW(runtime::tensor_map_request(ir::DataType::int32(), {256, 256}, {32, 64}, 128), std::invalid_argument);
}

TEST(Hopper, KernelArgsPassBlobsByValue) {
    runtime::KernelArgs a;
    a.add_pointer(0x1000);
    runtime::TensorMapBytes m;
    for (size_t i = 0; i < m.words.size(); ++i) m.words[i] = 100 + i;
    a.add_bytes(m.words.data(), sizeof(m.words));
    a.add_i32(42);
    ASSERT_EQ(a.size(), 3u);
    void** p = a.pointers();
    EXPECT_EQ(*static_cast<runtime::CUdeviceptr*>(p[0]), 0x1000u);
    const uint64_t* blob = static_cast<const uint64_t*>(p[1]);
    for (size_t i = 0; i < 16; ++i) EXPECT_EQ(blob[i], 100 + i);
    EXPECT_EQ(*static_cast<int32_t*>(p[2]), 42);
}

}  // namespace
