// Baselines a kernel is timed against in `bench`: cuBLAS / cuBLASLt in this process (timed
// interleaved with our kernel on the same device tensors) and PyTorch through python3 running
// resources/baselines/torch_baseline.py on the same inputs saved as .npy. A baseline that
// cannot run says "unavailable: <why>"; nothing here throws for a missing library.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "runtime/timing.h"
#include "tileplay/compiler.h"

namespace tp::baselines {

struct BaselineInputs {
    const KernelInfo* kernel = nullptr;
    const std::map<std::string, HostTensor>* host = nullptr;            // by parameter name
    const std::map<std::string, runtime::DeviceTensor>* device = nullptr;
    runtime::BenchOptions opts;
    std::string scratch_dir;  // where the torch baseline's .npy inputs go
    // Our kernel's outputs (downloaded after its checked launch): the torch result is compared
    // with the first one, so the baseline also says whether torch and we agree.
    const std::map<std::string, HostTensor>* ours = nullptr;
};

// An in-process baseline ready to time, or why it is unavailable. `state` keeps handles and
// workspaces alive while `candidate` is used.
struct InProcessBaseline {
    bool ok = false;
    std::string why;
    runtime::TimedCandidate candidate;
    std::shared_ptr<void> state;
};

// "cublas.gemm [trans_a] [trans_b]", "cublaslt.gemm_bias_gelu": maps the kernel's
// parameters (A, B[, bias] inputs, C output, in signature order) onto the library call.
bool is_in_process_spec(const std::string& spec);
InProcessBaseline make_in_process_baseline(const std::string& spec, const BaselineInputs& in);

// "torch: <expression over parameter names>".
bool is_torch_spec(const std::string& spec);
struct ExternalResult {
    bool ok = false;
    std::string why;
    runtime::TimingStats stats;
    std::string detail;  // torch version / backend note
    // Torch's result against our first output (`ours`): relative Frobenius error and max abs
    // error, or why they could not be compared (shapes differ, the expression gave no tensor).
    bool compared = false;
    double rel_fro = -1, max_abs = -1;
    std::string compare_why;
};
ExternalResult run_torch_baseline(const std::string& spec, const BaselineInputs& in, int timeout_s = 300);

// Path of torch_baseline.py: $TILEPLAY_RESOURCES/baselines/, next to the executable
// (../resources, ../../resources, ...) or the source tree.
std::string torch_script_path();

// cuBLAS availability for `tilec doctor`: "13.0.2" or empty with `why`.
std::string cublas_version(std::string* why = nullptr);

// python3 + torch probe for doctor: {"python": "3.11.7", "torch": "2.11.0", "cuda": "13.0",
// "cuda_available": true} or empty strings with `why`.
struct TorchProbe {
    bool python = false, torch = false, cuda_available = false;
    std::string python_version, torch_version, torch_cuda, why;
};
TorchProbe probe_torch(int timeout_s = 60);

}  // namespace tp::baselines
