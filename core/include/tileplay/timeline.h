// Measured timelines of pipelined loops (`tilec run --timeline FILE`): the buffer of
// %globaltimer stamps the kernel's stamped events left on the GPU (layout in
// codegen/cuda/runtime/tp_timeline.cuh), decoded, and written as a Chrome trace (chrome://tracing,
// Perfetto): one process per SM, one thread per sampled block and warp role, a complete ("X")
// slice per event with its DSL line, kind, occurrence and whether the role waited there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tp {

struct TimelineRecord {
    int slot = 0, role = 0, event = 0;  // sampled block slot, role lane, event id (the pass's table)
    uint64_t begin_ns = 0;              // %globaltimer at the event's start
    uint32_t duration_ns = 0;
    int smid = 0;
    int64_t block = -1;  // the sampled block's linear index
    int occurrence = 0;  // how many times this lane recorded the same event before (the iteration)
};

struct TimelineData {
    std::vector<TimelineRecord> records;  // per lane in program order, lanes in order
    int64_t dropped = 0;                  // events past a lane's capacity, counted but not kept
};

// Decodes the device buffer (64-bit words, tp_timeline.cuh's layout). Fails (false, `error`)
// when the buffer is not that size or a count is corrupt.
bool decode_timeline(const std::vector<uint64_t>& words, TimelineData& out, std::string& error);

// The Chrome trace JSON of decoded records; `events_json` is the pass's table (the lowered
// function's `tp.timeline_events` attribute: roles and events). Times in microseconds from the
// earliest stamp. `kernel` and `file` name the trace.
std::string timeline_chrome_trace(const TimelineData& data, const std::string& events_json, const std::string& kernel, const std::string& file);

}  // namespace tp
