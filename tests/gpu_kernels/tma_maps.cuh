// TMA tensor maps for the sm_90a harnesses (wgmma_gemm_test, wgmma_gemm_variants, wgmma_fa_test),
// encoded on the host with 128B swizzle. cuTensorMapEncodeTiled comes through the runtime's
// driver entry point rather than -lcuda, so the binaries link without the driver and still
// start (and say [SKIP]) on a machine that has none.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "tp_tma.cuh"

namespace harness {

inline decltype(&cuTensorMapEncodeTiled) encode_fn() {
    static decltype(&cuTensorMapEncodeTiled) fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult q{};
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess || !p) {
            std::printf("[FAIL] cuTensorMapEncodeTiled: not found in the driver\n");
            std::exit(1);
        }
        return reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(p);
    }();
    return fn;
}

// A row-major tensor of RANK dims (innermost first), byte strides of the outer dims, a box of
// RANK extents, unit element strides, 128B swizzle, out-of-bounds elements read as zeros.
template <class T, int RANK>
tp::TmaDesc encode_map(const T* ptr, const cuuint64_t (&dims)[RANK], const cuuint64_t (&strides)[RANK - 1],
                       const cuuint32_t (&box)[RANK]) {
    CUtensorMap m;
    cuuint32_t estr[RANK];
    for (int i = 0; i < RANK; ++i) estr[i] = 1;
    CUtensorMapDataType dt = std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    CUresult r = encode_fn()(&m, dt, RANK, const_cast<T*>(ptr), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        std::printf("[FAIL] cuTensorMapEncodeTiled: CUresult %d\n", int(r));
        std::exit(1);
    }
    tp::TmaDesc d;
    std::memcpy(&d, &m, sizeof d);
    return d;
}

// A row-major [rows][cols] matrix, box {64, box_rows}.
template <class T>
inline tp::TmaDesc make_map(const T* ptr, int rows, int cols, int box_rows) {
    return encode_map<T, 2>(ptr, {cuuint64_t(cols), cuuint64_t(rows)}, {cuuint64_t(cols) * sizeof(T)}, {64, cuuint32_t(box_rows)});
}

}  // namespace harness
