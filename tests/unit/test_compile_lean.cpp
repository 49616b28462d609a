// What keeps NVRTC's work small without changing the kernel: each wgmma shape in a header of its
// own that only a kernel issuing that shape includes, and the launch's warm-up compile, which
// must really run NVRTC (never be served from the module cache) and leave nothing in it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "codegen/cuda/codegen_cuda.h"
#include "runtime/module_cache.h"
#include "runtime/nvrtc.h"
#include "tileplay/compiler.h"
#include "tileplay/sample_header.h"
#include "tileplay/warm_up.h"

namespace fs = std::filesystem;

namespace {

std::string embedded(const std::string& name) {
    for (const auto& [n, t] : tp::codegen::embedded_runtime_headers())
        if (n == name) return std::string(t);
    return {};
}

// The wgmma shape headers the generated CUDA includes.
std::set<std::string> shape_includes(const std::string& cuda) {
    std::set<std::string> out;
    static const std::regex inc("#include \"(tp_wgmma_n[0-9]+\\.cuh)\"");
    for (std::sregex_iterator it(cuda.begin(), cuda.end(), inc), end; it != end; ++it) out.insert((*it)[1]);
    return out;
}

tp::CompileResult compile_gemm(std::vector<std::pair<std::string, std::string>> defines) {
    tp::CompileRequest req;
    req.path = std::string(TILEPLAY_SOURCE_DIR) + "/samples/gemm.py";
    std::ifstream in(req.path);
    std::stringstream text;
    text << in.rdbuf();
    req.source = text.str();
    req.target = "sm_90a";
    req.defines = std::move(defines);
    req.stop_after = tp::Stage::Cuda;
    return tp::compile(req);
}

}  // namespace

// Every N of m64nNk16 (multiples of 8 up to 256) is defined in its own header and nowhere else:
// the header every wgmma kernel includes declares the template only.
TEST(CompileLean, EachWgmmaShapeHasItsOwnHeader) {
    const std::string ops = embedded("tp_wgmma_ops.cuh");
    ASSERT_FALSE(ops.empty());
    EXPECT_EQ(ops.find("struct WgmmaOp<"), std::string::npos) << "tp_wgmma_ops.cuh defines a shape";
    EXPECT_EQ(ops.find("asm volatile"), std::string::npos);
    for (int n = 8; n <= 256; n += 8) {
        const std::string h = embedded("tp_wgmma_n" + std::to_string(n) + ".cuh");
        ASSERT_FALSE(h.empty()) << "no tp_wgmma_n" << n << ".cuh";
        EXPECT_NE(h.find("struct WgmmaOp<" + std::to_string(n) + "> {"), std::string::npos) << n;
        EXPECT_NE(h.find("m64n" + std::to_string(n) + "k16"), std::string::npos) << n;
        std::smatch m;
        static const std::regex other("struct WgmmaOp<([0-9]+)> \\{");
        for (auto it = h.cbegin(); std::regex_search(it, h.cend(), m, other); it = m[0].second)
            EXPECT_EQ(m[1].str(), std::to_string(n)) << "tp_wgmma_n" << n << ".cuh defines another shape";
    }
}

// A kernel includes the header of the shape its warpgroups issue, N = block_N / WARPS_N, and no
// other: 128 x 256 tiles on two warpgroups stacked in M issue N = 256; 128 x 128 tiles, N = 128.
TEST(CompileLean, KernelIncludesOnlyTheShapeItIssues) {
    tp::CompileResult wide = compile_gemm({{"M", "1024"},
                                           {"N", "1024"},
                                           {"K", "1024"},
                                           {"block_M", "128"},
                                           {"block_N", "256"},
                                           {"block_K", "64"},
                                           {"num_stages", "4"},
                                           {"threads", "256"}});
    ASSERT_TRUE(wide.ok) << wide.render_diagnostics();
    ASSERT_NE(wide.cuda.find("tp::gemm_wgmma_ss<128, 256, 64, 8, 1,"), std::string::npos) << wide.cuda;
    EXPECT_EQ(shape_includes(wide.cuda), (std::set<std::string>{"tp_wgmma_n256.cuh"}));

    tp::CompileResult square = compile_gemm({{"M", "1024"}, {"N", "1024"}, {"K", "1024"}});
    ASSERT_TRUE(square.ok) << square.render_diagnostics();
    ASSERT_NE(square.cuda.find("tp::gemm_wgmma_ss<128, 128, 32, 4, 1,"), std::string::npos) << square.cuda;
    EXPECT_EQ(shape_includes(square.cuda), (std::set<std::string>{"tp_wgmma_n128.cuh"}));
}

// Generated CUDA NVRTC has to warn about (a variable declared and never used, code that cannot
// be reached) is work it does for nothing: every sample compiles without a warning in its log.
TEST(CompileLean, SamplesCompileWithoutNvrtcWarnings) {
    std::string why;
    if (!tp::runtime::nvrtc_available(&why)) GTEST_SKIP() << why;
    int compiled = 0;
    for (const auto& entry : fs::directory_iterator(std::string(TILEPLAY_SOURCE_DIR) + "/samples")) {
        if (entry.path().extension() != ".py") continue;
        for (const char* target : {"sm_80", "sm_90a"}) {
            tp::CompileRequest req;
            req.path = entry.path().string();
            std::ifstream in(req.path);
            std::stringstream text;
            text << in.rdbuf();
            req.source = text.str();
            req.target = target;
            const tp::SampleHeader h = tp::parse_sample_header(req.source);  // as tilec compile reads it
            req.kernel = h.kernel;
            req.fallback_defines = h.args;
            tp::CompileResult r = tp::compile(req);
            if (!r.ok) continue;  // a sample the target refuses (fp8 before sm_89) says so elsewhere
            ++compiled;
            std::istringstream log(r.nvrtc_log);
            for (std::string line; std::getline(log, line);)
                EXPECT_EQ(line.find("warning"), std::string::npos) << entry.path().filename() << " " << target << ": " << line;
        }
    }
    EXPECT_GE(compiled, 14);
}

// The warm-up compiles for real each time and stores nothing, in memory or on disk; the
// bypass ends with it, so the next compile on the thread uses the cache again.
TEST(CompileLean, WarmUpBypassesTheModuleCache) {
    std::string why;
    if (!tp::runtime::nvrtc_available(&why)) GTEST_SKIP() << why;
    const fs::path dir = fs::temp_directory_path() / ("tileplay_warmup_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    ::setenv("TILEPLAY_NVRTC_CACHE", dir.c_str(), 1);
    tp::runtime::module_cache_clear_memory();
    for (int i = 0; i < 2; ++i) {
        tp::CompileResult r = tp::warm_up("sm_80");
        ASSERT_TRUE(r.ok) << r.render_diagnostics();
        EXPECT_FALSE(r.cubin.empty());
        bool nvrtc_ran = false;
        for (const auto& t : r.timings) nvrtc_ran |= t.name == "nvrtc-ptx";
        EXPECT_TRUE(nvrtc_ran) << "compile " << i << " was served from the cache";
        EXPECT_NE(r.ptx.find("mma.sync"), std::string::npos);  // the Tensor-Core path it is there to warm
    }
    EXPECT_FALSE(tp::runtime::module_cache_bypassed());
    std::error_code ec;
    EXPECT_TRUE(!fs::exists(dir, ec) || fs::is_empty(dir, ec)) << "the warm-up stored a module";
    {
        tp::runtime::ModuleCacheBypass off;
        EXPECT_TRUE(tp::runtime::module_cache_bypassed());
    }
    EXPECT_FALSE(tp::runtime::module_cache_bypassed());
    ::unsetenv("TILEPLAY_NVRTC_CACHE");
    tp::runtime::module_cache_clear_memory();
    fs::remove_all(dir);
}
