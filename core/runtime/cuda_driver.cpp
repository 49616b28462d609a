// Binds the CUDA driver API with dlopen/dlsym; see cuda_driver.h.
#include "runtime/cuda_driver.h"
#include "runtime/nvrtc.h"

#include <dlfcn.h>

#include <cstdlib>

#include <mutex>

namespace tp::runtime {

namespace {

// Binds `name` (trying `v2` first, when given) into `slot`; false when neither exists.
template <typename Fn>
bool bind(void* lib, Fn& slot, const char* name, const char* v2 = nullptr) {
    void* p = v2 ? dlsym(lib, v2) : nullptr;
    if (!p) p = dlsym(lib, name);
    slot = reinterpret_cast<Fn>(p);
    return p != nullptr;
}

CudaDriver load_driver() {
    CudaDriver d;
    keep_ptxas_reports();  // the driver reads it at load (see nvrtc.h)
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        d.why = "the CUDA driver (libcuda.so.1) is not installed";
        return d;
    }
    bool ok = true;
    std::string missing;
    auto need = [&](bool bound, const char* name) {
        if (!bound) {
            ok = false;
            missing += missing.empty() ? name : std::string(", ") + name;
        }
    };
    need(bind(lib, d.cuInit, "cuInit"), "cuInit");
    need(bind(lib, d.cuDriverGetVersion, "cuDriverGetVersion"), "cuDriverGetVersion");
    need(bind(lib, d.cuGetErrorString, "cuGetErrorString"), "cuGetErrorString");
    need(bind(lib, d.cuGetErrorName, "cuGetErrorName"), "cuGetErrorName");
    need(bind(lib, d.cuDeviceGetCount, "cuDeviceGetCount"), "cuDeviceGetCount");
    need(bind(lib, d.cuDeviceGet, "cuDeviceGet"), "cuDeviceGet");
    need(bind(lib, d.cuDeviceGetName, "cuDeviceGetName"), "cuDeviceGetName");
    need(bind(lib, d.cuDeviceGetAttribute, "cuDeviceGetAttribute"), "cuDeviceGetAttribute");
    need(bind(lib, d.cuDeviceTotalMem, "cuDeviceTotalMem", "cuDeviceTotalMem_v2"), "cuDeviceTotalMem");
    need(bind(lib, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"), "cuDevicePrimaryCtxRetain");
    need(bind(lib, d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2"),
         "cuDevicePrimaryCtxRelease");
    need(bind(lib, d.cuCtxSetCurrent, "cuCtxSetCurrent"), "cuCtxSetCurrent");
    need(bind(lib, d.cuCtxSynchronize, "cuCtxSynchronize"), "cuCtxSynchronize");
    need(bind(lib, d.cuMemGetInfo, "cuMemGetInfo", "cuMemGetInfo_v2"), "cuMemGetInfo");
    need(bind(lib, d.cuModuleLoadData, "cuModuleLoadData"), "cuModuleLoadData");
    need(bind(lib, d.cuModuleUnload, "cuModuleUnload"), "cuModuleUnload");
    need(bind(lib, d.cuModuleGetFunction, "cuModuleGetFunction"), "cuModuleGetFunction");
    need(bind(lib, d.cuFuncSetAttribute, "cuFuncSetAttribute"), "cuFuncSetAttribute");
    need(bind(lib, d.cuFuncGetAttribute, "cuFuncGetAttribute"), "cuFuncGetAttribute");
    need(bind(lib, d.cuLaunchKernel, "cuLaunchKernel"), "cuLaunchKernel");
    need(bind(lib, d.cuMemAlloc, "cuMemAlloc", "cuMemAlloc_v2"), "cuMemAlloc");
    need(bind(lib, d.cuMemFree, "cuMemFree", "cuMemFree_v2"), "cuMemFree");
    need(bind(lib, d.cuMemcpyHtoD, "cuMemcpyHtoD", "cuMemcpyHtoD_v2"), "cuMemcpyHtoD");
    need(bind(lib, d.cuMemcpyDtoH, "cuMemcpyDtoH", "cuMemcpyDtoH_v2"), "cuMemcpyDtoH");
    need(bind(lib, d.cuMemsetD8, "cuMemsetD8", "cuMemsetD8_v2"), "cuMemsetD8");
    need(bind(lib, d.cuMemsetD8Async, "cuMemsetD8Async"), "cuMemsetD8Async");
    need(bind(lib, d.cuEventCreate, "cuEventCreate"), "cuEventCreate");
    need(bind(lib, d.cuEventRecord, "cuEventRecord"), "cuEventRecord");
    need(bind(lib, d.cuEventSynchronize, "cuEventSynchronize"), "cuEventSynchronize");
    need(bind(lib, d.cuEventElapsedTime, "cuEventElapsedTime", "cuEventElapsedTime_v2"), "cuEventElapsedTime");
    need(bind(lib, d.cuEventDestroy, "cuEventDestroy", "cuEventDestroy_v2"), "cuEventDestroy");
    need(bind(lib, d.cuStreamSynchronize, "cuStreamSynchronize"), "cuStreamSynchronize");
    bind(lib, d.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");  // optional: only sm_90a GEMMs need it
    bind(lib, d.cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId");        // optional: NVML readings only
    bind(lib, d.cuModuleGetGlobal, "cuModuleGetGlobal_v2");         // optional: timelines only (the v1 has 32-bit pointers)
    if (!ok) {
        d.why = "the CUDA driver is too old (missing " + missing + ")";
        return d;
    }
    CUresult r = d.cuInit(0);
    if (r != CUDA_SUCCESS) {
        const char* name = nullptr;
        const char* text = nullptr;
        d.cuGetErrorName(r, &name);
        d.cuGetErrorString(r, &text);
        d.why = std::string("cuInit failed: ") + (name ? name : "?") + ": " + (text ? text : "?");
        if (r == CUDA_ERROR_NO_DEVICE) d.why = "no CUDA device (the driver is installed but sees no GPU)";
        return d;
    }
    d.loaded = true;
    return d;
}

}  // namespace

const CudaDriver& cuda_driver() {
    static CudaDriver d;
    static std::once_flag once;
    std::call_once(once, [] { d = load_driver(); });
    return d;
}

std::string cu_error_text(CUresult r) {
    const CudaDriver& d = cuda_driver();
    const char* name = nullptr;
    const char* text = nullptr;
    if (d.cuGetErrorName) d.cuGetErrorName(r, &name);
    if (d.cuGetErrorString) d.cuGetErrorString(r, &text);
    if (!name) return "CUresult " + std::to_string(r);
    return std::string(name) + ": " + (text ? text : "");
}

bool cu_error_is_sticky(CUresult r) {
    // Illegal address, launch timeout, hardware stack error, illegal instruction, misaligned
    // address, invalid address space, invalid pc, launch failed, unknown: the context is lost.
    return r == 700 || r == 702 || (r >= 714 && r <= 719) || r == 999;
}

int cuda_device_count(std::string* why) {
    const CudaDriver& d = cuda_driver();
    if (!d.loaded) {
        if (why) *why = d.why;
        return 0;
    }
    int n = 0;
    CUresult r = d.cuDeviceGetCount(&n);
    if (r != CUDA_SUCCESS) {
        if (why) *why = "cuDeviceGetCount failed: " + cu_error_text(r);
        return 0;
    }
    if (n == 0 && why) *why = "no CUDA device (the driver sees no GPU)";
    return n;
}

std::string cuda_driver_version() {
    const CudaDriver& d = cuda_driver();
    int v = 0;
    if (!d.cuDriverGetVersion || d.cuDriverGetVersion(&v) != CUDA_SUCCESS || v <= 0) return "";
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace tp::runtime
