// `tilec doctor`'s findings, computed in core so the playground can show the same report:
// GPU, driver, toolkit, NVRTC, cuBLAS, nvdisasm/ptxas, python3 and torch, each ok or missing
// with the fix.
#pragma once

#include <string>
#include <vector>

namespace tp {

struct DoctorLine {
    std::string item;  // "gpu 0", "driver", "toolkit", "nvrtc", "cublas", "nvdisasm", "python3", "torch"
    bool ok = false;
    std::string text;  // the finding, or what is missing and how to fix it
};

std::vector<DoctorLine> doctor_report(bool probe_torch = true);

// Whether this machine has a CUDA device the worker could run on; `why` says why not (no
// driver, no device) when it has none.
bool cuda_device_present(std::string* why = nullptr);

// Serves `tilec worker` requests on stdin/stdout until EOF or shutdown; returns the exit code
// (3 after a sticky CUDA error).
int serve_worker_stdio(int device, double heartbeat_s);

}  // namespace tp
