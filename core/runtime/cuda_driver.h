// The CUDA driver API, loaded with dlopen("libcuda.so.1") so every binary starts on a machine
// without a driver. Only the handful of types and entry points TilePlay uses are declared here
// (never cuda.h); the _v2 symbols are bound where the driver exports them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tp::runtime {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUevent = struct CUevent_st*;
using CUstream = struct CUstream_st*;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_ILLEGAL_ADDRESS = 700;
constexpr CUresult CUDA_ERROR_LAUNCH_TIMEOUT = 702;
constexpr CUresult CUDA_ERROR_LAUNCH_FAILED = 719;

// CUdevice_attribute values used by doctor and the runtime.
enum DeviceAttr : int {
    kAttrClockRateKHz = 13,
    kAttrSmCount = 16,
    kAttrMemoryClockKHz = 36,
    kAttrMemoryBusWidth = 37,
    kAttrL2CacheBytes = 38,
    kAttrCcMajor = 75,
    kAttrCcMinor = 76,
    kAttrMaxSharedPerBlockOptin = 97,
};

// CUfunction_attribute values.
enum FuncAttr : int {
    kFuncMaxThreadsPerBlock = 0,
    kFuncSharedSizeBytes = 1,
    kFuncLocalSizeBytes = 3,
    kFuncNumRegs = 4,
    kFuncMaxDynamicSharedBytes = 8,
};

// Function table of the loaded driver. Members are null until load() succeeds.
struct CudaDriver {
    CUresult (*cuInit)(unsigned) = nullptr;
    CUresult (*cuDriverGetVersion)(int*) = nullptr;
    CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
    CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
    CUresult (*cuDeviceGetCount)(int*) = nullptr;
    CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
    CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
    CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
    CUresult (*cuDeviceTotalMem)(size_t*, CUdevice) = nullptr;
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
    CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
    CUresult (*cuCtxSynchronize)() = nullptr;
    CUresult (*cuMemGetInfo)(size_t*, size_t*) = nullptr;
    CUresult (*cuModuleLoadData)(CUmodule*, const void*) = nullptr;
    CUresult (*cuModuleUnload)(CUmodule) = nullptr;
    CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
    // Optional: a module's __device__ variable (the timeline buffer of `tilec run --timeline`).
    CUresult (*cuModuleGetGlobal)(CUdeviceptr*, size_t*, CUmodule, const char*) = nullptr;
    CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
    CUresult (*cuFuncGetAttribute)(int*, int, CUfunction) = nullptr;
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               CUstream, void**, void**) = nullptr;
    CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
    CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
    CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
    CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
    CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
    CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream) = nullptr;
    CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
    CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
    CUresult (*cuEventSynchronize)(CUevent) = nullptr;
    CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
    CUresult (*cuEventDestroy)(CUevent) = nullptr;
    CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
    // Optional: the PCI bus id names the device to NVML (clocks and power during a bench).
    CUresult (*cuDeviceGetPCIBusId)(char*, int, CUdevice) = nullptr;
    // Optional (CUDA 12+ drivers): TMA tensor maps for sm_90a kernels; null when absent.
    CUresult (*cuTensorMapEncodeTiled)(void* map, int dtype, unsigned rank, void* global, const uint64_t* dims,
                                       const uint64_t* strides, const uint32_t* box, const uint32_t* elem_strides,
                                       int interleave, int swizzle, int l2_promotion, int oob_fill) = nullptr;

    bool loaded = false;
    std::string why;  // why loading failed, for `tilec doctor` and error messages
};

// Loads libcuda.so.1 once (thread-safe) and calls cuInit(0). The returned table has
// loaded == false and `why` set when there is no driver or cuInit fails.
const CudaDriver& cuda_driver();

// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered", or "CUresult N"
// when the driver is not loaded.
std::string cu_error_text(CUresult r);

// True for errors after which the context is unusable (illegal address, launch failure, ...):
// the worker exits after reporting one.
bool cu_error_is_sticky(CUresult r);

// Number of CUDA devices (0 when the driver is missing or reports none); `why` explains 0.
int cuda_device_count(std::string* why = nullptr);

// "13.0" from cuDriverGetVersion, or "" without a driver.
std::string cuda_driver_version();

}  // namespace tp::runtime
