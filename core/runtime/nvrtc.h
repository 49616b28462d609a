// NVRTC, loaded with dlopen so binaries start on machines without the CUDA toolkit:
// CUDA C++ -> PTX and cubin for a target, with the embedded runtime headers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tp::runtime {

struct NvrtcOptions {
    std::string arch = "sm_90";  // sm_75 ... sm_90a
    bool lineinfo = true;
    bool fast_math = false;
    bool use_cache = true;  // false: neither served from nor stored in the module cache
    std::vector<std::string> extra;
};

struct NvrtcOutput {
    bool ok = false;
    std::string ptx;
    std::vector<uint8_t> cubin;
    std::string log;
    std::string error;  // set when NVRTC itself is unavailable or failed
    double ptx_ms = 0, cubin_ms = 0;
    std::string cache;  // "memory" or "disk" when served by the module cache (module_cache.h)
};

// With a driver present, NVRTC serves a cubin it compiled before from the driver's compute
// cache without running ptxas, so the log lacks ptxas' resource report (registers, spills,
// shared memory) that inspect, tune and the playground show. Sets CUDA_CACHE_DISABLE=1 unless
// the user set it. Mains call it before starting threads (setenv may race with getenv);
// the NVRTC and driver loaders call it again, which is then a no-op.
void keep_ptxas_reports();

bool nvrtc_available(std::string* why = nullptr);
std::string nvrtc_version();  // "13.0" or ""
// Served from the module cache when the same source, options and headers were compiled before.
NvrtcOutput nvrtc_compile(const std::string& source, const std::string& name, const NvrtcOptions& opts);

}  // namespace tp::runtime
