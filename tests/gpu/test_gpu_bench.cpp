// GPU tests of `bench`'s method (issue: benchmarks that can be trusted). A GEMM that skips
// its last K tile passes the interpreter check (the code does what the DSL says) but must fail
// the semantic check against cuBLAS and torch, whose outputs are their own; the correct GEMM
// agrees with both. Peers alternate with ours in rounds, torch.compile and a fixed SDPA
// backend run in the torch worker, and every result records the GPU's clocks.
#include <gtest/gtest.h>

#include "gpu_test_util.h"

using namespace gpu_test;

namespace {

tp::LoadSpec gemm_file(const std::string& path) {
    tp::LoadSpec s = sample("gemm.py", {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}});
    s.path = path;
    return s;
}

tp::BenchSpec gemm_bench() {
    tp::BenchSpec b;
    b.iters = 10;
    b.warmup = 2;
    b.flops = 2.0 * 1024 * 1024 * 1024;
    b.baselines = {"cublas.gemm", "torch: A @ B"};
    return b;
}

const tp::Json& peer(const tp::WorkerReply& r, size_t i) { return r.body["baselines"][i]; }

TEST(GpuBench, WrongKernelFailsTheSemanticCheckAgainstEveryPeer) {
    tp::WorkerClient c;
    auto l = c.load(gemm_file(source_dir() + "/tests/gpu/data/gemm_skips_last_k_tile.py"));
    ASSERT_TRUE(l.ok) << l.error;
    auto r = c.bench(gemm_bench());
    ASSERT_TRUE(r.ok) << r.error;
    std::printf("wrong gemm: check %s\n  semantics %s\n  cublas %s\n  torch %s\n", r.body["check"].dump().c_str(),
                r.body.value("semantics", tp::Json()).dump().c_str(), peer(r, 0).dump().c_str(), peer(r, 1).dump().c_str());
    // The interpreter runs the same wrong DSL: the code generator is not at fault.
    EXPECT_TRUE(r.body["check"].value("ok", false));
    // Each peer wrote its own output, so each sees the missing K tile.
    const tp::Json& cublas = peer(r, 0);
    EXPECT_FALSE(cublas.value("vs_ours", tp::Json::object()).value("agree", true)) << cublas.dump();
    EXPECT_GT(cublas.value("vs_ours", tp::Json::object()).value("rel_fro", 0.0), 0.05) << cublas.dump();
    const tp::Json& torch = peer(r, 1);
    if (torch.value("ok", false)) {
        EXPECT_FALSE(torch["vs_ours"].value("agree", true)) << torch.dump();
        EXPECT_GT(torch["vs_ours"].value("rel_fro", 0.0), 0.05) << torch.dump();
    }
    const tp::Json sem = r.body.value("semantics", tp::Json::object());
    EXPECT_TRUE(sem.value("checked", false)) << sem.dump();
    EXPECT_FALSE(sem.value("ok", true)) << sem.dump();
    if (!torch.value("ok", false)) GTEST_SKIP() << "torch: " << torch.value("why", "");
}

TEST(GpuBench, CorrectKernelAgreesAndPeersAlternateInRounds) {
    tp::WorkerClient c;
    auto l = c.load(gemm_file(source_dir() + "/samples/gemm.py"));
    ASSERT_TRUE(l.ok) << l.error;
    auto r = c.bench(gemm_bench());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_TRUE(r.body["check"].value("ok", false));
    EXPECT_TRUE(r.body["semantics"].value("ok", false)) << r.body["semantics"].dump();
    const tp::Json& cublas = peer(r, 0);
    ASSERT_TRUE(cublas.value("ok", false)) << cublas.dump();
    EXPECT_TRUE(cublas["vs_ours"].value("agree", false)) << cublas.dump();
    EXPECT_EQ(cublas.value("rounds", 0), r.body["timing"].value("rounds", -1));
    EXPECT_GE(cublas.value("ratio", 0.0), cublas.value("ratio_min", 1.0));
    EXPECT_LE(cublas.value("ratio", 0.0), cublas.value("ratio_max", 0.0));
    ASSERT_TRUE(r.body["best_peer"].is_object()) << r.body.dump();
    std::printf("timing %s\nconditions %s\nbest %s\n", r.body["timing"].dump().c_str(), r.body["conditions"].dump().c_str(),
                r.body["best_peer"].dump().c_str());
    // The H200's driver ships NVML: the clocks and power of the run are on the record.
    EXPECT_TRUE(r.body["conditions"].value("available", false)) << r.body["conditions"].dump();
    if (peer(r, 1).value("ok", false)) {
        EXPECT_TRUE(peer(r, 1)["vs_ours"].value("agree", false)) << peer(r, 1).dump();
        EXPECT_EQ(peer(r, 1).value("method", ""), "cuda graph replay");
    }
}

TEST(GpuBench, TorchCompileAndAFixedSdpaBackendRunInTheTorchWorker) {
    tp::WorkerClient c;
    auto l = c.load(sample("softmax.py", {{"M", "1024"}, {"N", "4096"}}));
    ASSERT_TRUE(l.ok) << l.error;
    tp::BenchSpec b;
    b.iters = 6;
    b.warmup = 2;
    b.bytes = 2.0 * 2 * 1024 * 4096;
    b.baselines = {"torch.compile: softmax(X, -1)", "torch[sdpa=nosuch]: X"};
    auto r = c.bench(b);
    ASSERT_TRUE(r.ok) << r.error;
    std::printf("softmax vs torch.compile: %s\n", r.body["baselines"].dump().c_str());
    const tp::Json& tc = peer(r, 0);
    if (!tc.value("ok", false) && tc.value("why", "").find("torch") != std::string::npos &&
        tc.value("why", "").find("import") != std::string::npos)
        GTEST_SKIP() << tc.value("why", "");
    ASSERT_TRUE(tc.value("ok", false)) << tc.dump();
    EXPECT_GT(tc.value("compile_ms", 0.0), 0.0);
    EXPECT_TRUE(tc["vs_ours"].value("agree", false)) << tc.dump();
    EXPECT_FALSE(peer(r, 1).value("ok", true));
    EXPECT_NE(peer(r, 1).value("why", "").find("nosuch"), std::string::npos) << peer(r, 1).dump();

    auto la = c.load(sample("flash_attention.py", {{"heads", "4"}, {"seq_q", "512"}, {"seq_kv", "512"}, {"dim", "64"}}));
    ASSERT_TRUE(la.ok) << la.error;
    tp::BenchSpec fb;
    fb.iters = 4;
    fb.warmup = 1;
    fb.baselines = {"torch[sdpa=cudnn]: scaled_dot_product_attention(Q, K, V)",
                    "torch[sdpa=flash]: scaled_dot_product_attention(Q, K, V)"};
    auto fr = c.bench(fb);
    ASSERT_TRUE(fr.ok) << fr.error;
    std::printf("attention vs SDPA backends: %s\n", fr.body["baselines"].dump().c_str());
    for (size_t i = 0; i < 2; ++i) {
        ASSERT_TRUE(peer(fr, i).value("ok", false)) << peer(fr, i).dump();
        EXPECT_TRUE(peer(fr, i)["vs_ours"].value("agree", false)) << peer(fr, i).dump();
    }
}

}  // namespace
