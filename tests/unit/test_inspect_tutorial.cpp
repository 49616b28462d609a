// The tutorial's data and rendering: sections name samples that exist, key figures read the
// JSON shapes of run/bench/sweep/tune/inspect, the status row labels the device, and the
// reference lists every registry entry with a signature and a doc.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "eval/tile_builtins.h"
#include "tileplay/tutorial.h"
#include "tutorial/key_figures.h"

using nlohmann::json;

TEST(Tutorial, SectionsAreOrderedAndNameRealSamples) {
    const auto& secs = tp::tutorial_sections();
    ASSERT_GE(secs.size(), 10u);
    EXPECT_EQ(secs.front().id, "environment");
    EXPECT_EQ(secs.back().id, "inspect");
    std::set<std::string> ids;
    for (const auto& s : secs) {
        EXPECT_TRUE(ids.insert(s.id).second) << "duplicate section id " << s.id;
        EXPECT_FALSE(s.gpu_args.empty());
        EXPECT_FALSE(s.cpu_args.empty());
        if (s.sample.empty()) continue;
        EXPECT_TRUE(std::filesystem::exists(std::string(TILEPLAY_SOURCE_DIR) + "/samples/" + s.sample)) << s.sample;
        // The CPU commands never ask for the GPU: they must finish on a machine without one.
        for (size_t i = 0; i + 1 < s.cpu_args.size(); ++i) {
            if (s.cpu_args[i] == "--device") {
                EXPECT_EQ(s.cpu_args[i + 1], "cpu") << s.id;
            }
        }
        // A section for one GPU architecture says how to read what runs everywhere else.
        if (!s.gpu_arch.empty()) {
            EXPECT_TRUE(s.cpu_key.has_value()) << s.id;
        }
    }
}

TEST(Tutorial, KeyFigures) {
    using tp::KeyFigure;
    json run = {{"time_ms", 12.34}, {"check", {{"available", true}, {"rel_fro", 2.5e-6}, {"pass", true}}}};
    EXPECT_EQ(tp::tutorial::key_figure(KeyFigure::Bench, run, false), "12.3 ms on the CPU interpreter, rel_fro 2.5e-06 ok");
    json bench = {{"results",
                   {{{"ours", {{"median_ms", 0.5}, {"tflops", 275.0}, {"gbps", 200.0}}},
                     {"baselines", {{{"name", "cublas.gemm"}, {"ok", true}, {"ratio", 1.08}}}}}}}};
    EXPECT_EQ(tp::tutorial::key_figure(KeyFigure::Bench, bench, true), "0.5000 ms, 275.0 TFLOP/s");
    // The ratio shown is the best peer's, per round, with its range; a failed semantic check
    // is said; the target compiled for closes the line.
    bench["results"][0]["best_peer"] = {{"name", "cublaslt.gemm"}, {"ratio", 1.08}, {"ratio_min", 1.05}, {"ratio_max", 1.1}};
    bench["results"][0]["semantics"] = {{"checked", true}, {"ok", false}};
    bench["results"][0]["target"] = "sm_90a";
    EXPECT_EQ(tp::tutorial::key_figure(KeyFigure::Bench, bench, true),
              "0.5000 ms, 275.0 TFLOP/s, 1.08x [1.05-1.10] vs cublaslt.gemm, semantics FAIL (sm_90a)");
    json sweep = {{"configs", {{{"config", "block_M=64"}, {"cpu_ms", 3.0}}, {{"config", "block_M=128"}, {"best", true}, {"ours", {{"median_ms", 0.25}}}}}}};
    EXPECT_EQ(tp::tutorial::key_figure(KeyFigure::Sweep, sweep, true), "best of 2: block_M=128 (0.2500 ms)");
    sweep["peers"] = {{"best_peer", {{"name", "cublas.gemm"}, {"ratio", 0.95}, {"ratio_min", 0.9}, {"ratio_max", 1.0}}}};
    EXPECT_EQ(tp::tutorial::key_figure(KeyFigure::Sweep, sweep, true),
              "best of 2: block_M=128 (0.2500 ms), 0.95x [0.90-1.00] vs cublas.gemm");
    // A GPU tune's rows carry their timing under "time" (what `tilec tune --json` writes).
    json tune_gpu = {{"configs", {{{"config", "block_K=32"}, {"status", "timed"}, {"time", {{"median_ms", 0.33}}}},
                                  {{"config", "block_K=64"}, {"best", true}, {"status", "timed"}, {"time", {{"median_ms", 0.3246}}}}}}};
    EXPECT_EQ(tp::tutorial::key_figure(KeyFigure::Sweep, tune_gpu, true), "best of 2: block_K=64 (0.3246 ms)");
    json tune_cpu = {{"best", nullptr}, {"configs", {{{"status", "passed"}}, {{"status", "rejected"}}}}};
    EXPECT_EQ(tp::tutorial::key_figure(KeyFigure::Sweep, tune_cpu, false),
              "1 of 2 configs passed the check (CPU: correctness only)");
    json printed = {{"printed", "a\nb\nc\n"}, {"time_ms", 1.0}};
    EXPECT_EQ(tp::tutorial::key_figure(KeyFigure::Printed, printed, false), "3 lines printed, 1.0 ms CPU");
    json inspect = {{"kernels",
                     {{{"target", "sm_80"},
                       {"ptx", {{"classes", {{"tensor_core", {{"count", 64}}}, {"async_copy", {{"count", 20}}}}}}},
                       {"sass", {{"available", false}}},
                       {"occupancy", {{"fits", true}, {"occupancy", 0.125}, {"limiter", "registers"}}}}}}};
    EXPECT_EQ(tp::tutorial::key_figure(KeyFigure::Inspect, inspect, false),
              "sm_80 PTX: 64 tensor core, 20 async copy; occupancy 12% (registers)");
    // Another shape than expected gives no figure rather than an exception.
    EXPECT_EQ(tp::tutorial::key_figure(KeyFigure::Inspect, json{{"kernels", 3}}, false), "");
    EXPECT_EQ(tp::tutorial::json_error({{"results", {{{"kind", "hang"}, {"error", "watchdog"}}}}}), "hang: watchdog");
}

TEST(Tutorial, StatusRowsAndOutcome) {
    tp::SectionResult ok{"gemm", "GEMM", "cpu", "passed", 1.25, "88 ms", "", json::array()};
    tp::SectionResult bad{"x", "broken", "gpu", "crashed", 0.5, "", "killed by signal 11 (SIGSEGV)", json::array()};
    tp::SectionResult gone{"y", "softmax", "cpu", "missing sample", 0, "samples/softmax.py is not there yet", "", json::array()};
    EXPECT_NE(tp::format_status_row(ok).find("1.2 s CPU  88 ms"), std::string::npos);
    EXPECT_NE(tp::format_status_row(bad).find("0.5 s GPU  killed by signal 11"), std::string::npos);
    EXPECT_NE(tp::format_status_row(gone).find("missing sample"), std::string::npos);
    tp::TutorialReport r;
    r.sections = {ok, gone};
    EXPECT_TRUE(r.all_present_passed());
    EXPECT_EQ(r.to_json()["missing"], 1);
    r.sections.push_back(bad);
    EXPECT_FALSE(r.all_present_passed());
    EXPECT_EQ(r.to_json()["not_passed"], 1);
}

TEST(Reference, EveryRegistryEntryIsDocumentedAndListed) {
    std::string text = tp::reference_text();
    std::string card = tp::reference_text(true);
    auto entries = tp::eval::tile_builtins();
    ASSERT_GT(entries.size(), 50u);
    for (const auto& b : entries) {
        EXPECT_FALSE(b.doc.empty()) << b.name;
        EXPECT_FALSE(b.category.empty()) << b.name;
        EXPECT_NE(b.signature.find("T." + b.name), std::string::npos) << b.signature;
        EXPECT_NE(text.find(b.signature), std::string::npos) << b.name;
        EXPECT_NE(card.find("T." + b.name), std::string::npos) << b.name;
    }
    EXPECT_EQ(tp::reference_json().size(), entries.size());
}
