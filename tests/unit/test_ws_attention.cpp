// The sm_90a FlashAttention idiom lowering without a GPU: samples/flash_attention.py becomes
// the tp::WsAttention template with the launch the worker needs (persistent grid, 384 threads,
// dynamic shared memory, three 3-D tensor maps over a [batch * heads, seq, dim] view), the
// driver request those maps become, and the DSL's own grid kept for the interpreter's check.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "runtime/tensor_map.h"
#include "tileplay/compiler.h"

namespace {

using namespace tp;

CompileResult compile_attention(const std::string& arch, std::vector<std::pair<std::string, std::string>> extra) {
    CompileRequest req;
    req.path = std::string(TILEPLAY_SOURCE_DIR) + "/samples/flash_attention.py";
    std::ifstream in(req.path);
    std::stringstream text;
    text << in.rdbuf();
    req.source = text.str();
    req.target = arch;
    req.defines = {{"batch", "2"}, {"heads", "3"}, {"seq_q", "1000"}, {"seq_kv", "1000"}, {"dim", "128"},
                   {"threads", "128"}, {"num_stages", "2"}};
    req.defines.insert(req.defines.end(), extra.begin(), extra.end());
    req.stop_after = Stage::Cuda;
    return compile(req);
}

TEST(WsAttention, SampleOnSm90aRunsTheTemplate) {
    for (const char* causal : {"False", "True"}) {
        CompileResult r = compile_attention("sm_90a", {{"is_causal", causal}});
        ASSERT_TRUE(r.ok) << r.render_diagnostics();
        const bool c = std::string(causal) == "True";
        ASSERT_EQ(r.kernel.tensor_maps.size(), 3u);
        const char* names[] = {"Q", "K", "V"};
        for (size_t i = 0; i < 3; ++i) {
            EXPECT_EQ(r.kernel.tensor_maps[i].param, names[i]);
            EXPECT_EQ(r.kernel.tensor_maps[i].box, (std::vector<int64_t>{64, 128, 1}));
            EXPECT_EQ(r.kernel.tensor_maps[i].view, (std::vector<int64_t>{6, 1000, 128}));
            EXPECT_EQ(r.kernel.tensor_maps[i].swizzle_bytes, 128);
        }
        EXPECT_EQ(r.kernel.threads, (std::vector<int64_t>{384}));
        // 8 query tiles x 6 heads = 48 units; causal pairs them: 4 x 6 = 24.
        EXPECT_EQ(r.kernel.grid, (std::vector<int64_t>{c ? 24 : 48}));
        EXPECT_EQ(r.kernel.logical_grid, (std::vector<int64_t>{8, 3, 2}));  // the DSL's blocks, for the check
        // Q 32 KB + 2 stages of K and V (64 KB each) + 10 barriers, + 1024 for the hand alignment.
        EXPECT_EQ(r.kernel.dynamic_shared_bytes, 32768 + 65536 + 65536 + 80 + 1024);
        const std::string inst = std::string("tp::WsAttention<half_t, 128, 128, 2, 2, ") + (c ? "true" : "false") + ", true, true>";
        EXPECT_NE(r.cuda.find("tp::WsAttentionKernel<" + inst), std::string::npos) << r.cuda;
        EXPECT_NE(r.cuda.find(", 1000, 6, 0.127517432f);"), std::string::npos) << r.cuda;  // seq, batch*heads, scale
        EXPECT_EQ(r.cuda.find("tp::gemm_"), std::string::npos);
    }
}

TEST(WsAttention, OtherTargetsAndShapesKeepMmaSync) {
    for (auto [arch, key, value] : {std::tuple{"sm_90", "dim", "128"}, std::tuple{"sm_80", "dim", "128"},
                                    std::tuple{"sm_90a", "seq_kv", "512"}, std::tuple{"sm_90a", "layout", "bshd"},
                                    std::tuple{"sm_90a", "dim", "32"}}) {
        CompileResult r = compile_attention(arch, {{key, value}});
        ASSERT_TRUE(r.ok) << arch << " " << key << "=" << value << "\n" << r.render_diagnostics();
        EXPECT_TRUE(r.kernel.tensor_maps.empty()) << arch << " " << key << "=" << value;
        EXPECT_EQ(r.kernel.threads, (std::vector<int64_t>{128})) << arch << " " << key << "=" << value;
        EXPECT_NE(r.cuda.find("tp::gemm_"), std::string::npos) << arch << " " << key << "=" << value;
        EXPECT_EQ(r.cuda.find("WsAttention"), std::string::npos);
    }
}

TEST(WsAttention, ViewedTensorMapRequest) {
    // [batch * heads, seq, dim] = [6, 1000, 128] f16: dims innermost first, byte strides of
    // rows and of heads, the box of one 128-byte swizzle row by 128 rows of one head.
    auto r = runtime::tensor_map_request(ir::DataType::float16(), {6, 1000, 128}, {64, 128, 1}, 128);
    EXPECT_EQ(r.dims, (std::vector<uint64_t>{128, 1000, 6}));
    EXPECT_EQ(r.strides, (std::vector<uint64_t>{256, 256000}));
    EXPECT_EQ(r.box, (std::vector<uint32_t>{64, 128, 1}));
    EXPECT_EQ(r.swizzle, 3);
}

}  // namespace
