// run_tune end to end without a GPU: the static filter per target, the parallel compile, CPU
// checks that catch a wrong config, the ranking rule (a wrong config is never best), the cache
// (hits, misses on any change, --force, --no-cache), progress events, cancel, JSON round trip.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tileplay/tune.h"

namespace fs = std::filesystem;

namespace {

// block_N=256 computes A - B: a schedule that is wrong; threads=2048 cannot launch anywhere.
const char* kVadd = R"(# tileplay: kernel=vadd
# tileplay: args N=4096
# tileplay: cpu-args N=1000
# tileplay: baseline torch: A + B
import tilelang
import tilelang.language as T


@tilelang.autotune(configs=[{"block_N": b, "threads": t} for b in [128, 256] for t in [128, 2048]])
@tilelang.jit(out_idx=[-1])
def vadd(N, block_N=128, threads=128, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), threads=threads) as bx:
            for i in T.Parallel(block_N):
                idx = bx * block_N + i
                if idx < N:
                    if block_N == 256:
                        C[idx] = A[idx] - B[idx]
                    else:
                        C[idx] = A[idx] + B[idx]
    return main
)";

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("tileplay_tune_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

tp::TuneOptions vadd_options(const fs::path& cache) {
    tp::TuneOptions o;
    o.path = "vadd.py";
    o.source = kVadd;
    o.device = "cpu";
    o.cache_dir = cache.string();
    o.jobs = 2;
    return o;
}

const tp::TuneResult* find(const tp::TuneReport& r, const std::string& text) {
    for (const auto& t : r.results)
        if (tp::config_text(t.config) == text) return &t;
    return nullptr;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

TEST(Tune, CpuChecksCatchTheWrongConfigAndFilterTheUnlaunchable) {
    TempDir tmp;
    std::vector<tp::TuneEvent> events;
    tp::TuneReport r = tp::run_tune(vadd_options(tmp.path), [&](const tp::TuneEvent& e) { events.push_back(e); });
    ASSERT_TRUE(r.ok) << r.error << r.diagnostics_text;
    EXPECT_FALSE(r.gpu);
    EXPECT_EQ(r.target, "sm_90");
    ASSERT_EQ(r.results.size(), 4u);
    const auto* good = find(r, "block_N=128 threads=128");
    const auto* wrong = find(r, "block_N=256 threads=128");
    const auto* huge = find(r, "block_N=128 threads=2048");
    ASSERT_TRUE(good && wrong && huge);
    EXPECT_EQ(good->status, tp::TuneStatus::Passed) << good->reason;
    EXPECT_LT(good->rel_fro, 1e-6);
    EXPECT_EQ(wrong->status, tp::TuneStatus::Wrong);
    EXPECT_NE(wrong->reason.find("differs from the add reference"), std::string::npos) << wrong->reason;
    EXPECT_EQ(huge->status, tp::TuneStatus::Rejected);
    EXPECT_EQ(huge->kind, "TooManyThreads");
    EXPECT_EQ(huge->reason, "2048 threads per block exceeds the limit of 1024");
    // Ranked: the passing config first; no best without GPU timing.
    EXPECT_EQ(tp::config_text(r.results[0].config), "block_N=128 threads=128");
    EXPECT_EQ(r.best, -1);
    // Progress: every phase starts at 0 and counts to its total; a final "done".
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back().phase, "done");
    int filter_done = 0;
    for (const auto& e : events)
        if (e.phase == "filter") filter_done = std::max(filter_done, e.done);
    EXPECT_EQ(filter_done, 4);
}

TEST(Tune, DryRunFiltersPerTargetWithoutCompiling) {
    TempDir tmp;
    tp::TuneOptions o;
    o.path = std::string(TILEPLAY_SOURCE_DIR) + "/samples/gemm_autotune.py";
    o.device = "cpu";
    o.dry_run = true;
    o.cache_dir = tmp.path.string();
    auto kept = [&](const std::string& arch, int* rejected_smem) {
        o.target = arch;
        tp::TuneReport r = tp::run_tune(o);
        EXPECT_TRUE(r.ok) << r.error << r.diagnostics_text;
        EXPECT_TRUE(r.dry_run);
        int n = 0;
        *rejected_smem = 0;
        for (const auto& t : r.results) {
            EXPECT_EQ(t.registers, -1);  // nothing went through NVRTC
            if (t.status == tp::TuneStatus::Kept) ++n;
            if (t.status == tp::TuneStatus::Rejected && t.kind == "SharedMemoryExceeded") ++*rejected_smem;
            if (t.status == tp::TuneStatus::Rejected) EXPECT_FALSE(t.reason.empty());
        }
        return n;
    };
    int smem75 = 0, smem90 = 0;
    int kept75 = kept("sm_75", &smem75), kept90 = kept("sm_90", &smem90);
    EXPECT_EQ(kept75 + smem75, 64);
    EXPECT_EQ(kept90 + smem90, 64);
    EXPECT_GT(smem75, smem90);  // 64 KB per block on sm_75, 227 KB on sm_90
    // 256x256 tiles with block_K=64 fit sm_90 once the epilogue tile reuses the drained
    // pipeline's bytes (share-shared-memory); on sm_75 most configs still do not.
    EXPECT_EQ(smem90, 0);
    EXPECT_GT(kept75, 0);
    EXPECT_TRUE(fs::is_empty(tmp.path));  // a dry run is never cached
}

TEST(Tune, CacheAnswersTheSecondRunAndMissesOnAnyChange) {
    TempDir tmp;
    tp::TuneOptions o = vadd_options(tmp.path);
    tp::TuneReport first = tp::run_tune(o);
    ASSERT_TRUE(first.ok) << first.error;
    EXPECT_FALSE(first.from_cache);
    ASSERT_TRUE(fs::exists(first.cache_file));

    auto t0 = std::chrono::steady_clock::now();
    tp::TuneReport again = tp::run_tune(o);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(again.from_cache);
    EXPECT_LT(s, 1.0);
    EXPECT_EQ(tp::tune_report_json(again)["configs"], tp::tune_report_json(first)["configs"]);

    // Anything that changes the answer is a different key: the source, a fixed parameter,
    // the space, the target.
    auto key_after = [&](auto&& change) {
        tp::TuneOptions c = vadd_options(tmp.path);
        c.dry_run = false;
        change(c);
        c.use_cache = true;
        tp::TuneReport r = tp::run_tune(c);
        EXPECT_FALSE(r.from_cache);
        return r.cache_key;
    };
    EXPECT_NE(key_after([](tp::TuneOptions& c) { c.source += "\n# an edit\n"; }), first.cache_key);
    EXPECT_NE(key_after([](tp::TuneOptions& c) { c.defines = {{"dtype", "float16"}}; }), first.cache_key);
    EXPECT_NE(key_after([](tp::TuneOptions& c) { c.axes = {{"block_N", {"128"}}}; }), first.cache_key);
    EXPECT_NE(key_after([](tp::TuneOptions& c) { c.target = "sm_80"; }), first.cache_key);

    o.force = true;
    tp::TuneReport forced = tp::run_tune(o);
    EXPECT_FALSE(forced.from_cache);
    EXPECT_EQ(forced.cache_key, first.cache_key);
}

TEST(Tune, CacheKeyIsTheParametersInEffect) {
    // -D N=4096 where the header's args already say N=4096 is the same problem: the playground
    // passes its panel's values, `tilec tune` usually none, and both must share the answer.
    TempDir tmp;
    tp::TuneOptions o = vadd_options(tmp.path);
    o.source = "# tileplay: args N=4096\n" + o.source;
    tp::TuneReport first = tp::run_tune(o);
    ASSERT_TRUE(first.ok) << first.error;
    o.defines = {{"N", "4096"}};
    tp::TuneReport same = tp::run_tune(o);
    EXPECT_TRUE(same.from_cache);
    EXPECT_EQ(same.cache_key, first.cache_key);
    o.defines = {{"N", "2048"}};
    EXPECT_NE(tp::run_tune(o).cache_key, first.cache_key);
}

TEST(Tune, NoCacheWritesNothingAndCorruptFilesAreMisses) {
    TempDir tmp;
    tp::TuneOptions o = vadd_options(tmp.path);
    o.axes = {{"block_N", {"128"}}, {"threads", {"128"}}};
    o.use_cache = false;
    tp::TuneReport r = tp::run_tune(o);
    ASSERT_TRUE(r.ok);
    EXPECT_TRUE(fs::is_empty(tmp.path));

    o.use_cache = true;
    tp::TuneReport stored = tp::run_tune(o);
    ASSERT_TRUE(fs::exists(stored.cache_file));
    std::ofstream(stored.cache_file) << "{ torn";
    tp::TuneReport after = tp::run_tune(o);
    EXPECT_FALSE(after.from_cache);
    EXPECT_NE(read_text(after.cache_file).find("\"configs\""), std::string::npos);  // rewritten
}

TEST(Tune, WrongConfigIsNeverBest) {
    tp::TuneReport r;
    auto add = [&](const std::string& v, tp::TuneStatus s, double ms) {
        tp::TuneResult t;
        t.config = {{"block", v}};
        t.status = s;
        t.median_ms = ms;
        r.results.push_back(t);
    };
    add("wrong_fast", tp::TuneStatus::Wrong, 0.1);
    add("slow", tp::TuneStatus::Timed, 2.0);
    add("rejected", tp::TuneStatus::Rejected, 0);
    add("fast", tp::TuneStatus::Timed, 1.0);
    add("failed", tp::TuneStatus::Failed, 0);
    tp::rank_tune_results(r);
    ASSERT_EQ(r.best, 0);
    EXPECT_EQ(tp::config_text(r.results[0].config), "block=fast");
    EXPECT_TRUE(r.results[0].best);
    EXPECT_EQ(tp::config_text(r.results[1].config), "block=slow");
    EXPECT_EQ(tp::config_text(r.results[2].config), "block=wrong_fast");
    EXPECT_EQ(tp::config_text(r.results.back().config), "block=rejected");

    tp::TuneReport none;
    tp::TuneResult w;
    w.status = tp::TuneStatus::Wrong;
    w.median_ms = 0.1;
    none.results.push_back(w);
    tp::rank_tune_results(none);
    EXPECT_EQ(none.best, -1);
    EXPECT_FALSE(none.results[0].best);
}

TEST(Tune, ReportRoundTripsThroughJsonAndWritesCsv) {
    tp::TuneReport r;
    r.ok = true;
    r.space_origin = "-T";
    r.target = "sm_90";
    r.device = "NVIDIA H200 (sm_90)";
    r.gpu = true;
    r.seconds = 12.5;
    tp::TuneResult a;
    a.config = {{"block_M", "128"}, {"dtype", "float16"}};
    a.status = tp::TuneStatus::Timed;
    a.median_ms = 0.5;
    a.tflops = 270;
    a.registers = 168;
    a.spill_bytes = 0;
    a.rel_fro = 1e-4;
    tp::TuneResult b;
    b.config = {{"block_M", "256"}, {"dtype", "float16"}};
    b.status = tp::TuneStatus::CannotLaunch;
    b.kind = "TooManyRegisters";
    b.reason = "255 registers x 512 threads need \"too many\"";
    r.results = {a, b};
    tp::rank_tune_results(r);
    tp::TuneReport back;
    ASSERT_TRUE(tp::tune_report_from_json(tp::tune_report_json(r), back));
    EXPECT_EQ(tp::tune_report_json(back), tp::tune_report_json(r));
    EXPECT_EQ(back.best, 0);
    EXPECT_EQ(back.results[1].status, tp::TuneStatus::CannotLaunch);
    EXPECT_FALSE(tp::tune_report_from_json(nlohmann::json{{"x", 1}}, back));

    std::string csv = tp::tune_report_csv(r);
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "rank,config,status,median_ms,min_ms,tflops,gbps,rel_fro,registers,spill_bytes,shared_bytes,threads,"
              "compile_ms,cpu_ms,best,reason");
    EXPECT_NE(csv.find("1,\"block_M=128 dtype=float16\",timed,0.5,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\"TooManyRegisters: 255 registers x 512 threads need \"\"too many\"\"\""), std::string::npos) << csv;
}

TEST(Tune, CancelStopsBetweenConfigs) {
    TempDir tmp;
    tp::TuneOptions o = vadd_options(tmp.path);
    std::atomic<bool> cancel{true};
    tp::TuneReport r = tp::run_tune(o, {}, &cancel);
    EXPECT_TRUE(r.cancelled);
    for (const auto& t : r.results) EXPECT_EQ(t.status, tp::TuneStatus::Kept);  // nothing ran
    EXPECT_TRUE(fs::is_empty(tmp.path));  // a cancelled tune is not cached
}

TEST(Tune, ErrorsComeBackAsReportsNotExceptions) {
    tp::TuneOptions o;
    o.path = "/nonexistent/file.py";
    o.device = "cpu";
    tp::TuneReport r = tp::run_tune(o);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error, "cannot read `/nonexistent/file.py`");
    o.path = "x.py";
    o.source = "def f(:\n";
    r = tp::run_tune(o);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.diagnostics_text.find("x.py:1:"), std::string::npos) << r.diagnostics_text;
}
