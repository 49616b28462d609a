// The argument list and launch geometry of a compiled kernel given its tensors' device pointers
// and its scalar values: pointers and scalars in signature order, TMA tensor maps after them,
// the grid with symbolic extents evaluated and a persistent grid capped by the device. Shared by
// the worker (buffers it allocated) and libtileplay's in-process launch (buffers the caller
// owns, e.g. torch tensors), so both pass a kernel exactly the same arguments.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "tileplay/compiler.h"

namespace tp::worker {

// A tensor argument already in device memory.
struct DeviceArg {
    ir::DataType dtype;
    std::vector<int64_t> shape;
    runtime::CUdeviceptr ptr = 0;
};

// Pointers and scalars in signature order, then the TMA tensor maps (compiler.h,
// TensorMapInfo). Throws WorkerError (bad_request: a scalar or tensor missing; launch_failed:
// TMA cannot describe a tensor).
runtime::KernelArgs build_kernel_args(const KernelInfo& k, const std::map<std::string, DeviceArg>& tensors,
                                      const std::map<std::string, double>& scalars);

// The __global__ name of each `T.Kernel` launch, in program order (what LoadedKernel looks up).
std::vector<std::string> kernel_names(const KernelInfo& k);

// The kernel's grid with symbolic extents evaluated from `scalars` (symbols by name); throws
// WorkerError(launch_failed) when one cannot be.
std::vector<int64_t> resolve_grid(const KernelInfo& k, const std::map<std::string, double>& scalars);

// The launch geometry; a persistent kernel's grid x is capped at sm_count * blocks_per_sm
// (sm_count 0: not capped). Throws WorkerError(launch_failed) when CUDA cannot launch it.
runtime::LaunchConfig build_launch_config(const KernelInfo& k, const std::map<std::string, double>& scalars, int sm_count);

}  // namespace tp::worker
