// tensor_map_request / encode_tensor_map (see tensor_map.h). Enum values are the driver's
// (cuda.h is never included): CU_TENSOR_MAP_DATA_TYPE_UINT8/16/32/64 = 0/1/2/4, FLOAT16 = 6, FLOAT32 = 7, BFLOAT16 = 9;
// CU_TENSOR_MAP_SWIZZLE_NONE/32B/64B/128B = 0/1/2/3; L2_PROMOTION_L2_256B = 3.
#include "runtime/tensor_map.h"

#include <stdexcept>

#include "runtime/device.h"

namespace tp::runtime {

TensorMapRequest tensor_map_request(ir::DataType dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& box,
                                    int swizzle_bytes) {
    TensorMapRequest r;
    // Other element types move as raw bits of their width (UINT8/16/32/64 = 0/1/2/4): TMA
    // converts nothing, and its zero fill past the edges is 0 in every type.
    if (dtype == ir::DataType::float16()) r.dtype = 6;
    else if (dtype == ir::DataType::bfloat16()) r.dtype = 9;
    else if (dtype == ir::DataType::float32()) r.dtype = 7;
    else if (dtype.lanes == 1 && dtype.bytes() == 1) r.dtype = 0;
    else if (dtype.lanes == 1 && dtype.bytes() == 2) r.dtype = 1;
    else if (dtype.lanes == 1 && dtype.bytes() == 4) r.dtype = 2;
    else if (dtype.lanes == 1 && dtype.bytes() == 8) r.dtype = 4;
    else throw std::invalid_argument("a TMA tensor map of " + dtype.name() + " elements is not supported");
    if (shape.empty() || shape.size() > 5 || box.size() != shape.size())
        throw std::invalid_argument("a TMA tensor map needs a box of the tensor's rank (1 to 5)");
    const uint64_t elem = static_cast<uint64_t>(dtype.bytes());
    uint64_t stride = elem;
    for (size_t i = shape.size(); i-- > 0;) {
        if (shape[i] <= 0) throw std::invalid_argument("a TMA tensor map of an empty tensor");
        r.dims.push_back(static_cast<uint64_t>(shape[i]));
        if (i + 1 < shape.size()) {
            if (stride % 16 != 0)
                throw std::invalid_argument("TMA needs rows of whole 16-byte units; this tensor's rows are " + std::to_string(stride) +
                                            " bytes");
            r.strides.push_back(stride);
        }
        stride *= static_cast<uint64_t>(shape[i]);
    }
    for (int64_t b : box) {
        if (b <= 0 || b > 256) throw std::invalid_argument("a TMA box extent must be in 1..256");
        r.box.push_back(static_cast<uint32_t>(b));
    }
    switch (swizzle_bytes) {
        case 0: r.swizzle = 0; break;
        case 32: r.swizzle = 1; break;
        case 64: r.swizzle = 2; break;
        case 128: r.swizzle = 3; break;
        default: throw std::invalid_argument("a TMA swizzle of " + std::to_string(swizzle_bytes) + " bytes");
    }
    if (swizzle_bytes > 0 && r.box[0] * elem > static_cast<uint64_t>(swizzle_bytes))
        throw std::invalid_argument("a TMA box row is wider than its swizzle span");
    return r;
}

TensorMapBytes encode_tensor_map(const TensorMapRequest& req, CUdeviceptr ptr) {
    const CudaDriver& d = cuda_driver();
    if (!d.loaded) throw CudaError(CUDA_ERROR_NO_DEVICE, d.why);
    if (!d.cuTensorMapEncodeTiled)
        throw CudaError(1, "cuTensorMapEncodeTiled: the CUDA driver has no TMA tensor maps (needs a CUDA 12 driver)");
    TensorMapBytes out;
    std::vector<uint32_t> elem_strides(req.dims.size(), 1);
    CUresult r = d.cuTensorMapEncodeTiled(out.words.data(), req.dtype, static_cast<unsigned>(req.dims.size()),
                                          reinterpret_cast<void*>(ptr), req.dims.data(), req.strides.data(), req.box.data(),
                                          elem_strides.data(), /*interleave none*/ 0, req.swizzle, /*L2 256B*/ 3, /*oob zero*/ 0);
    cu_check(r, "cuTensorMapEncodeTiled");
    return out;
}

}  // namespace tp::runtime
