// Decoding the timeline buffer and writing it as a Chrome trace (see tileplay/timeline.h).
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "codegen/cuda/runtime/tp_timeline.cuh"
#include "tileplay/timeline.h"

namespace tp {

bool decode_timeline(const std::vector<uint64_t>& words, TimelineData& out, std::string& error) {
    out = {};
    if (words.size() != size_t(tl::kWords)) {
        error = "the timeline buffer has " + std::to_string(words.size()) + " words, not " + std::to_string(tl::kWords);
        return false;
    }
    for (int lane = 0; lane < tl::kLanes; ++lane) {
        const uint64_t n = words[size_t(tl::kCountsAt + lane)];
        const int slot = lane / tl::kRoles, role = lane % tl::kRoles;
        const uint64_t block = words[size_t(tl::kBlocksAt + slot)];
        if (n > 0 && block == 0) {
            error = "lane " + std::to_string(lane) + " has records but its block slot was never written";
            return false;
        }
        const uint64_t kept = std::min<uint64_t>(n, tl::kCapacity);
        out.dropped += int64_t(n - kept);
        std::map<int, int> seen;
        for (uint64_t i = 0; i < kept; ++i) {
            const size_t at = size_t(tl::kRecordsAt) + (size_t(lane) * tl::kCapacity + i) * 2;
            TimelineRecord r;
            r.slot = slot, r.role = role;
            r.begin_ns = words[at];
            r.duration_ns = uint32_t(words[at + 1] & 0xffffffffu);
            r.event = int((words[at + 1] >> 32) & 0xffff);
            r.smid = int((words[at + 1] >> 48) & 0xffff);
            r.block = int64_t(block) - 1;
            r.occurrence = seen[r.event]++;
            out.records.push_back(r);
        }
    }
    return true;
}

std::string timeline_chrome_trace(const TimelineData& data, const std::string& events_json, const std::string& kernel, const std::string& file) {
    using Json = nlohmann::json;
    Json table = Json::parse(events_json, nullptr, false);
    std::map<int, Json> events;
    std::map<int, std::string> role_names;
    if (table.is_object()) {
        for (const auto& e : table.value("events", Json::array())) events[e.value("id", -1)] = e;
        for (const auto& r : table.value("roles", Json::array())) role_names[r.value("role", 0)] = r.value("name", "");
    }
    uint64_t t0 = UINT64_MAX;
    for (const auto& r : data.records) t0 = std::min(t0, r.begin_ns);
    Json out = Json::array();
    std::map<int, bool> process_named;
    std::map<std::pair<int, int>, bool> thread_named;
    for (const auto& r : data.records) {
        // Threads sort by tid: in each block the producer first, then the consumer warpgroups
        // in order (lanes 0, 2, 3), as the pipeline view lists the roles.
        const int order = r.role == 1 ? 0 : r.role == 0 ? 1 : r.role;
        const int tid = r.slot * tl::kRoles + order + 1;
        if (!process_named[r.smid]) {
            process_named[r.smid] = true;
            out.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", r.smid}, {"args", {{"name", "SM " + std::to_string(r.smid)}}}});
            out.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", r.smid}, {"args", {{"sort_index", r.smid}}}});
        }
        if (!thread_named[{r.smid, tid}]) {
            thread_named[{r.smid, tid}] = true;
            const std::string role = role_names.count(r.role) ? role_names[r.role] : "role " + std::to_string(r.role);
            out.push_back({{"name", "thread_name"},
                           {"ph", "M"},
                           {"pid", r.smid},
                           {"tid", tid},
                           {"args", {{"name", "block " + std::to_string(r.block) + " " + role}}}});
            out.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", r.smid}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
        }
        auto it = events.find(r.event);
        const Json e = it != events.end() ? it->second : Json{{"label", "event " + std::to_string(r.event)}, {"kind", "unknown"}};
        out.push_back({{"name", e.value("label", "")},
                       {"cat", e.value("kind", "")},
                       {"ph", "X"},
                       {"pid", r.smid},
                       {"tid", tid},
                       {"ts", double(r.begin_ns - t0) / 1000.0},
                       {"dur", double(r.duration_ns) / 1000.0},
                       {"args",
                        {{"line", e.value("line", 0)},
                         {"kind", e.value("kind", "")},
                         {"event", r.event},
                         {"iteration", r.occurrence},
                         {"waits", e.value("waits", false)},
                         {"block", r.block}}}});
    }
    Json trace = {{"traceEvents", out},
                  {"displayTimeUnit", "ns"},
                  {"otherData",
                   {{"kernel", kernel},
                    {"file", file},
                    {"clock", "%globaltimer (ns), times from the earliest stamp"},
                    {"sampled_blocks", tl::kBlocks},
                    {"records", data.records.size()},
                    {"dropped", data.dropped}}}};
    return trace.dump(1);
}

}  // namespace tp
