// The worker's loaded kernel and what a run needs around it: arguments allocated from the
// signature (random inputs by seed, or .npy files), device copies in signature order, the
// launch geometry, and the check of GPU outputs against the CPU interpreter on the same
// inputs (a seeded sample of blocks for large grids, compared only where those blocks wrote).
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/device.h"
#include "tileplay/compiler.h"

namespace tp::worker {

using Json = nlohmann::json;

// A request that cannot be served; becomes {"ok":false,"kind":kind,"error":what}.
struct WorkerError : std::runtime_error {
    std::string kind;
    WorkerError(std::string k, const std::string& msg) : std::runtime_error(msg), kind(std::move(k)) {}
};

struct KernelSession {
    std::shared_ptr<const CompileResult> compiled;
    std::unique_ptr<runtime::LoadedKernel> kernel;
    runtime::KernelAttributes attrs;
    int device_sm_count = 0;  // caps a persistent kernel's grid at launch (KernelInfo::persistent)
    // Loaded for the CPU interpreter (no cubin, no device): `run` interprets it. The sample
    // header's baselines name the C++ reference its output is checked against.
    bool cpu = false;
    std::vector<std::string> baselines;

    const KernelInfo& info() const { return compiled->kernel; }
    Json describe() const;  // name, factory, params, grid, threads, smem, registers, bound params
};

struct PreparedArgs {
    std::map<std::string, HostTensor> host;  // every parameter: inputs filled, outputs zeroed
    std::map<std::string, runtime::DeviceTensor> device;  // tensor parameters
    std::map<std::string, int64_t> scalars;  // symbolic dims / scalar parameters
    runtime::KernelArgs args;                // the first launch's
    runtime::LaunchConfig launch;
    // A kernel function of several `T.Kernel` launches: the arguments (their TMA maps differ)
    // and geometry of launches 1.. in program order.
    struct Later {
        runtime::KernelArgs args;
        runtime::LaunchConfig launch;
    };
    std::vector<Later> later;
};

// Launches every `T.Kernel` launch of the kernel in program order on `stream`, so each sees
// what the ones before it wrote.
void launch_all(runtime::LoadedKernel& k, PreparedArgs& a, runtime::CUstream stream = nullptr);

// Allocates and uploads the arguments. Inputs come from <inputs_dir>/<param>.npy when that
// file exists, else HostTensor::fill_random(seed + position) like the CPU interpreter.
PreparedArgs prepare_args(const KernelSession& s, uint64_t seed, const std::map<std::string, int64_t>& scalars,
                          const std::string& inputs_dir);

// Downloads every output parameter.
std::map<std::string, HostTensor> download_outputs(const KernelSession& s, const PreparedArgs& a);

// Runs the interpreter on the same inputs (all blocks, or `check_blocks` seeded ones plus the
// first and last; all for a kernel of several launches or global atomic adds) and compares each output: {"ok", "blocks_checked", "total_blocks",
// "outputs": [{"name", "rel_fro", "max_abs", "tol", "compared", "pass"}], "error"}.
Json check_against_interpreter(const KernelSession& s, const PreparedArgs& a,
                               const std::map<std::string, HostTensor>& gpu_out, int check_blocks, uint64_t seed);

// Picks the blocks to check: all when total <= want or want <= 0.
std::vector<int64_t> sample_block_indices(int64_t total, int want, uint64_t seed);

}  // namespace tp::worker
