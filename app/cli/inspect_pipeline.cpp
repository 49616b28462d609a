// `tilec inspect --pipeline` (see inspect_pipeline.h).
#include "inspect_pipeline.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "tileplay/pipeline_view.h"

namespace tilec {

namespace {

using Json = nlohmann::json;

Json event_json(const tp::PipeEvent& e) {
    return {{"kind", tp::pipe_event_kind_name(e.kind)},
            {"label", e.label},
            {"line", e.span.begin.line},
            {"col", e.span.begin.col},
            {"buffer", e.buffer},
            {"slot", e.slot},
            {"guard", e.guard},
            {"waits", e.waits},
            {"async", e.async},
            {"code", e.code}};
}

Json events_json(const std::vector<tp::PipeEvent>& es) {
    Json j = Json::array();
    for (const auto& e : es) j.push_back(event_json(e));
    return j;
}

Json report_json(const tp::PipelineReport& r) {
    Json loops = Json::array();
    for (const auto& l : r.loops) {
        Json roles = Json::array(), buffers = Json::array();
        for (const auto& b : l.buffers) buffers.push_back({{"name", b.name}, {"slots", b.depth}});
        for (const auto& ro : l.roles)
            roles.push_back({{"name", ro.name},
                             {"who", ro.who},
                             {"first_thread", ro.first_thread},
                             {"threads", ro.threads},
                             {"regs", ro.regs},
                             {"loop", ro.loop},
                             {"prologue", events_json(ro.prologue)},
                             {"steady", events_json(ro.steady)},
                             {"epilogue", events_json(ro.epilogue)},
                             {"waits_on", ro.waits_on}});
        loops.push_back({{"line", l.span.begin.line},
                         {"var", l.var},
                         {"extent", l.extent},
                         {"num_stages", l.num_stages},
                         {"launch", l.launch},
                         {"scheme", l.scheme},
                         {"buffers", buffers},
                         {"notes", l.notes},
                         {"roles", roles}});
    }
    return {{"kernel", r.kernel}, {"target", r.target}, {"loops", loops}};
}

void print_events(const char* title, const std::vector<tp::PipeEvent>& es, const std::string& file, bool all) {
    if (es.empty()) return;
    std::printf("    %s:\n", title);
    for (const auto& e : es) {
        if (!all && e.kind == tp::PipeEventKind::Scalar) continue;
        std::printf("      %s:%u:%u: %-20s %s", file.c_str(), e.span.begin.line, e.span.begin.col, tp::pipe_event_kind_name(e.kind), e.label.c_str());
        if (!e.slot.empty()) std::printf(" [slot %s]", e.slot.c_str());
        if (e.waits) std::printf(" <waits>");
        if (!e.guard.empty()) std::printf(" when %s", e.guard.c_str());
        std::printf("\n");
    }
}

void print_report(const tp::PipelineReport& r, const PipelineArgs& a) {
    const std::string file = r.file ? r.file->path() : a.file;
    std::printf("pipelines of %s for %s: %zu T.Pipelined loop(s)\n", r.kernel.c_str(), r.target.c_str(), r.loops.size());
    for (const auto& l : r.loops) {
        std::printf("\nloop %s at %s:%u: %s iterations, num_stages=%d\n  %s\n", l.var.c_str(), file.c_str(), l.span.begin.line, l.extent.c_str(),
                    l.num_stages, l.scheme.c_str());
        for (const auto& n : l.notes) std::printf("  note: %s\n", n.c_str());
        for (const auto& b : l.buffers) std::printf("  %s: %lld slots\n", b.name.c_str(), (long long)b.depth);
        for (const auto& ro : l.roles) {
            std::printf("  role %s: %s\n", ro.name.c_str(), ro.who.c_str());
            if (!ro.loop.empty()) std::printf("    lowered loop: %s\n", ro.loop.c_str());
            print_events("before the loop", ro.prologue, file, a.all);
            print_events("each iteration", ro.steady, file, a.all);
            print_events("after the loop", ro.epilogue, file, a.all);
            for (const auto& w : ro.waits_on) std::printf("    waits on: %s\n", w.c_str());
        }
    }
}

}  // namespace

int run_inspect_pipeline(const PipelineArgs& a, const std::string& source) {
    tp::CompileRequest req = make_request(a.file, source, a.kernel, a.defines, a.target, false);
    tp::PipelineReport r = tp::inspect_pipeline(req);
    if (!r.ok) return inspect_failed(a.file, a.json, r.error, r.diagnostics, r.file.get());
    if (a.json) {
        Json j = report_json(r);
        j["file"] = a.file;
        j["ok"] = true;
        std::printf("%s\n", j.dump(1).c_str());
    } else {
        print_report(r, a);
    }
    return kOk;
}

}  // namespace tilec
