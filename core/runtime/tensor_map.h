// TMA tensor maps for sm_90a kernels: the 128-byte CUtensorMap that cuTensorMapEncodeTiled
// (resolved through the dlopen'd driver table) builds for a row-major device tensor, passed
// by value as a __grid_constant__ kernel parameter (TensorMapInfo in tileplay/compiler.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "runtime/cuda_driver.h"

namespace tp::runtime {

struct alignas(128) TensorMapBytes {
    std::array<uint64_t, 16> words{};
};

// The arguments cuTensorMapEncodeTiled receives, innermost dimension first; kept as a value
// so they can be checked without a driver (tests) and shown in error messages.
struct TensorMapRequest {
    int dtype = 0;                      // CUtensorMapDataType
    std::vector<uint64_t> dims;         // elements
    std::vector<uint64_t> strides;      // bytes, dims 1.. (dim 0 is contiguous)
    std::vector<uint32_t> box;          // elements
    int swizzle = 0;                    // CUtensorMapSwizzle
};

// Builds the request for a row-major tensor of `shape` (outermost first) and a box given
// innermost first. Throws std::invalid_argument with a readable reason when TMA cannot
// describe it (rank, dtype, 16-byte strides, box limits).
TensorMapRequest tensor_map_request(ir::DataType dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& box,
                                    int swizzle_bytes);

// Encodes the map for the tensor at `ptr`; throws CudaError when the driver lacks the entry
// point or rejects the request.
TensorMapBytes encode_tensor_map(const TensorMapRequest& req, CUdeviceptr ptr);

}  // namespace tp::runtime
