// The sm_90a path without a GPU: which kernels take the producer/consumer TMA + wgmma lowering
// (and which keep cp.async and mma.sync, with a remark saying why), the tensor maps the compile
// result describes, the driver request those become, and kernel arguments passed by value.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "runtime/device.h"
#include "runtime/nvrtc.h"
#include "runtime/tensor_map.h"
#include "tileplay/compiler.h"

namespace {

using namespace tp;

CompileResult compile_sample(const std::string& name, const std::string& arch, std::vector<std::pair<std::string, std::string>> defines,
                             std::vector<std::pair<std::string, std::string>> pass_configs = {}) {
    CompileRequest req;
    req.path = std::string(TILEPLAY_SOURCE_DIR) + "/samples/" + name;
    std::ifstream in(req.path);
    std::stringstream text;
    text << in.rdbuf();
    req.source = text.str();
    req.target = arch;
    req.defines = std::move(defines);
    req.pass_configs = std::move(pass_configs);
    req.stop_after = Stage::Cuda;
    return compile(req);
}

const std::vector<std::pair<std::string, std::string>> kHopperTiles = {
    {"M", "1024"}, {"N", "1024"}, {"K", "1024"}, {"block_M", "128"}, {"block_N", "256"}, {"block_K", "64"}, {"num_stages", "4"}, {"threads", "256"}};

TEST(Hopper, GemmOnSm90aIsWarpSpecialized) {
    CompileResult r = compile_sample("gemm.py", "sm_90a", kHopperTiles);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    // C leaves through TMA stores of 64-row, 128-byte panels (the epilogue's map comes first);
    // A and B come through TMA boxes: A's rows of 64 halves are one 128-byte swizzle row, B's
    // 256 columns four 128-byte panels of 64 (one box each).
    ASSERT_EQ(r.kernel.tensor_maps.size(), 3u);
    EXPECT_EQ(r.kernel.tensor_maps[0].param, "C");
    EXPECT_EQ(r.kernel.tensor_maps[0].box, (std::vector<int64_t>{64, 64}));
    EXPECT_EQ(r.kernel.tensor_maps[0].swizzle_bytes, 128);
    EXPECT_EQ(r.kernel.tensor_maps[1].param, "A");
    EXPECT_EQ(r.kernel.tensor_maps[1].box, (std::vector<int64_t>{64, 128}));
    EXPECT_EQ(r.kernel.tensor_maps[2].param, "B");
    EXPECT_EQ(r.kernel.tensor_maps[2].box, (std::vector<int64_t>{64, 64}));
    EXPECT_EQ(r.kernel.tensor_maps[2].swizzle_bytes, 128);
    EXPECT_NE(r.cuda.find("tp::frag_store_tma<tp::AccLayout<128, 256, 8, 1>, half_t, 2, 1>(&C_local[0], &tp_store_stage[0], &tp_tma_0, tx,"),
              std::string::npos);
    EXPECT_EQ(r.kernel.threads, (std::vector<int64_t>{384}));  // the user's 256 threads + the producer
    // Consumers: two warpgroups of 64 x 256; the last group of each k step runs on while the
    // next one is issued (wait<1>), the ring slots it reads released only then.
    EXPECT_NE(r.cuda.find("tp::gemm_wgmma_ss<128, 256, 64, 8, 1, false, false, half_t>("), std::string::npos) << r.cuda;
    EXPECT_NE(r.cuda.find("tp::wgmma_wait<1>()"), std::string::npos);
    EXPECT_NE(r.cuda.find("tp::setmaxnreg_inc<240>()"), std::string::npos);
    EXPECT_NE(r.cuda.find("tp::tma_load(&B_shared["), std::string::npos);
    EXPECT_EQ(r.cuda.find("tp::gemm_ss<"), std::string::npos);
    EXPECT_EQ(r.cuda.find("cp_async"), std::string::npos);
}

TEST(Hopper, ArchSpecificCodeRunsOnItsBaseDevice) {
    // inspect reads cuFuncGetAttribute and tune times configs only for code the GPU can load.
    EXPECT_TRUE(target_runs_on("sm_90a", "sm_90"));
    EXPECT_TRUE(target_runs_on("sm_90", "sm_90"));
    EXPECT_FALSE(target_runs_on("sm_90a", "sm_80"));
    EXPECT_FALSE(target_runs_on("sm_80", "sm_90"));
    EXPECT_FALSE(target_runs_on("sm_90", ""));
}

TEST(Hopper, SampleTilesRunOnOneWarpgroupWithInterleavedBlocks) {
    // The sample's own 128 x 128 tile on 128 threads: one consumer warpgroup issues two m64
    // blocks per k step, its accumulator interleaved (rows 16w and 64 + 16w of warp w).
    CompileResult r = compile_sample("gemm.py", "sm_90a", {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}});
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    EXPECT_EQ(r.kernel.threads, (std::vector<int64_t>{256}));
    EXPECT_NE(r.cuda.find("tp::gemm_wgmma_ss<128, 128, 32, 4, 1, false, false, half_t>("), std::string::npos) << r.cuda;
    EXPECT_NE(r.cuda.find("tp::AccLayout<128, 128, 4, 1, true>"), std::string::npos);
    // Its 83 KB fit twice in an SM: two blocks to an SM, the consumers growing to 232 registers.
    EXPECT_EQ(r.kernel.blocks_per_sm, 2);
    EXPECT_NE(r.cuda.find("__launch_bounds__(256, 2)"), std::string::npos);
    EXPECT_NE(r.cuda.find("tp::setmaxnreg_inc<232>()"), std::string::npos);
    // One block to an SM on request: 256 threads already allow 255, so nothing moves.
    CompileResult one = compile_sample("gemm.py", "sm_90a", {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}}, {{"tp.blocks_per_sm", "1"}});
    ASSERT_TRUE(one.ok) << one.render_diagnostics();
    EXPECT_EQ(one.kernel.blocks_per_sm, 1);
    EXPECT_EQ(one.cuda.find("setmaxnreg"), std::string::npos);
}

TEST(Hopper, OtherTargetsKeepMmaSyncAndRefusalsSayWhy) {
    // sm_90 has TMA but no wgmma, sm_80 neither: cp.async stages and mma.sync as before.
    for (const char* arch : {"sm_90", "sm_80"}) {
        auto d = kHopperTiles;
        for (auto& kv : d)
            if (kv.first == "num_stages") kv.second = "2";
        CompileResult r = compile_sample("gemm.py", arch, d);
        ASSERT_TRUE(r.ok) << arch << "\n" << r.render_diagnostics();
        EXPECT_TRUE(r.kernel.tensor_maps.empty()) << arch;
        EXPECT_NE(r.cuda.find("tp::gemm_ss<"), std::string::npos) << arch;
        EXPECT_EQ(r.cuda.find("wgmma"), std::string::npos) << arch;
    }
    // `tl.disable_warp_specialized` keeps cp.async stages; the gemm stays on wgmma.
    CompileRequest req;
    req.path = std::string(TILEPLAY_SOURCE_DIR) + "/samples/gemm.py";
    req.target = "sm_90a";
    req.defines = kHopperTiles;
    req.pass_configs = {{"tl.disable_warp_specialized", "true"}};
    req.stop_after = Stage::Cuda;
    CompileResult r = compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    ASSERT_EQ(r.kernel.tensor_maps.size(), 1u);  // the TMA-store epilogue stays: it needs no producer
    EXPECT_EQ(r.kernel.tensor_maps[0].param, "C");
    EXPECT_NE(r.cuda.find("tp::copy_g2s<"), std::string::npos);
    EXPECT_NE(r.cuda.find("tp::gemm_wgmma_ss<"), std::string::npos);
    // A block of 192 threads is not whole warpgroups: a remark at the T.Pipelined line says why.
    req.pass_configs.clear();
    req.defines = {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}, {"threads", "192"}, {"block_M", "64"}, {"block_N", "96"}};
    r = compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    bool said = false;
    for (const auto& d : r.diagnostics)
        said |= d.kind == DiagKind::FastPathNotTaken && d.message.find("warp specialization") != std::string::npos &&
                d.message.find("192 threads") != std::string::npos;
    EXPECT_TRUE(said) << r.render_diagnostics(false, true);
}

TEST(Hopper, ElementwiseEpilogueRunsOnTheConsumers) {
    CompileResult r = compile_sample("gemm_bias_gelu.py", "sm_90a", kHopperTiles);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    EXPECT_EQ(r.kernel.tensor_maps.size(), 3u);  // C's store, A, B
    // The GELU loop runs on the registers (as tp::gelu_erf, math-idioms) after the last wait.
    EXPECT_EQ(r.cuda.find("tp::erf("), std::string::npos);
    EXPECT_LT(r.cuda.find("tp::wgmma_wait<0>()"), r.cuda.find("tp::gelu_erf("));
}

TEST(Hopper, EpilogueThroughSharedMemoryUsesTheConsumersBarrier) {
    // Staging C through shared memory needs a barrier among the consumers only: named barrier
    // 1 over their 256 threads, never __syncthreads (the producer warpgroup would not come).
    CompileRequest req;
    req.path = std::string(TILEPLAY_SOURCE_DIR) + "/tests/gpu/data/staged_gemm.py";
    req.target = "sm_90a";
    req.stop_after = Stage::Cuda;
    CompileResult r = compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    // A and B loads, then C's store map: the staged tile leaves by TMA, one thread storing it
    // after the writers fenced their generic writes and met at the consumers' barrier.
    ASSERT_EQ(r.kernel.tensor_maps.size(), 3u);
    EXPECT_EQ(r.kernel.tensor_maps[2].param, "C");
    EXPECT_EQ(r.kernel.tensor_maps[2].box, (std::vector<int64_t>{256, 128}));
    size_t roles = r.cuda.find("if (threadIdx.x >= 256) {");
    ASSERT_NE(roles, std::string::npos) << r.cuda;
    EXPECT_EQ(r.cuda.find("__syncthreads()", roles), std::string::npos) << r.cuda;
    size_t fence = r.cuda.find("tp::fence_proxy_async();", roles), sync = r.cuda.find("tp::consumer_sync<256>()", fence);
    ASSERT_NE(sync, std::string::npos) << r.cuda;
    EXPECT_NE(r.cuda.find("tp::tile_store_tma<2, 1, 256, 32768, false>(&tp_tma_2, &C_shared[0], tx,", sync), std::string::npos) << r.cuda;
    // With tp.disable_tma_store the threads copy the tile out.
    req.pass_configs = {{"tp.disable_tma_store", "true"}};
    r = compile(req);
    ASSERT_TRUE(r.ok) << r.render_diagnostics();
    EXPECT_EQ(r.kernel.tensor_maps.size(), 2u);
    EXPECT_NE(r.cuda.find("tp::copy_s2g<128, 256, 256, half_t, false>(&C_shared[0]"), std::string::npos) << r.cuda;
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
    EXPECT_THROW(runtime::tensor_map_request(ir::DataType::float32().with_lanes(4), {256, 256}, {32, 64}, 128), std::invalid_argument);
    // Other element types move as raw bits of their width: int32 as UINT32, fp8 as UINT8.
    EXPECT_EQ(runtime::tensor_map_request(ir::DataType::int32(), {256, 256}, {32, 64}, 128).dtype, 2);
    EXPECT_EQ(runtime::tensor_map_request(ir::DataType(ir::DataType::Float8E4M3, 8), {256, 256}, {128, 64}, 128).dtype, 0);
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

TEST(PtxLinks, TileOpsLinkToTheirTensorCoreAndCopyInstructions) {
    // The instructions that matter sit in inlined template code: the line map follows the
    // inlining out to the T.gemm / T.copy statement that used the template.
    std::string why;
    if (!runtime::nvrtc_available(&why)) GTEST_SKIP() << why;
    const std::string path = std::string(TILEPLAY_SOURCE_DIR) + "/samples/gemm.py";
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    auto line_of = [&](const std::string& needle) {
        std::istringstream s(text.str());
        std::string l;
        for (uint32_t n = 1; std::getline(s, l); ++n)
            if (l.find(needle) != std::string::npos) return n;
        return 0u;
    };
    const uint32_t gemm = line_of("T.gemm("), copy_a = line_of("T.copy(A["), copy_b = line_of("T.copy(B[");
    ASSERT_GT(gemm, 0u);
    struct Case {
        const char* arch;
        std::vector<std::pair<std::string, std::vector<uint32_t>>> want;  // instruction -> DSL lines
    };
    for (const Case& c : {Case{"sm_80", {{"mma.sync", {gemm}}, {"ldmatrix", {gemm}}, {"cp.async.cg", {copy_a, copy_b}}}},
                          Case{"sm_90a", {{"wgmma.mma_async", {gemm}}, {"cp.async.bulk.tensor.2d.shared", {copy_a, copy_b}}}}}) {
        CompileRequest req;
        req.path = path;
        req.source = text.str();
        req.target = c.arch;
        req.defines = {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}};
        req.stop_after = Stage::Ptx;
        CompileResult r = compile(req);
        ASSERT_TRUE(r.ok) << r.render_diagnostics();
        std::istringstream ptx(r.ptx);
        std::string l;
        std::map<std::string, int> found;
        for (uint32_t n = 1; std::getline(ptx, l); ++n)
            for (const auto& [insn, lines] : c.want)
                if (l.find(insn) != std::string::npos) {
                    ++found[insn];
                    EXPECT_NE(std::find(lines.begin(), lines.end(), r.ptx_lines.dsl_line(n)), lines.end())
                        << c.arch << " PTX line " << n << " `" << l << "` links to DSL line " << r.ptx_lines.dsl_line(n);
                }
        for (const auto& [insn, lines] : c.want) EXPECT_GT(found[insn], 0) << c.arch << " has no " << insn;
    }
}
