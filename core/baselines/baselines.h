// The peers a kernel is timed against in `bench`: cuBLAS / cuBLASLt in this process, on the
// kernel's own input tensors but each writing its own output buffer (a baseline that wrote
// into ours would make a wrong kernel "agree"), and PyTorch (eager, torch.compile, a chosen
// SDPA backend) in a long-lived torch worker process speaking JSON lines. Every peer's result
// is compared with our checked output, which is the semantic check of the kernel. A peer
// that cannot run says "unavailable: <why>"; nothing here throws for a missing library.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/device.h"
#include "tileplay/compiler.h"

namespace tp::baselines {

// A baseline line as a header or --baseline writes it:
//   cublas.gemm [trans_a] [trans_b]       cublasGemmEx
//   cublaslt.gemm | cublaslt.gemm_bias_gelu   cuBLASLt, plain or with the GELU_BIAS epilogue
//   torch: EXPR                           eager PyTorch
//   torch[sdpa=cudnn]: EXPR               eager, SDPA restricted to one backend
//   torch.compile: EXPR                   torch.compile, default mode
//   torch.compile[max-autotune]: EXPR     mode max-autotune-no-cudagraphs (we capture graphs)
struct BaselineSpec {
    enum class Kind { Cublas, CublasLt, Torch, Unknown };
    std::string text;  // as written; the baseline's name in every table
    Kind kind = Kind::Unknown;
    std::string op;            // cuBLAS: "gemm" or "gemm_bias_gelu"
    bool trans_a = false, trans_b = false;
    std::string expr;          // torch
    std::string compile_mode;  // "" (eager), "default", "max-autotune-no-cudagraphs"
    std::string sdpa;          // "" (torch's choice), "cudnn", "flash", "efficient", "math"
    std::string error;         // why the line does not parse (Kind::Unknown)
};
BaselineSpec parse_baseline_spec(const std::string& text);

// What an in-process baseline works on: the kernel's signature and device tensors (inputs).
struct BaselineInputs {
    const KernelInfo* kernel = nullptr;
    const std::map<std::string, runtime::DeviceTensor>* device = nullptr;  // by parameter name
};

// An in-process baseline ready to time, or why it is unavailable. `launch` enqueues one call
// writing the baseline's own output; `result()` downloads that output. `state` keeps handles,
// workspaces and the output buffer alive.
struct InProcessBaseline {
    bool ok = false;
    std::string why;
    std::string output;  // the kernel parameter its result corresponds to ("C")
    std::function<void()> launch;
    std::function<HostTensor()> result;
    std::shared_ptr<void> state;
};
InProcessBaseline make_in_process_baseline(const BaselineSpec& spec, const BaselineInputs& in);

// The torch worker (resources/baselines/torch_worker.py under python3, or the command in
// $TILEPLAY_TORCH_WORKER), started on first use and kept for every later request.
class TorchWorker {
public:
    TorchWorker();
    ~TorchWorker();
    TorchWorker(const TorchWorker&) = delete;
    TorchWorker& operator=(const TorchWorker&) = delete;

    // Starts the process and says hello once; false with `why` when torch cannot run.
    bool ensure_started(std::string& why);
    // "torch 2.11.0 (CUDA 13.0)" after a successful start.
    const std::string& detail() const;
    // One request and its reply. A dead or silent worker (past timeout_ms) is killed and gives
    // {"ok": false, "why": ...}; the next call starts a fresh one.
    nlohmann::json call(nlohmann::json req, int timeout_ms);
    void stop();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Path of torch_worker.py: $TILEPLAY_RESOURCES/baselines/, next to the executable
// (../resources, ../../resources, ...) or the source tree.
std::string torch_worker_path();

// cuBLAS availability for `tilec doctor`: the library path, or empty with `why`.
std::string cublas_version(std::string* why = nullptr);

// python3 + torch probe for doctor.
struct TorchProbe {
    bool python = false, torch = false, cuda_available = false;
    std::string python_version, torch_version, torch_cuda, why;
};
TorchProbe probe_torch(int timeout_s = 60);

}  // namespace tp::baselines
