// Timeline buffers around a run (see timeline_capture.h).
#include "worker/timeline_capture.h"

#include "ir/ir.h"
#include "runtime/device.h"
#include "tileplay/timeline.h"

namespace tp::worker {

TimelineCapture start_timeline(const KernelSession& s) {
    TimelineCapture c;
    if (!s.compiled || !s.kernel) return c;
    int stamped = 0;
    for (const auto& l : s.compiled->lowered_launches) {
        auto it = l->attrs.find("tp.timeline_events");
        if (it == l->attrs.end()) continue;
        if (stamped++ == 0) c.events = it->second;
    }
    if (c.events.empty()) return c;
    if (stamped > 1) {
        // The launches share the module's one buffer and number their events from 0 each.
        c.note = "the kernel function has " + std::to_string(stamped) + " stamped launches; timelines read kernels of one T.Kernel launch";
        c.events.clear();
        return c;
    }
    if (!s.kernel->global("tp_timeline", c.ptr, c.bytes)) {
        c.note = "the module has no timeline buffer (or the driver has no cuModuleGetGlobal)";
        c.ptr = 0;
        return c;
    }
    runtime::cu_check(runtime::cuda_driver().cuMemsetD8(c.ptr, 0, c.bytes), "cuMemsetD8 (timeline)");
    return c;
}

nlohmann::json finish_timeline(const TimelineCapture& c, const KernelSession& s) {
    if (!c.armed()) return nullptr;
    std::vector<uint64_t> words(c.bytes / sizeof(uint64_t));
    runtime::cu_check(runtime::cuda_driver().cuMemcpyDtoH(words.data(), c.ptr, words.size() * sizeof(uint64_t)), "cuMemcpyDtoH (timeline)");
    TimelineData data;
    std::string error;
    if (!decode_timeline(words, data, error)) return {{"error", error}};
    const std::string file = s.compiled->file ? s.compiled->file->path() : "";
    return {{"trace", nlohmann::json::parse(timeline_chrome_trace(data, c.events, s.info().factory, file))},
            {"records", data.records.size()},
            {"dropped", data.dropped}};
}

}  // namespace tp::worker
