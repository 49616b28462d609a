// The autotuner's public API (`tilec tune`, the playground's tune panel): finds a kernel's
// search space (an @autotune(configs=...) decorator, the `# tileplay: tune` header or -T axes),
// rejects configs that cannot work on the target before compiling (shared memory, threads,
// tile shapes the lowering refuses), compiles the rest in parallel (registers, spills, configs
// that cannot launch), then benchmarks and validates each on the GPU through `tilec worker`, or
// checks each on the CPU interpreter where there is no GPU, and ranks them. Results are cached
// on disk keyed by everything that changes the answer.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tileplay/compiler.h"
#include "tileplay/diagnostics.h"
#include "tileplay/worker_client.h"

namespace tp {

// One point of the space: parameter -> value as -D text, in the space's order.
using TuneConfig = std::vector<std::pair<std::string, std::string>>;
using TuneAxes = std::vector<std::pair<std::string, std::vector<std::string>>>;

std::string config_text(const TuneConfig& c);  // "block_M=64 num_stages=2"
// Cartesian product of the axes, first axis slowest (the order a user reads a table in).
std::vector<TuneConfig> expand_axes(const TuneAxes& axes);
// "NAME=V1,V2,..." -> an axis; false with `error` set when it cannot be read.
bool parse_axis(const std::string& text, std::pair<std::string, std::vector<std::string>>& out, std::string* error);

struct TuneSpace {
    bool ok = false;
    std::string origin;  // "@autotune(configs=...) at line 12", "`# tileplay: tune` header", "-T"
    std::vector<TuneConfig> configs;
    std::vector<Diagnostic> diagnostics;  // why the space could not be built
    std::string diagnostics_text;         // rendered with the source lines
};

// The default space over a factory's schedule parameters (tile sizes, threads, stages, vector
// widths, by TileLang's names), each varied around the value the run uses (`fixed`, else the
// default); tile axes narrow from /4..x4 to /2..x2 when the product exceeds max_configs.
TuneAxes default_tune_axes(const std::vector<FactoryParam>& params, const TuneConfig& fixed, size_t max_configs = 256);

// The space of `kernel` in the file: -T axes when given, else the factory's autotune
// decorator, else the sample header's `tune` line, else default_tune_axes. `fixed` are the fixed parameters (-D, then
// the header's args) the decorator's `configs` may depend on.
TuneSpace find_tune_space(const std::string& path, const std::string& source, const std::string& kernel,
                          const TuneAxes& cli_axes, const TuneConfig& fixed, const std::string& target);

struct TuneOptions {
    std::string path, source, kernel;  // source empty: read from path
    TuneConfig defines;                // -D fixed parameters
    TuneAxes axes;                     // -T NAME=V1,V2: replaces the file's space
    std::string target = "auto";       // auto: the GPU's, else sm_90
    std::string device = "auto";       // auto, gpu, cpu
    bool dry_run = false;              // space + static filter only: nothing is compiled by NVRTC
    int jobs = 0;                      // compile threads; 0: hardware concurrency
    int gpu_workers = 0;               // worker processes loading in parallel; 0: min(jobs, 4)
    int iters = 30, warmup = 5;
    double timeout_s = 10;             // watchdog per kernel run
    int check_blocks = 8;              // blocks the interpreter checks per GPU config (first, last, random)
    int max_cpu_checks = -1;           // without a GPU: configs checked on the CPU (-1: all)
    int top_k = 10;
    bool use_cache = true;             // read and write the on-disk cache
    bool force = false;                // ignore a cached answer (and replace it)
    std::string cache_dir;             // empty: default_tune_cache_dir()
    std::vector<std::string> worker_command;  // empty: {tilec, "worker"} (default_tilec_path)
    // Workers to spread the configs over (ssh:// hosts, local ones); empty: `gpu_workers`
    // local workers, one GPU each where this host has several. With a pool and no GPU the
    // CPU checks run in the pool's workers too.
    std::vector<WorkerOptions> pool;
};

// Where a config ended up.
enum class TuneStatus {
    Kept,          // passed the static filter (dry run stops here)
    Rejected,      // static filter: shared memory, threads, lowering, ...
    CompileFailed, // NVRTC or a compiler bug
    CannotLaunch,  // compiled, but registers x threads or shared memory exceed the SM
    Compiled,      // compiled; not checked (over --max-cpu-checks, or cancelled)
    Failed,        // faulted, hung, or could not load/run
    Wrong,         // ran, but its output disagrees with the reference
    Passed,        // checked on the CPU (no timing)
    Timed,         // benchmarked on the GPU and validated
};
const char* tune_status_name(TuneStatus s);

struct TuneResult {
    TuneConfig config;
    TuneStatus status = TuneStatus::Kept;
    std::string kind;    // diagnostic kind or worker failure kind for failures
    std::string reason;  // one line for the user
    int64_t threads = -1, shared_bytes = -1;
    int registers = -1;
    int64_t spill_bytes = -1;  // spill stores + loads
    double compile_ms = 0;
    double median_ms = 0, min_ms = 0, spread_pct = 0, tflops = 0, gbps = 0;
    double rel_fro = -1;
    double cpu_ms = 0;
    bool best = false;
};

struct TuneEvent {
    std::string phase;  // "filter", "compile", "check", "bench", "done"
    int done = 0, total = 0;
    std::string config;  // config_text of the one just finished
};

struct TuneReport {
    bool ok = false;     // the tune ran (a space was found); see `best` for the answer
    std::string error;   // one line when it could not run
    std::vector<Diagnostic> diagnostics;
    std::string diagnostics_text;  // rendered with the source lines
    std::string space_origin;
    std::string target, device;  // "sm_90"; "NVIDIA H200 (sm_90)" or "cpu interpreter"
    bool gpu = false, dry_run = false, from_cache = false, cancelled = false;
    std::string cache_key, cache_file;
    std::vector<TuneResult> results;  // ranked: timed/passed first (fastest first), then the rest
    int best = -1;                    // index into results, -1 when none passed
    double seconds = 0;               // wall time of the tune (of the original run on a cache hit)
    double compile_seconds = 0;
    int jobs = 0;
    std::vector<std::string> notes;  // e.g. "timing needs a GPU: ...", "worker 2 (...) died ..."
    // The best config timed once more beside the header's peers, alternating in one bench call
    // (the worker's bench reply: ours, baselines, best_peer, semantics); null when not run.
    nlohmann::json peers;
};

using TuneProgress = std::function<void(const TuneEvent&)>;

// Runs the whole tune. Never throws for user errors or compiler crashes: they become rejected
// configs or `error`. `cancel` (may be null) stops it between configs; what finished is kept.
TuneReport run_tune(const TuneOptions& opts, const TuneProgress& progress = {},
                    const std::atomic<bool>* cancel = nullptr);

// Orders results: timed configs by median time, then CPU-checked ones, then the rest by how far
// they got (compiled, wrong, failed, cannot launch, compile failed, rejected); marks the best.
// Only a timed and validated config is ever best: a wrong one is never ranked above it.
void rank_tune_results(TuneReport& r);

// $TILEPLAY_CACHE_DIR, else $XDG_CACHE_HOME/tileplay/tune, else ~/.cache/tileplay/tune.
std::string default_tune_cache_dir();

nlohmann::json tune_report_json(const TuneReport& r);
std::string tune_report_csv(const TuneReport& r);
// Reads back what tune_report_json wrote (the cache); false when it is not a report.
bool tune_report_from_json(const nlohmann::json& j, TuneReport& out);

// 64-bit FNV-1a, chained: the cache key's hash (no dependency for one hash).
uint64_t fnv1a64(const std::string& data, uint64_t seed = 14695981039346656037ull);
// A 128-bit name of `data` (32 hex digits): fnv1a64 with two seeds. Cache keys (tune results,
// NVRTC modules) are these.
std::string digest128(const std::string& data);

}  // namespace tp
