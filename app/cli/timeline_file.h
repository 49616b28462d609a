// `--timeline FILE` of `tilec run` and `tilec bench`: the kernel compiled with `tp.timeline`
// (globaltimer stamps at its pipeline events, runtime/tp_timeline.cuh) runs once on the GPU
// worker, and the Chrome trace of the stamps it answers with is written to FILE.
#pragma once

#include <string>

#include "tileplay/worker_client.h"

namespace tilec {

// The pass config that turns the stamps on.
inline const char* kTimelineConfig = "tp.timeline";

// Writes the trace of a `run` reply; false with `message` saying why there is none.
bool write_timeline(const tp::WorkerReply& run, const std::string& path, std::string& message);

// Loads `ls` again with the stamps on, runs it once (checked against the interpreter: stamps
// must not change results) and writes the trace: bench's timeline, apart from its timed runs.
bool capture_timeline(tp::WorkerClient& client, tp::LoadSpec ls, const std::string& path, std::string& message);

}  // namespace tilec
