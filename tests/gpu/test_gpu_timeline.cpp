// Measured timelines on the GPU (`tilec run --timeline`): samples/gemm.py on the device's own
// target (cp.async on sm_80, the TMA producer and wgmma consumers on Hopper) and flash attention
// on Hopper run with their pipeline events stamped. The stamped run still matches the CPU
// interpreter (stamps must not change results), and its trace has, per SM and lane (sampled
// block and role), slices in program order that do not overlap (each event ends before the
// lane's next one starts: one recording thread), durations that are not negative, event kinds
// of the role (the producer loads and acquires; the consumer or block waits), DSL lines, and on
// Hopper a lane of its own for the second consumer warpgroup.
#include <gtest/gtest.h>

#include <map>

#include "gpu_test_util.h"
#include "tileplay/worker_client.h"

using namespace gpu_test;

namespace {

void check_trace(const tp::Json& body, bool warp_specialised) {
    ASSERT_TRUE(body.contains("timeline")) << body.value("timeline_note", body.dump().substr(0, 400));
    const tp::Json& tl = body["timeline"];
    ASSERT_FALSE(tl.contains("error")) << tl.dump();
    ASSERT_GT(tl.value("records", 0), 0);
    std::map<std::pair<int, int>, std::vector<tp::Json>> lanes;
    std::map<std::pair<int, int>, std::string> names;
    for (const auto& e : tl["trace"]["traceEvents"]) {
        const std::pair<int, int> key{e.value("pid", -1), e.value("tid", -1)};
        if (e["ph"] == "M" && e["name"] == "thread_name") names[key] = e["args"]["name"];
        if (e["ph"] == "X") lanes[key].push_back(e);
    }
    ASSERT_FALSE(lanes.empty());
    bool producer_loads = false, waits = false, second_warpgroup = false;
    for (const auto& [key, slices] : lanes) {
        ASSERT_TRUE(names.count(key)) << "a lane without a thread name";
        const std::string& lane = names[key];
        second_warpgroup |= lane.find("consumer wg1") != std::string::npos;
        double end = -1;
        std::map<int, int> last_iteration;
        for (const auto& s : slices) {
            const double ts = s["ts"].get<double>(), dur = s["dur"].get<double>();
            EXPECT_GE(dur, 0.0);
            EXPECT_GE(ts, end - 1e-3) << lane << ": " << s["name"] << " starts before the previous event ended";
            end = ts + dur;
            EXPECT_GT(s["args"].value("line", 0), 0) << s.dump();
            // Occurrences of one event count up along the lane.
            const int ev = s["args"].value("event", -1), it = s["args"].value("iteration", -1);
            if (last_iteration.count(ev)) {
                EXPECT_EQ(it, last_iteration[ev] + 1);
            }
            last_iteration[ev] = it;
            const std::string kind = s["args"].value("kind", "");
            if (lane.find("producer") != std::string::npos) {
                producer_loads |= kind == "tma_load";
                EXPECT_TRUE(kind == "tma_load" || kind == "acquire") << lane << ": " << kind;
            }
            waits |= s["args"].value("waits", false);
        }
    }
    EXPECT_EQ(producer_loads, warp_specialised);
    // Both samples have two consumer warpgroups when warp-specialised: each records its own lane.
    EXPECT_EQ(second_warpgroup, warp_specialised);
    EXPECT_TRUE(waits);
}

void run_stamped(tp::LoadSpec ls, bool warp_specialised) {
    ls.pass_configs.emplace_back("tp.timeline", "true");
    tp::WorkerClient c;
    auto l = c.load(ls);
    ASSERT_TRUE(l.ok) << l.error;
    tp::RunSpec rs;
    rs.check_blocks = 8;
    auto r = c.run(rs);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.body.contains("check"));
    EXPECT_TRUE(r.body["check"].value("ok", false)) << r.body["check"].dump();
    check_trace(r.body, warp_specialised);
}

}  // namespace

TEST(GpuTimeline, GemmOnTheDevicesTarget) {
    tp::WorkerClient probe;
    const bool hopper = on_hopper(probe);
    probe.shutdown();
    // 4096^3: a grid two waves deep, so the 128-thread tiles pair up as two consumer warpgroups
    // on Hopper (consumer groups); at 2048^3 one warpgroup runs each block and has one lane.
    run_stamped(sample("gemm.py", {{"M", "4096"}, {"N", "4096"}, {"K", "4096"}}), hopper);
}

TEST(GpuTimeline, GemmCpAsyncWithoutWarpRoles) {
    // sm_90 (not sm_90a): mma.sync on a cp.async pipeline, a cubin the Hopper GPU loads (an
    // sm_80 cubin does not load on sm_90: CUDA_ERROR_NO_BINARY_FOR_GPU).
    tp::LoadSpec ls = sample("gemm.py", {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}, {"num_stages", "3"}});
    ls.target = "sm_90";
    run_stamped(ls, false);
}

TEST(GpuTimeline, FlashAttentionOnHopper) {
    tp::WorkerClient probe;
    if (!on_hopper(probe)) GTEST_SKIP() << "not a Hopper GPU";
    probe.shutdown();
    run_stamped(sample("flash_attention.py", {{"block_N", "128"}, {"seq_q", "1024"}, {"seq_kv", "1024"}}), true);
}
