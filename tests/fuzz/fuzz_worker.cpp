// libFuzzer target for the worker protocol, both ends. Each line of the input is a request
// for the worker's loop (handle_line, as `tilec worker` gets it on stdin) and also a message
// the client may get back: it goes through the client's checks, and a reply or event they
// accept is then read the way `tilec run`, bench, sweep and tune read it, which must not
// throw. Crashes, hangs, sanitizer reports and such throws are bugs.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "worker/json_limits.h"
#include "worker/reply_schema.h"
#include "worker/server.h"

namespace {

using Json = nlohmann::json;

// The reads callers make of an accepted reply (app/cli/cmd_*.cpp, core/tune, the client).
void read_like_callers(const std::string& op, const Json& j) {
    bool ok = j.value("ok", false);
    (void)j.value("kind", std::string("error"));
    (void)j.value("error", std::string());
    (void)j.value("fatal", false);
    if (j.contains("printed")) (void)j["printed"].get<std::string>();
    if (op == "hello" && ok) {
        const Json& d = j.at("device");
        if (!d.is_null()) (void)(d.value("name", std::string("gpu")) + d.value("target", "") + d.value("arch", ""));
        (void)(j.value("why", std::string()) + j.value("driver", ""));
    } else if (op == "load" && ok) {
        const Json& k = j.at("kernel");
        (void)k.value("factory", k.value("name", std::string()));
        for (auto it = k.at("bound_params").begin(); it != k.at("bound_params").end(); ++it)
            (void)it.value().get<std::string>();
        (void)j.value("target", std::string());
    } else if (op == "run") {
        (void)j.value("wall_ms", 0.0);
        if (j.contains("check")) (void)j["check"].value("ok", false);
    } else if (op == "bench") {
        const Json ours = j.value("ours", Json::object());
        (void)(ours.value("median_ms", 0.0) + ours.value("min_ms", 0.0) + ours.value("spread_pct", 0.0) +
               ours.value("tflops", 0.0) + ours.value("gbps", 0.0));
        const Json check = j.value("check", Json::object());
        (void)check.value("ok", false);
        if (check.contains("outputs"))
            for (const auto& o : check["outputs"])
                (void)(o.value("pass", true) + o.value("rel_fro", 0.0) + o.value("tol", 0.0) + o.value("name", "").size());
    }
}

void client_side(const std::string& line) {
    if (line.empty() || line[0] != '{') return;  // the client skips stray lines
    if (tp::worker::json_nesting(line) > tp::worker::kMaxJsonDepth) return;
    Json msg = Json::parse(line, nullptr, false);
    if (msg.is_discarded() || !msg.is_object()) return;
    try {
        if (msg.contains("event")) {
            if (!tp::worker::event_type_error(msg)) {
                (void)msg.value("stage", std::string());
                (void)(msg.value("done", 0) + msg.value("total", 0));
            }
            return;
        }
        for (const char* op : {"hello", "load", "run", "bench", "shutdown"})
            if (!tp::worker::reply_type_error(op, msg)) read_like_callers(op, msg);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "a reply the client accepted could not be read: %s\n", e.what());
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static std::FILE* sink = std::fopen("/dev/null", "w");
    static tp::worker::Emitter em(sink);
    std::string text(reinterpret_cast<const char*>(data), size);
    int exit_code = -1;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t nl = text.find('\n', pos);
        std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        if (exit_code < 0) tp::worker::handle_line(line, em, exit_code);
        client_side(line);
        if (nl == std::string::npos) break;
        pos = nl + 1;
    }
    return 0;
}
