// `tilec doctor`'s report; see tileplay/doctor.h.
#include "tileplay/doctor.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "baselines/baselines.h"
#include "runtime/device.h"
#include "runtime/nvrtc.h"
#include "worker/server.h"
#include "worker/subprocess.h"

namespace tp {

namespace {

std::string find_tool(const std::string& name) {
    std::string p = worker::find_executable(name);
    if (p.empty()) {
        std::string cand = "/usr/local/cuda/bin/" + name;
        p = worker::find_executable(cand);
    }
    return p;
}

std::string toolkit_version() {
    std::ifstream in("/usr/local/cuda/version.json");
    if (in) {
        nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
        if (!j.is_discarded()) return j.value("cuda", nlohmann::json::object()).value("version", "");
    }
    // Trimmed installs lack version.json; nvcc prints "release 13.0, V13.0.88".
    std::string nvcc = find_tool("nvcc");
    if (nvcc.empty()) return "";
    worker::CommandResult r = worker::run_command({nvcc, "--version"}, 10000);
    size_t pos = r.out.find("release ");
    if (pos == std::string::npos) return "";
    size_t end = r.out.find_first_of(",\n", pos);
    return r.out.substr(pos + 8, end == std::string::npos ? std::string::npos : end - pos - 8);
}

std::string gib(size_t b) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f GiB", static_cast<double>(b) / (1024.0 * 1024 * 1024));
    return buf;
}

}  // namespace

bool cuda_device_present(std::string* why) { return runtime::query_device(0, why).has_value(); }

std::vector<DoctorLine> doctor_report(bool with_torch) {
    std::vector<DoctorLine> out;
    std::string why;
    int n = runtime::cuda_device_count(&why);
    if (n == 0) {
        out.push_back({"gpu", false, "no CUDA device: " + why + "; `tilec run --device cpu` runs kernels on the CPU"});
    } else {
        for (int i = 0; i < n; ++i) {
            auto d = runtime::query_device(i, &why);
            if (!d) {
                out.push_back({"gpu " + std::to_string(i), false, why});
                continue;
            }
            std::ostringstream s;
            s << d->name << ", " << d->target() << ", " << d->sm_count << " SMs, " << gib(d->total_bytes) << " ("
              << gib(d->free_bytes) << " free), L2 " << d->l2_bytes / (1024 * 1024) << " MiB, smem/block "
              << d->max_smem_optin << " B";
            out.push_back({"gpu " + std::to_string(i), true, s.str()});
        }
    }
    std::string drv = runtime::cuda_driver_version();
    out.push_back({"driver", !drv.empty(),
                   drv.empty() ? "libcuda.so.1 not loaded: " + runtime::cuda_driver().why + "; install the NVIDIA driver"
                               : "CUDA " + drv});
    std::string tk = toolkit_version();
    out.push_back({"toolkit", !tk.empty(), tk.empty() ? "no CUDA toolkit (nvcc, version.json) at /usr/local/cuda; install it there"
                                                     : "CUDA " + tk});
    std::string nv_why;
    bool nv = runtime::nvrtc_available(&nv_why);
    out.push_back({"nvrtc", nv, nv ? "NVRTC " + runtime::nvrtc_version() : nv_why + "; kernels cannot be compiled to PTX/cubin"});
    std::string cb_why, cb = baselines::cublas_version(&cb_why);
    out.push_back({"cublas", !cb.empty(), cb.empty() ? cb_why + "; the cuBLAS baselines are unavailable" : cb});
    for (const char* tool : {"nvdisasm", "ptxas"}) {
        std::string p = find_tool(tool);
        out.push_back({tool, !p.empty(), p.empty() ? std::string(tool) + " not found; add /usr/local/cuda/bin to PATH" : p});
    }
    if (with_torch) {
        baselines::TorchProbe t = baselines::probe_torch();
        out.push_back({"python3", t.python, t.python ? "Python " + t.python_version : t.why + "; install python3"});
        if (t.python) {
            std::string text = t.torch ? "torch " + t.torch_version + " (CUDA " + (t.torch_cuda.empty() ? "none" : t.torch_cuda) +
                                             (t.cuda_available ? ", device visible)" : ", no device visible)")
                                       : "cannot import torch: " + t.why + "; `pip install torch` for the PyTorch baselines";
            out.push_back({"torch", t.torch && t.cuda_available, text});
        }
    }
    return out;
}

int serve_worker_stdio(int device, double heartbeat_s) {
    worker::ServerOptions opts;
    opts.device = device;
    opts.heartbeat_s = heartbeat_s;
    // Device printf (T.print) writes to the process's stdout; keep the JSON lines on a private
    // copy of it so printed text can never break the protocol, and hand the text back in replies.
    std::FILE* proto = worker::capture_stdout();
    return worker::serve(stdin, proto ? proto : stdout, opts);
}

}  // namespace tp
