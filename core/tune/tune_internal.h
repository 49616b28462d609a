// The tuner's parts behind run_tune (tune.cpp): what every per-config step needs to know,
// the steps themselves (stages.cpp), a small parallel loop and the on-disk cache (cache.cpp).
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>

#include "tileplay/sample_header.h"
#include "tileplay/tune.h"
#include "tileplay/worker_client.h"

namespace tp::tune {

// The fixed part of every compile of this tune.
struct TuneJob {
    std::string path, source, kernel, target;
    TuneConfig defines;  // -D, before the config's own values
    SampleHeader header;
    int interp_threads = 1;  // CPU checks run side by side, one thread each
};

// Static filter: traces, lowers and generates CUDA (no NVRTC). A config the target cannot run
// (shared memory, threads, a tile shape the lowering refuses, a trace error) becomes Rejected
// with the first error as its reason; threads and shared bytes are filled in either way.
void static_filter(const TuneJob& job, TuneResult& r);

// NVRTC to cubin: registers and spills from ptxas; CompileFailed or CannotLaunch with a reason.
void compile_config(const TuneJob& job, TuneResult& r);

// No GPU: runs the config on the CPU interpreter at the header's cpu-args and compares its
// output with the named reference (Passed / Wrong / Failed).
void check_on_cpu(const TuneJob& job, TuneResult& r);

// No GPU, a pool of workers: the same check in a worker (its CPU engines, its C++ reference).
void check_in_worker(WorkerClient& client, const TuneJob& job, TuneResult& r);

// GPU: loads the config in `client` (a worker process), then, holding `gpu`, benchmarks it with
// the worker's check against the interpreter (Timed / Wrong / Failed).
void bench_on_gpu(WorkerClient& client, std::mutex& gpu, const TuneJob& job, const TuneOptions& opts, TuneResult& r);

// GPU: the best config beside the header's peers (cuBLAS, torch, ...) in one bench call, with
// the semantic check: the bench reply, or {"error": ...}.
Json bench_beside_peers(WorkerClient& client, const TuneJob& job, const TuneOptions& opts, const TuneResult& best);

// Runs fn(0..n-1) on `threads` threads, each index once; stops handing out work when
// `cancel` is set. Exceptions from fn are the caller's to catch inside fn.
void parallel_for(size_t n, int threads, const std::function<void(size_t)>& fn, const std::atomic<bool>* cancel);

// The cache file for a key in `dir`, and reading / writing a report there.
std::string cache_path(const std::string& dir, const std::string& key);
bool load_cached(const std::string& file, TuneReport& out);
bool store_cached(const std::string& file, const TuneReport& r, std::string* error);

}  // namespace tp::tune
