// The 2-D TMA tensor map both sm_90a GEMM harnesses (wgmma_gemm_test, wgmma_gemm_variants)
// build on the host: a row-major [rows][cols] tensor, 128B swizzle, box {64, box_rows}. Needs
// <cuda.h> and the driver (linked with -lcuda from the toolkit's stubs).
#pragma once

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "tp_tma.cuh"

namespace harness {

template <class T>
inline tp::TmaDesc make_map(const T* ptr, int rows, int cols, int box_rows) {
    CUtensorMap m;
    cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
    cuuint64_t strides[1] = {cuuint64_t(cols) * sizeof(T)};
    cuuint32_t box[2] = {64, cuuint32_t(box_rows)};
    cuuint32_t estr[2] = {1, 1};
    CUtensorMapDataType dt = std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    CUresult r = cuTensorMapEncodeTiled(&m, dt, 2, const_cast<T*>(ptr), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        std::printf("[FAIL] cuTensorMapEncodeTiled: CUresult %d\n", int(r));
        std::exit(1);
    }
    tp::TmaDesc d;
    std::memcpy(&d, &m, sizeof d);
    return d;
}

}  // namespace harness
