// The peers of one `bench` request: each baseline line parsed, made ready (cuBLAS in this
// process with its own output; torch expressions set up in the torch worker on the same
// inputs), timed as a RoundPeer, and its result compared with our checked output. The bench
// op (bench_op.cpp) strings these together; this file knows nothing of rounds or replies.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "baselines/baselines.h"
#include "runtime/rounds.h"
#include "worker/worker_state.h"

namespace tp::worker {

struct BenchPeer {
    baselines::BaselineSpec spec;
    bool ready = false;
    std::string why;               // "unavailable: ..." when not ready, or why it stopped
    baselines::InProcessBaseline ip;  // cuBLAS / cuBLASLt
    std::string torch_key;            // torch worker's key
    Json setup;                       // the torch worker's setup entry (method, compile_ms)
    Json vs_ours;                     // its result against our checked output
};

// Parses the request's baseline lines and readies the in-process ones.
std::vector<BenchPeer> make_peers(const std::vector<std::string>& lines, const KernelSession& s, const PreparedArgs& a);

// Readies the torch peers: our inputs and checked output saved as .npy in `scratch`, one setup
// call to the worker (compiles, checks against ours, captures graphs, warms up). `detail`
// gets "torch 2.11.0 (CUDA 13.0)".
void setup_torch_peers(std::vector<BenchPeer>& peers, WorkerState& st, const PreparedArgs& a,
                       const std::map<std::string, HostTensor>& ours, int warmup, bool flush_l2,
                       const std::string& scratch, std::string& detail);

// The peer as a timed function: in-process through `timer`, torch through the worker. A torch
// peer that fails mid-way returns no samples from then on and says why in `why`.
runtime::RoundPeer round_peer(BenchPeer& p, WorkerState& st, runtime::EventTimer& timer);

// After timing: downloads each in-process peer's own output and compares it with ours.
void compare_in_process_peers(std::vector<BenchPeer>& peers, const std::map<std::string, HostTensor>& ours);

// Our output against a reference: {"rel_fro", "max_abs", "tol", "nonfinite", "agree"}.
Json compare_json(const HostTensor& ours, const HostTensor& ref);

}  // namespace tp::worker
