// The bench's method, without a GPU: peers alternating in rounds with the ratio taken per
// round, baseline lines parsed into peers, the torch worker's client against a fake worker
// (replies, noise, a death, silence), and the GPU monitor where there is no NVML.
#include <gtest/gtest.h>

#include <cstdlib>

#include "baselines/baselines.h"
#include "runtime/gpu_monitor.h"
#include "runtime/rounds.h"

namespace {

using namespace tp;

TEST(Rounds, PlanSplitsIterations) {
    EXPECT_EQ(runtime::plan_rounds(50).rounds, 10);
    EXPECT_EQ(runtime::plan_rounds(50).per_round, 5);
    EXPECT_EQ(runtime::plan_rounds(3).rounds, 3);
    EXPECT_EQ(runtime::plan_rounds(3).per_round, 1);
    EXPECT_EQ(runtime::plan_rounds(0).rounds, 1);
    EXPECT_EQ(runtime::plan_rounds(95).per_round, 10);
}

// A peer that drifts: every sample is slower than the last (a GPU heating up). Ours drifts
// the same way, so the per-round ratio stays at 2 while the ratio of overall medians would not
// if the peer had been timed after us.
TEST(Rounds, RatioIsTheMedianOfPerRoundRatiosAndOrderAlternates) {
    double clock = 1.0;
    std::vector<std::string> order;
    runtime::RoundPeer ours{"ours", [&](int n) {
                                order.push_back("ours");
                                std::vector<double> v(size_t(n), clock);
                                clock += 1;
                                return v;
                            }};
    runtime::RoundPeer peer{"peer", [&](int n) {
                                order.push_back("peer");
                                return std::vector<double>(size_t(n), 2 * (clock - 1));
                            }};
    runtime::RoundsResult r = runtime::time_in_rounds({ours, peer}, {4, 3});
    ASSERT_EQ(r.stats.size(), 2u);
    EXPECT_EQ(r.stats[0].n, 12);
    EXPECT_EQ(r.vs_first[1].rounds, 4);
    EXPECT_EQ(order, (std::vector<std::string>{"ours", "peer", "peer", "ours", "ours", "peer", "peer", "ours"}));
    // Rounds 1 and 3 time ours first (peer = 2 x ours); rounds 2 and 4 the peer first, which
    // then reads the clock before ours moves it: 2 x (clock - 1) against clock.
    EXPECT_DOUBLE_EQ(r.vs_first[0].median, 1.0);
    EXPECT_GT(r.vs_first[1].max, r.vs_first[1].min);
    EXPECT_GE(r.vs_first[1].median, r.vs_first[1].min);
    EXPECT_LE(r.vs_first[1].median, r.vs_first[1].max);
}

TEST(Rounds, APeerWithoutSamplesGetsNoRatio) {
    runtime::RoundPeer ours{"ours", [](int n) { return std::vector<double>(size_t(n), 1.0); }};
    runtime::RoundPeer gone{"gone", [](int) { return std::vector<double>{}; }};
    runtime::RoundsResult r = runtime::time_in_rounds({ours, gone}, {3, 2});
    EXPECT_EQ(r.stats[1].n, 0);
    EXPECT_EQ(r.vs_first[1].rounds, 0);
}

TEST(BaselineSpec, ParsesEveryKind) {
    using K = baselines::BaselineSpec::Kind;
    auto s = baselines::parse_baseline_spec("cublas.gemm trans_b");
    EXPECT_EQ(s.kind, K::Cublas);
    EXPECT_TRUE(s.trans_b);
    EXPECT_FALSE(s.trans_a);
    EXPECT_EQ(baselines::parse_baseline_spec("cublaslt.gemm").kind, K::CublasLt);
    EXPECT_EQ(baselines::parse_baseline_spec("cublaslt.gemm_bias_gelu").op, "gemm_bias_gelu");
    s = baselines::parse_baseline_spec("torch: A @ B");
    EXPECT_EQ(s.kind, K::Torch);
    EXPECT_EQ(s.expr, "A @ B");
    EXPECT_EQ(s.compile_mode, "");
    s = baselines::parse_baseline_spec("torch.compile: softmax(X, -1)");
    EXPECT_EQ(s.compile_mode, "default");
    EXPECT_EQ(s.expr, "softmax(X, -1)");
    s = baselines::parse_baseline_spec("torch.compile[max-autotune]: gelu(A @ B + bias)");
    EXPECT_EQ(s.compile_mode, "max-autotune-no-cudagraphs");
    s = baselines::parse_baseline_spec("torch[sdpa=cudnn]: scaled_dot_product_attention(Q, K, V)");
    EXPECT_EQ(s.sdpa, "cudnn");
    EXPECT_EQ(s.compile_mode, "");
}

TEST(BaselineSpec, BadLinesSayWhy) {
    using K = baselines::BaselineSpec::Kind;
    auto bad = [](const char* line) { return baselines::parse_baseline_spec(line); };
    EXPECT_EQ(bad("nosuch").kind, K::Unknown);
    EXPECT_NE(bad("nosuch").error.find("unknown baseline `nosuch`"), std::string::npos);
    EXPECT_NE(bad("torch[sdpa=fast]: X").error.find("unknown SDPA backend `fast`"), std::string::npos);
    EXPECT_NE(bad("torch.compile[mode=fastest]: X").error.find("unknown torch.compile mode"), std::string::npos);
    EXPECT_NE(bad("torch[max-autotune]: X").error.find("unknown option"), std::string::npos);
    EXPECT_NE(bad("torch:   ").error.find("needs an expression"), std::string::npos);
    EXPECT_NE(bad("torch A + B").error.find("has no `:`"), std::string::npos);
    EXPECT_NE(bad("cublas.gemm trans_c").error.find("unknown cuBLAS option `trans_c`"), std::string::npos);
    EXPECT_NE(bad("torch[sdpa=cudnn: X").error.find("unclosed"), std::string::npos);
}

struct FakeTorch : ::testing::Test {
    void use(const char* mode) {
        ::setenv("TILEPLAY_TORCH_WORKER", (std::string("python3 ") + TILEPLAY_SOURCE_DIR "/tests/unit/Inputs/fake_torch_worker.py").c_str(), 1);
        ::setenv("FAKE_TORCH_MODE", mode, 1);
    }
    void TearDown() override {
        ::unsetenv("TILEPLAY_TORCH_WORKER");
        ::unsetenv("FAKE_TORCH_MODE");
    }
};

TEST_F(FakeTorch, StartsOnceAndSkipsNoiseOnStdout) {
    use("ok");
    baselines::TorchWorker w;
    std::string why;
    ASSERT_TRUE(w.ensure_started(why)) << why;
    EXPECT_EQ(w.detail(), "torch 9.9.9 (CUDA 13.0)");
    nlohmann::json r = w.call({{"op", "time"}, {"key", "0"}, {"n", 3}}, 10000);
    ASSERT_TRUE(r.value("ok", false)) << r.dump();
    EXPECT_EQ(r["times_ms"].size(), 3u);
    EXPECT_TRUE(w.ensure_started(why));  // already running: no second hello
    EXPECT_FALSE(w.call({{"op", "bogus"}}, 10000).value("ok", true));
}

TEST_F(FakeTorch, ADeadWorkerIsAReasonAndTheNextCallStartsAnother) {
    use("die");
    baselines::TorchWorker w;
    std::string why;
    ASSERT_TRUE(w.ensure_started(why)) << why;
    nlohmann::json r = w.call({{"op", "time"}, {"key", "0"}, {"n", 1}}, 10000);
    EXPECT_FALSE(r.value("ok", true));
    EXPECT_NE(r.value("why", "").find("simulated crash"), std::string::npos) << r.dump();
    EXPECT_FALSE(w.call({{"op", "hello"}}, 1000).value("ok", true));
    EXPECT_TRUE(w.ensure_started(why)) << why;
}

TEST_F(FakeTorch, ASilentWorkerTimesOut) {
    use("silent");
    baselines::TorchWorker w;
    std::string why;
    ASSERT_TRUE(w.ensure_started(why)) << why;
    nlohmann::json r = w.call({{"op", "time"}, {"key", "0"}, {"n", 1}}, 500);
    EXPECT_FALSE(r.value("ok", true));
    EXPECT_NE(r.value("why", "").find("did not answer"), std::string::npos) << r.dump();
}

TEST(GpuMonitor, ThrottleReasonsHaveNames) {
    EXPECT_TRUE(runtime::throttle_reason_names(0x1).empty());  // idle is not a slowdown
    EXPECT_EQ(runtime::throttle_reason_names(0x4 | 0x40),
              (std::vector<std::string>{"power cap", "thermal (hardware)"}));
}

TEST(GpuMonitor, ConditionsSayWhyTheyAreMissing) {
    runtime::GpuMonitor m("0000:ff:00.0");
    m.start();
    runtime::GpuConditions c = m.stop();
    if (c.available) GTEST_SKIP() << "this machine has NVML and that device";
    EXPECT_FALSE(c.why.empty());
    EXPECT_FALSE(c.to_json().value("available", true));
    EXPECT_NE(c.describe().find("clocks unknown"), std::string::npos);
}

}  // namespace
