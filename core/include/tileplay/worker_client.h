// Client of `tilec worker`, the out-of-process kernel runner: starts the worker, sends JSON-line
// requests (docs/worker-protocol.md), forwards progress events, and when the worker faults
// (illegal address loses the CUDA context) or hangs (watchdog) kills it, reports what happened
// and starts a fresh one on the next request. `tilec run --device gpu`, `tilec bench` and
// the playground all use it; the worker may run here or on another host (`ssh HOST tilec
// worker`, parse_worker_spec).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace tp {

using Json = nlohmann::json;

// The protocol's number, sent in `hello` as `protocol`: bumped when a request or reply changes
// incompatibly, so a client refuses a worker on another host that speaks another version.
constexpr int kWorkerProtocol = 1;

struct WorkerOptions {
    std::vector<std::string> command;  // empty: {default_tilec_path(), "worker"}
    std::string where = "local";       // for messages: "local", "ssh://gpu-box", "local (GPU 1)"
    // Before the first request of each started worker, a `hello` whose `protocol` and `version`
    // must equal this build's; a mismatch is the failure kind "version_mismatch". Remote
    // workers always check: the two ends may be different builds.
    bool handshake = false;
    double start_timeout_s = 30;       // the handshake's limit (an ssh login included)
    double watchdog_s = 10;            // longest silence (no reply, no progress) during run/bench
    double load_timeout_s = 300;       // longest a load (compile + module load) may take
    // Longest a request may go without progress: heartbeats prove the worker is alive and
    // keep the silence watchdog quiet, but only a new stage, a bench round or the reply is
    // progress, so a worker stuck heartbeating in one stage is still stopped.
    double progress_timeout_s = 600;
    bool replay_load = true;           // after a restart, re-send the last successful load
};

struct WorkerReply {
    bool ok = false;
    // Failure kind: the worker's own ("bad_request", "compile_failed", "load_failed",
    // "launch_failed", "cuda_error", "no_device", "io_error", "check_failed", ...) or the
    // client's: "hang" (watchdog fired), "crashed" (killed by a signal), "exited" (died
    // without replying), "start_failed", "protocol" (unreadable reply).
    std::string kind;
    std::string error;        // one line, lower-case, for the user
    Json body;                // the worker's reply object (null when it died)
    std::string stderr_tail;  // last lines the worker wrote on stderr when it died
    int signal = 0;           // crashed: the signal
    int exit_code = -1;       // exited: the code
    std::vector<Json> events; // progress events seen while waiting
};

struct LoadSpec {
    std::string path;    // DSL file (read by the worker when source is empty)
    std::string source;  // optional text (unsaved editor contents)
    std::string kernel;  // factory name; empty = the file's first kernel
    std::vector<std::pair<std::string, std::string>> defines;           // -D NAME=VALUE
    std::vector<std::pair<std::string, std::string>> fallback_defines;  // the sample header's args
    std::vector<std::pair<std::string, std::string>> pass_configs;      // --pass-config KEY=VALUE
    std::string target = "auto";  // "auto" = the worker's GPU (e.g. sm_90)
    std::string device = "gpu";   // "cpu": compiled to Tile IR for the worker's CPU engines
};

struct RunSpec {
    std::string inputs_dir;   // <param>.npy read from here when present, else random (seed)
    std::string outputs_dir;  // every parameter written here as <param>.npy when set
    uint64_t seed = 0;
    bool check = true;        // compare outputs with the CPU interpreter on the same inputs
    int check_blocks = 64;    // blocks the interpreter runs for large grids (0 = all)
    std::map<std::string, int64_t> scalars;  // values of symbolic-dimension parameters
    std::string engine;                      // CPU loads: "cpu-interp" keeps the run on the interpreter
    bool check_races = false;                // CPU loads: the race checker (docs/race_checker.md)
};

// Whether a kernel's rate is best read as bandwidth: under 20 FLOP per byte (softmax is 1.25),
// far below any GPU's balance point, so GB/s is what limits it. tflops / gbps = intensity / 1000.
inline bool judged_by_bandwidth(double tflops, double gbps) { return gbps > 0 && (tflops <= 0 || 20 * gbps > 1000 * tflops); }
// "4402 GB/s" or "706.0 TFLOP/s" by that rule; empty when neither is known.
inline std::string rate_text(double tflops, double gbps) {
    char b[48] = "";
    if (judged_by_bandwidth(tflops, gbps)) std::snprintf(b, sizeof b, "%.0f GB/s", gbps);
    else if (tflops > 0) std::snprintf(b, sizeof b, "%.1f TFLOP/s", tflops);
    return b;
}

struct BenchSpec {
    int warmup = 10;
    int iters = 50;
    bool flush_l2 = true;
    uint64_t seed = 0;
    double flops = 0;  // per launch, from the sample header (0 = unknown)
    double bytes = 0;
    std::vector<std::string> baselines;  // "cublas.gemm", "cublaslt.gemm_bias_gelu", "torch: A + B"
    bool check = true;
    int check_blocks = 64;
    std::map<std::string, int64_t> scalars;
};

class WorkerClient {
public:
    explicit WorkerClient(WorkerOptions opts = {});
    ~WorkerClient();
    WorkerClient(const WorkerClient&) = delete;
    WorkerClient& operator=(const WorkerClient&) = delete;

    // Sends one request object (an "id" is added) and waits for its reply. Starts the worker
    // when none runs. Never throws for worker failures: they come back as a failed reply.
    WorkerReply request(Json req, const std::function<void(const Json&)>& on_event = {});

    WorkerReply hello();
    WorkerReply load(const LoadSpec& spec, const std::function<void(const Json&)>& on_event = {});
    WorkerReply run(const RunSpec& spec, const std::function<void(const Json&)>& on_event = {});
    WorkerReply bench(const BenchSpec& spec, const std::function<void(const Json&)>& on_event = {});

    void shutdown();             // asks the worker to exit, kills it if it does not
    int restarts() const;        // workers started after the first
    // Workers lost without a reply (exited, crashed, protocol, start_failed,
    // version_mismatch) and the last such failure: how a pool tells a dead worker from a
    // failed job.
    int deaths() const;
    const WorkerReply& last_death() const;
    int pid() const;             // current worker's pid, -1 when none
    const WorkerOptions& options() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Reads a --worker value: "local" (or empty), "ssh://[user@]HOST[:PORT][/PATH/TO/tilec]" or
// "slurm:PARTITION" (`srun --partition=PARTITION --nodes=1 --ntasks=1 --unbuffered tilec worker`,
// $TILEPLAY_SRUN_OPTIONS added, a 300 s handshake for the queue). A
// remote worker is started as `ssh [-p PORT] [user@]HOST -- PATH worker` (PATH defaults to
// $TILEPLAY_REMOTE_TILEC, else `tilec` on the remote PATH) with batch mode, a connect timeout
// and keep-alives, so a dead connection ends the ssh process instead of hanging; $TILEPLAY_SSH
// replaces the `ssh` command (e.g. "ssh -F my_config"). Fills `out` (command, where, handshake)
// and keeps its timeouts; false with `error` set when the text cannot be read.
bool parse_worker_spec(const std::string& spec, WorkerOptions& out, std::string* error);

// Path of the `tilec` binary to run as a worker: $TILEC when set, this executable when it is
// tilec, else the tilec next to this executable, else "tilec" from PATH.
std::string default_tilec_path();

// " at ssh://box" (or " (local #2)"; empty for "local"): which worker, for messages.
std::string worker_at(const std::string& where);
// The handshake's verdict on a `hello` reply: empty when its `protocol` and `version` are this
// build's, else the message (both versions, and what to do). The playground checks its own
// remote workers with it, so both say the same.
std::string hello_mismatch(const Json& hello, const std::string& where);
// "cannot reach the worker at ssh://box: " and the last line the starting command wrote on
// stderr (ssh's "Connection refused"), or `fallback` when it wrote none.
std::string unreachable_worker_error(const std::string& where, const std::string& stderr_text, const std::string& fallback);

// Whether a failure kind means the worker itself is gone (not the request's own failure).
bool worker_died(const std::string& kind);

Json to_json(const LoadSpec& s);
Json to_json(const RunSpec& s);
Json to_json(const BenchSpec& s);

}  // namespace tp
