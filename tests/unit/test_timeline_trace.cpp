// The measured timeline's host side without a GPU: a synthetic device buffer in
// tp_timeline.cuh's layout (two sampled blocks, a producer lane and two consumer warpgroup lanes, a
// lane past its capacity) decoded and written as a Chrome trace (one process per SM, one thread per block and
// role, slices in microseconds from the earliest stamp, named from the pass's event table); the
// stamps pass on samples/gemm.py (every stamp in a role's issuing thread, the table's lines) and
// the CUDA without `tp.timeline` equal to the CUDA with it off.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "codegen/cuda/runtime/tp_timeline.cuh"
#include "ir/ir.h"
#include "tileplay/compiler.h"
#include "tileplay/sample_header.h"
#include "tileplay/timeline.h"

using namespace tp;
using Json = nlohmann::json;

namespace {

struct TraceBuffer {
    std::vector<uint64_t> w = std::vector<uint64_t>(size_t(tl::kWords), 0);
    void record(int slot, int role, uint64_t begin, uint64_t dur, int event, int smid) {
        const int lane = slot * tl::kRoles + role;
        uint64_t& n = w[size_t(tl::kCountsAt + lane)];
        if (n < uint64_t(tl::kCapacity)) {
            const size_t at = size_t(tl::kRecordsAt) + (size_t(lane) * tl::kCapacity + n) * 2;
            w[at] = begin;
            w[at + 1] = dur | (uint64_t(event) << 32) | (uint64_t(smid) << 48);
        }
        ++n;
    }
};

const char* kTable = R"({"roles": [{"role": 0, "name": "consumer wg0", "recorder": 0}, {"role": 2, "name": "consumer wg1", "recorder": 128},
           {"role": 1, "name": "producer", "recorder": 256}],
 "events": [{"id": 0, "role": 1, "kind": "tma_load", "label": "TMA load A_shared", "line": 43, "col": 17, "waits": false},
            {"id": 1, "role": 0, "kind": "mbarrier_wait", "label": "wait full mbarrier", "line": 43, "col": 17, "waits": true}]})";

std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

TEST(TimelineTrace, DecodesASyntheticBuffer) {
    TraceBuffer b;
    b.w[size_t(tl::kBlocksAt + 0)] = 1;   // slot 0: block 0
    b.w[size_t(tl::kBlocksAt + 2)] = 65;  // slot 2: block 64
    b.record(0, 1, 1'000'000, 400, 0, 7);
    b.record(0, 0, 1'000'100, 900, 1, 7);
    b.record(0, 1, 1'000'500, 300, 0, 7);
    b.record(2, 0, 1'002'000, 50, 1, 9);
    b.record(0, 2, 1'000'200, 1'500, 1, 7);  // the second consumer warpgroup waits longer
    TimelineData d;
    std::string error;
    ASSERT_TRUE(decode_timeline(b.w, d, error)) << error;
    ASSERT_EQ(d.records.size(), 5u);
    EXPECT_EQ(d.dropped, 0);
    // Lanes in order: slot 0 consumer wg0, producer (two occurrences of event 0), consumer wg1;
    // slot 2.
    EXPECT_EQ(d.records[0].role, 0);
    EXPECT_EQ(d.records[1].role, 1);
    EXPECT_EQ(d.records[1].occurrence, 0);
    EXPECT_EQ(d.records[2].occurrence, 1);
    EXPECT_EQ(d.records[2].duration_ns, 300u);
    EXPECT_EQ(d.records[3].role, 2);
    EXPECT_EQ(d.records[3].occurrence, 0);  // its own lane counts its own occurrences
    EXPECT_EQ(d.records[4].block, 64);
    EXPECT_EQ(d.records[4].smid, 9);

    Json t = Json::parse(timeline_chrome_trace(d, kTable, "matmul", "gemm.py"));
    std::map<std::string, int> names;
    std::vector<Json> slices;
    for (const auto& e : t["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "process_name") names[e["args"]["name"]] = e["pid"];
        if (e["ph"] == "M" && e["name"] == "thread_name") names[e["args"]["name"]] = e["tid"];
        if (e["ph"] == "X") slices.push_back(e);
    }
    EXPECT_EQ(names.count("SM 7"), 1u);
    EXPECT_EQ(names.count("SM 9"), 1u);
    EXPECT_EQ(names.count("block 0 producer"), 1u);
    EXPECT_EQ(names.count("block 0 consumer wg0"), 1u);
    EXPECT_EQ(names.count("block 0 consumer wg1"), 1u);
    EXPECT_EQ(names.count("block 64 consumer wg0"), 1u);
    EXPECT_NE(names["block 0 consumer wg0"], names["block 0 consumer wg1"]);
    ASSERT_EQ(slices.size(), 5u);
    const Json& load = slices[1];
    EXPECT_EQ(load["name"], "TMA load A_shared");
    EXPECT_EQ(load["cat"], "tma_load");
    EXPECT_EQ(load["pid"], 7);
    EXPECT_DOUBLE_EQ(load["ts"].get<double>(), 0.0);  // the earliest stamp
    EXPECT_DOUBLE_EQ(load["dur"].get<double>(), 0.4);
    EXPECT_EQ(load["args"]["line"], 43);
    EXPECT_DOUBLE_EQ(slices[0]["ts"].get<double>(), 0.1);
    EXPECT_EQ(slices[0]["args"]["waits"], true);
    EXPECT_EQ(slices[2]["args"]["iteration"], 1);
    EXPECT_NE(slices[0]["tid"], slices[1]["tid"]);  // one thread per role
    EXPECT_EQ(t["otherData"]["kernel"], "matmul");
}

TEST(TimelineTrace, CountsWhatALaneCouldNotKeepAndRefusesBadBuffers) {
    TraceBuffer b;
    b.w[size_t(tl::kBlocksAt + 1)] = 3;
    for (int i = 0; i < tl::kCapacity + 5; ++i) b.record(1, 0, 1000 + uint64_t(i) * 10, 5, 1, 0);
    TimelineData d;
    std::string error;
    ASSERT_TRUE(decode_timeline(b.w, d, error)) << error;
    EXPECT_EQ(d.records.size(), size_t(tl::kCapacity));
    EXPECT_EQ(d.dropped, 5);
    EXPECT_EQ(d.records.back().occurrence, tl::kCapacity - 1);
    EXPECT_FALSE(decode_timeline(std::vector<uint64_t>(10), d, error));
    EXPECT_NE(error.find("words"), std::string::npos);
    TraceBuffer orphan;
    orphan.record(0, 0, 1, 1, 0, 0);  // records, but no block written for the slot
    EXPECT_FALSE(decode_timeline(orphan.w, d, error));
}

TEST(TimelineStamps, StampsEachRoleOnItsIssuingThreadAndLeavesCodeAloneWithout) {
    CompileRequest req;
    req.path = TILEPLAY_SOURCE_DIR "/samples/gemm.py";
    req.source = read(req.path);
    req.fallback_defines = parse_sample_header(req.source).args;
    req.target = "sm_90a";
    req.stop_after = Stage::Cuda;
    CompileResult plain = compile(req);
    ASSERT_TRUE(plain.ok);
    EXPECT_EQ(plain.cuda.find("tl_"), std::string::npos);
    req.pass_configs = {{"tp.timeline", "false"}};
    EXPECT_EQ(compile(req).cuda, plain.cuda);
    req.pass_configs = {{"tp.timeline", "true"}};
    CompileResult st = compile(req);
    ASSERT_TRUE(st.ok);
    ASSERT_EQ(st.lowered_launches.size(), 1u);
    auto it = st.lowered_launches[0]->attrs.find("tp.timeline_events");
    ASSERT_NE(it, st.lowered_launches[0]->attrs.end());
    Json table = Json::parse(it->second);
    // The producer and a lane for each of the two consumer warpgroups (256 consumer threads).
    ASSERT_EQ(table["roles"].size(), 3u);
    std::map<int, Json> lanes;
    for (const auto& r : table["roles"]) lanes[r["role"].get<int>()] = r;
    EXPECT_EQ(lanes[0]["name"], "consumer wg0");
    EXPECT_EQ(lanes[2]["name"], "consumer wg1");
    EXPECT_EQ(lanes[2]["recorder"], 128);
    EXPECT_EQ(lanes[1]["name"], "producer");
    int producer_loads = 0, consumer_waits = 0;
    for (const auto& e : table["events"]) {
        if (e["role"] == 1 && e["kind"] == "tma_load") {
            ++producer_loads;
            EXPECT_TRUE(e["line"] == 43 || e["line"] == 44);
        }
        if (e["role"] == 0 && e["kind"] == "mbarrier_wait") {
            ++consumer_waits;
            EXPECT_EQ(e["line"], 43);
        }
    }
    EXPECT_GE(producer_loads, 2);
    EXPECT_EQ(consumer_waits, 1);
    // The producer's events run on its one issuing thread (`tx == 256`), so it records them.
    EXPECT_NE(st.cuda.find("tp::tl_record(1, 0, 256, 1, "), std::string::npos);
    // The consumers' on the first thread of each warpgroup.
    EXPECT_NE(st.cuda.find(", 0, 2, tp_tl_t"), std::string::npos);
    EXPECT_NE(st.cuda.find("#include \"tp_timeline.cuh\""), std::string::npos);
    // Every record follows its own start stamp.
    size_t stamps = 0, records = 0;
    for (size_t p = st.cuda.find("tp::tl_now()"); p != std::string::npos; p = st.cuda.find("tp::tl_now()", p + 1)) ++stamps;
    for (size_t p = st.cuda.find("tp::tl_record("); p != std::string::npos; p = st.cuda.find("tp::tl_record(", p + 1)) ++records;
    EXPECT_EQ(stamps, records);
    EXPECT_EQ(records, table["events"].size());
}
