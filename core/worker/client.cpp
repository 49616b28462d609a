// WorkerClient: spawns `tilec worker`, exchanges JSON lines, and turns a hang or a death into
// a reply instead of taking the caller down; see tileplay/worker_client.h.
#include "tileplay/worker_client.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <optional>

#include "worker/json_limits.h"
#include "worker/reply_schema.h"
#include "worker/subprocess.h"

#ifndef TILEPLAY_VERSION
#define TILEPLAY_VERSION "dev"
#endif

namespace tp {

namespace {

using Clock = std::chrono::steady_clock;

// The last few lines of a worker's stderr, for messages.
std::string tail_lines(const std::string& text, int max_lines) {
    size_t end = text.size();
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
    size_t pos = end;
    int lines = 0;
    while (pos > 0) {
        if (text[pos - 1] == '\n' && ++lines == max_lines) break;
        --pos;
    }
    return text.substr(pos, end - pos);
}

// A JSON object holds one value per name: the last one given wins (`defines`: the config
// over -D), or with `first_wins` the first (`fallback_defines`: a CPU run's cpu-args before
// the header's GPU args, as CompileRequest reads them).
Json pairs_to_json(const std::vector<std::pair<std::string, std::string>>& v, bool first_wins = false) {
    Json o = Json::object();
    for (const auto& [k, val] : v)
        if (!first_wins || !o.contains(k)) o[k] = val;
    return o;
}

}  // namespace

Json to_json(const LoadSpec& s) {
    Json j = {{"op", "load"},
              {"path", s.path},
              {"kernel", s.kernel},
              {"target", s.target},
              {"defines", pairs_to_json(s.defines)},
              {"fallback_defines", pairs_to_json(s.fallback_defines, true)}};
    if (!s.source.empty()) j["source"] = s.source;
    if (!s.pass_configs.empty()) j["pass_configs"] = pairs_to_json(s.pass_configs);
    if (s.device != "gpu") j["device"] = s.device;
    return j;
}

Json to_json(const RunSpec& s) {
    Json j = {{"op", "run"}, {"seed", s.seed}, {"check", s.check}, {"check_blocks", s.check_blocks},
              {"scalars", s.scalars}};
    if (!s.inputs_dir.empty()) j["inputs_dir"] = s.inputs_dir;
    if (!s.outputs_dir.empty()) j["outputs_dir"] = s.outputs_dir;
    if (!s.engine.empty()) j["engine"] = s.engine;
    if (s.check_races) j["check_races"] = true;
    return j;
}

Json to_json(const BenchSpec& s) {
    return {{"op", "bench"},     {"warmup", s.warmup},   {"iters", s.iters},     {"flush_l2", s.flush_l2},
            {"seed", s.seed},    {"flops", s.flops},     {"bytes", s.bytes},     {"baselines", s.baselines},
            {"check", s.check},  {"check_blocks", s.check_blocks}, {"scalars", s.scalars}};
}

std::string default_tilec_path() {
    if (const char* env = std::getenv("TILEC"); env && *env) return env;
    char buf[PATH_MAX] = {};
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n > 0) {
        std::string self(buf, static_cast<size_t>(n));
        size_t slash = self.rfind('/');
        std::string dir = self.substr(0, slash == std::string::npos ? 0 : slash);
        if (self.substr(slash + 1) == "tilec") return self;
        for (const char* rel : {"/tilec", "/../cli/tilec", "/../app/cli/tilec", "/app/cli/tilec"}) {
            std::string cand = dir + rel;
            if (::access(cand.c_str(), X_OK) == 0) return cand;
        }
    }
    std::string found = worker::find_executable("tilec");
    return found.empty() ? "tilec" : found;
}

struct WorkerClient::Impl {
    WorkerOptions opts;
    std::unique_ptr<worker::Subprocess> proc;
    int started = 0;
    int64_t next_id = 1;
    std::optional<Json> last_load;  // replayed after a restart
    std::string loaded_kernel;      // "matmul (M=4096, N=4096)" for messages
    int deaths = 0;
    WorkerReply last_death;

    WorkerReply note_death(WorkerReply r) {
        if (!r.ok && worker_died(r.kind)) {
            ++deaths;
            last_death = r;
        }
        return r;
    }

    bool alive() { return proc && proc->running(); }

    bool ensure_started(WorkerReply& fail) {
        if (alive()) return true;
        proc = std::make_unique<worker::Subprocess>();
        std::vector<std::string> cmd = opts.command;
        if (cmd.empty()) cmd = {default_tilec_path(), "worker"};
        std::string why;
        if (!proc->start(cmd, &why)) {
            fail.kind = "start_failed";
            fail.error = "cannot start the worker" + at() + ": " + why;
            proc.reset();
            return false;
        }
        ++started;
        return !opts.handshake || handshake(fail);
    }

    // " at ssh://host" (or " (local #2)" in a pool) for messages: which worker it was.
    std::string at() const { return worker_at(opts.where); }

    // The two ends must be the same build: a remote tilec of another version compiles and
    // checks differently, and one of another protocol misreads requests.
    bool handshake(WorkerReply& fail) {
        WorkerReply h = exchange({{"op", "hello"}}, {}, opts.start_timeout_s);
        if (!h.ok) {
            fail = std::move(h);
            if (fail.kind != "exited" && fail.kind != "crashed" && fail.kind != "hang" && fail.kind != "protocol") return false;
            fail.error = unreachable_worker_error(opts.where, fail.stderr_tail, fail.error);
            return false;
        }
        std::string mismatch = hello_mismatch(h.body, opts.where);
        if (mismatch.empty()) return true;
        fail.kind = "version_mismatch";
        fail.body = h.body;
        fail.error = std::move(mismatch);
        proc->kill();
        proc.reset();
        return false;
    }

    // The worker broke the protocol: it cannot be trusted with the next request either.
    WorkerReply& protocol_failure(WorkerReply& r, std::string error) {
        r.kind = "protocol";
        r.error = std::move(error);
        proc->kill();
        proc.reset();
        return r;
    }

    // The worker is gone: fill `r` from its exit status.
    void report_death(WorkerReply& r, const std::string& what) {
        worker::ExitStatus st = proc->wait(2000);
        r.stderr_tail = tail_lines(proc->stderr_text(), 6);
        if (!st.exited && st.signal) {
            r.kind = "crashed";
            r.signal = st.signal;
        } else {
            r.kind = "exited";
            r.exit_code = st.exited ? st.code : -1;
        }
        r.error = "the worker" + at() + " died during " + what + " (" + st.describe() + ")";
        // A CUDA error the worker printed before dying is the most useful part.
        if (!r.stderr_tail.empty()) r.error += ": " + tail_lines(r.stderr_tail, 1);
        proc.reset();
    }

    // `load_limit_s` (> 0) replaces load_timeout_s for this exchange (the handshake's).
    WorkerReply exchange(Json req, const std::function<void(const Json&)>& on_event, double load_limit_s = -1) {
        WorkerReply r;
        const double load_timeout_s = load_limit_s > 0 ? load_limit_s : opts.load_timeout_s;
        std::string op = req.value("op", "");
        int64_t id = next_id++;
        req["id"] = id;
        std::string what = "`" + op + "`" + (loaded_kernel.empty() || op == "load" ? "" : " of " + loaded_kernel);
        if (!proc->write(req.dump() + "\n")) {
            report_death(r, what);
            return r;
        }
        bool is_load = op == "load" || op == "hello";
        double silence_s = is_load ? load_timeout_s : opts.watchdog_s;
        auto ms = [](double s) { return std::chrono::milliseconds(static_cast<int64_t>(s * 1000)); };
        auto overall = Clock::now() + ms(load_timeout_s);
        // Two clocks: silence (reset by any message of the worker's) and progress (reset only
        // by a message that moves the request on); stray non-JSON lines reset neither.
        auto silence_deadline = Clock::now() + ms(silence_s);
        auto progress_deadline = Clock::now() + ms(std::max(opts.progress_timeout_s, silence_s));
        std::string stage;
        Json done;
        for (;;) {
            auto deadline = std::min(silence_deadline, progress_deadline);
            if (is_load) deadline = std::min(deadline, overall);
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            int wait_ms = static_cast<int>(std::clamp<int64_t>(left, 0, INT32_MAX));
            std::string line;
            auto got = proc->read_line(line, wait_ms);
            if (got == worker::Subprocess::Read::Timeout && Clock::now() < deadline) continue;
            if (got == worker::Subprocess::Read::Timeout) {
                bool stalled = progress_deadline <= silence_deadline && !(is_load && overall < progress_deadline);
                proc->kill();
                r.kind = "hang";
                r.stderr_tail = tail_lines(proc->stderr_text(), 6);
                char secs[32];
                std::snprintf(secs, sizeof(secs), "%g", stalled ? std::max(opts.progress_timeout_s, silence_s) : silence_s);
                r.error = what +
                          (stalled ? " made no progress within " + std::string(secs) + " s (only heartbeats" +
                                         (stage.empty() ? std::string() : " from stage `" + stage + "`") + ")"
                                   : " did not finish within " + std::string(secs) + " s") +
                          "; the worker" + at() + " was killed and a new one starts on the next request";
                proc.reset();
                return r;
            }
            if (got == worker::Subprocess::Read::Eof) {
                report_death(r, what);
                return r;
            }
            if (line.empty() || line[0] != '{') continue;  // stray output from a library
            Json msg = worker::json_nesting(line) > worker::kMaxJsonDepth ? Json(Json::value_t::discarded) : Json::parse(line, nullptr, false);
            if (msg.is_discarded() || !msg.is_object()) return protocol_failure(r, "unreadable reply from the worker: " + line.substr(0, 200));
            // Readers of replies and events trust their field types; a worker that breaks them
            // is as unusable as one that prints garbage.
            bool is_event = msg.contains("event");
            auto bad = is_event ? worker::event_type_error(msg) : worker::reply_type_error(op, msg);
            if (bad && (is_event || (msg.contains("id") && msg["id"] == id)))
                return protocol_failure(r, "malformed " + std::string(is_event ? "event" : "reply") + " from the worker: " + *bad);
            silence_deadline = Clock::now() + ms(silence_s);
            if (is_event) {
                // Progress: a stage not seen before or a count that moved; a repeated
                // heartbeat of the same stage is only a sign of life.
                std::string st = msg.contains("stage") && msg["stage"].is_string() ? msg["stage"].get<std::string>() : std::string();
                Json d = msg.contains("done") ? msg["done"] : Json();
                bool heartbeat = msg.contains("heartbeat") && msg["heartbeat"] == true;
                if (!heartbeat || st != stage || d != done) progress_deadline = Clock::now() + ms(std::max(opts.progress_timeout_s, silence_s));
                stage = st;
                done = d;
                r.events.push_back(msg);
                if (on_event) on_event(msg);
                continue;
            }
            if (!msg.contains("id") || msg["id"] != id) continue;  // a late reply to an abandoned request
            r.body = msg;
            r.ok = msg.value("ok", false);
            if (!r.ok) {
                r.kind = msg.value("kind", "error");
                r.error = msg.value("error", "the worker reported an error without a message");
            }
            // After a sticky CUDA error the worker exits on its own; reap it now.
            if (msg.value("fatal", false)) {
                proc->wait(5000);
                proc.reset();
            }
            return r;
        }
    }
};

WorkerClient::WorkerClient(WorkerOptions opts) : impl_(std::make_unique<Impl>()) { impl_->opts = std::move(opts); }

WorkerClient::~WorkerClient() { shutdown(); }

std::string worker_at(const std::string& where) {
    if (where.empty() || where == "local") return "";
    return where.rfind("local", 0) == 0 ? " (" + where + ")" : " at " + where;
}

std::string hello_mismatch(const Json& hello, const std::string& where) {
    int protocol = hello.contains("protocol") && hello["protocol"].is_number_integer() ? hello["protocol"].get<int>() : 0;
    std::string version = hello.is_object() ? hello.value("version", std::string("?")) : "?";
    if (protocol == kWorkerProtocol && version == TILEPLAY_VERSION) return "";
    return "the worker" + worker_at(where) + " is tilec " + version + " (protocol " + std::to_string(protocol) + "), this is tilec " +
           TILEPLAY_VERSION + " (protocol " + std::to_string(kWorkerProtocol) +
           "); install the same build there or point --worker at it (ssh://HOST/path/to/tilec)";
}

std::string unreachable_worker_error(const std::string& where, const std::string& stderr_text, const std::string& fallback) {
    // ssh's own last words ("Connection refused", "Permission denied") say most.
    std::string last = tail_lines(stderr_text, 1);
    return "cannot reach the worker" + worker_at(where) + ": " + (last.empty() ? fallback : last);
}

bool worker_died(const std::string& kind) {
    return kind == "exited" || kind == "crashed" || kind == "protocol" || kind == "start_failed" || kind == "version_mismatch";
}

WorkerReply WorkerClient::request(Json req, const std::function<void(const Json&)>& on_event) {
    Impl& m = *impl_;
    WorkerReply fail;
    bool was_alive = m.alive();
    if (!m.ensure_started(fail)) return m.note_death(std::move(fail));
    std::string op = req.value("op", "");
    // A fresh worker has no kernel: bring back the last one before a run or bench.
    if (!was_alive && m.started > 1 && m.opts.replay_load && m.last_load && op != "load" && op != "hello" &&
        op != "shutdown") {
        WorkerReply rl = m.exchange(*m.last_load, on_event);
        if (!rl.ok) return m.note_death(std::move(rl));
    }
    Json saved = op == "load" ? req : Json();
    WorkerReply r = m.exchange(std::move(req), on_event);
    if (op == "load") {
        if (r.ok) {
            saved.erase("id");
            m.last_load = std::move(saved);
            Json k = r.body.value("kernel", Json::object());
            m.loaded_kernel = "kernel `" + k.value("name", std::string("?")) + "`";
        } else {
            m.last_load.reset();
            m.loaded_kernel.clear();
        }
    }
    return m.note_death(std::move(r));
}

WorkerReply WorkerClient::hello() { return request({{"op", "hello"}}); }

WorkerReply WorkerClient::load(const LoadSpec& spec, const std::function<void(const Json&)>& on_event) {
    return request(to_json(spec), on_event);
}

WorkerReply WorkerClient::run(const RunSpec& spec, const std::function<void(const Json&)>& on_event) {
    return request(to_json(spec), on_event);
}

WorkerReply WorkerClient::bench(const BenchSpec& spec, const std::function<void(const Json&)>& on_event) {
    return request(to_json(spec), on_event);
}

void WorkerClient::shutdown() {
    Impl& m = *impl_;
    if (!m.alive()) {
        m.proc.reset();
        return;
    }
    m.proc->write(Json{{"id", m.next_id++}, {"op", "shutdown"}}.dump() + "\n");
    m.proc->close_stdin();
    m.proc->wait(3000);
    m.proc.reset();
}

int WorkerClient::restarts() const { return impl_->started > 0 ? impl_->started - 1 : 0; }
int WorkerClient::deaths() const { return impl_->deaths; }
const WorkerReply& WorkerClient::last_death() const { return impl_->last_death; }
int WorkerClient::pid() const { return impl_->proc ? impl_->proc->pid() : -1; }
const WorkerOptions& WorkerClient::options() const { return impl_->opts; }

}  // namespace tp
