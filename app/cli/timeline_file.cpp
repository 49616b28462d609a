// `--timeline FILE` (see timeline_file.h).
#include "timeline_file.h"

#include <fstream>

namespace tilec {

bool write_timeline(const tp::WorkerReply& run, const std::string& path, std::string& message) {
    if (!run.ok) {
        message = "the run failed: " + run.error;
        return false;
    }
    const tp::Json& b = run.body;
    if (!b.contains("timeline")) {
        message = b.value("timeline_note", std::string("the kernel has no pipeline events to stamp (no TMA, cp.async, mbarrier, wgmma or barrier)"));
        return false;
    }
    const tp::Json& t = b["timeline"];
    if (t.contains("error")) {
        message = "the timeline buffer could not be read: " + t.value("error", "");
        return false;
    }
    std::ofstream out(path);
    out << t["trace"].dump(1) << "\n";
    if (!out) {
        message = "cannot write " + path;
        return false;
    }
    message = "timeline: " + std::to_string(t.value("records", 0)) + " events of the sampled blocks written to " + path +
              (t.value("dropped", 0) > 0 ? " (" + std::to_string(t.value("dropped", 0)) + " past the buffer not kept)" : "") +
              "; open it in chrome://tracing or ui.perfetto.dev, or in the playground's Pipeline dock";
    return true;
}

bool capture_timeline(tp::WorkerClient& client, tp::LoadSpec ls, const std::string& path, std::string& message) {
    ls.pass_configs.emplace_back(kTimelineConfig, "true");
    tp::WorkerReply lr = client.load(ls);
    if (!lr.ok) {
        message = "the stamped kernel did not load: " + lr.error;
        return false;
    }
    tp::RunSpec rs;
    rs.check = true;
    tp::WorkerReply rr = client.run(rs);
    if (!write_timeline(rr, path, message)) return false;
    if (rr.body.contains("check") && !rr.body["check"].value("ok", false))
        message += "; warning: the stamped run's check against the interpreter failed";
    return true;
}

}  // namespace tilec
