// Every sample at its `# tileplay: cpu-args` runs on the JIT (or falls back with a stated
// reason) and matches the interpreter: bit for bit where the kernel has no T.gemm (the order
// of operations is the interpreter's), within the dtype's tolerance where it has one.
#include <gtest/gtest.h>

#include <filesystem>

#include "jit_test_util.h"
#include "tileplay/sample_header.h"

using namespace tp;
using namespace tp::jit_test;

namespace {

TEST(JitSamples, EverySampleMatchesTheInterpreter) {
    require_jit();
    int on_jit = 0, samples = 0;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(TILEPLAY_SOURCE_DIR) / "samples")) {
        if (e.path().extension() != ".py") continue;
        SCOPED_TRACE(e.path().filename().string());
        const std::string src = read_text(e.path());
        SampleHeader h = parse_sample_header(src);
        CompileRequest req;
        req.path = e.path().string();
        req.source = src;
        req.kernel = h.kernel;
        req.defines = h.cpu_args;
        req.fallback_defines = h.args;
        req.stop_after = Stage::Ir;
        CompileResult cr = compile(req);
        ASSERT_TRUE(cr.ok) << cr.render_diagnostics();
        std::map<std::string, int64_t> symbols;
        for (const auto& [k, v] : h.cpu_args) {
            char* end = nullptr;
            long long x = std::strtoll(v.c_str(), &end, 10);
            if (end && *end == 0) symbols[k] = x;
        }
        Both r = run_both(
            cr.func, [](InterpOptions& o) { o.print_sink = [](const std::string&) {}; }, symbols);
        ++samples;
        ASSERT_TRUE(r.interp.ok) << r.interp.error;
        EXPECT_TRUE(r.jit.ok) << r.jit.error;
        if (r.jit.engine != "jit") {
            // A fallback says why, and then it is the interpreter's own result.
            EXPECT_FALSE(r.jit.jit_note.empty());
            std::cout << "[ jit      ] " << e.path().filename().string() << ": interpreter (JIT: " << r.jit.jit_note << ")\n";
            expect_bitwise(r);
            continue;
        }
        ++on_jit;
        std::cout << "[ jit      ] " << e.path().filename().string() << ": jit, compile " << r.jit.jit_compile_ms << " ms\n";
        if (cr.ir.find("T.gemm") == std::string::npos)
            expect_bitwise(r);
        else
            expect_close(r);
    }
    EXPECT_GT(samples, 5);
    // The tutorial's GEMM, softmax and attention samples are what the JIT is for.
    EXPECT_GE(on_jit, 5);
}

}  // namespace
