// The cuBLAS reference GEMM the Hopper harnesses (wgmma_gemm_test, wgmma_gemm_variants) check
// against and time beside: row-major C[M][N] = A[M][K] B[K][N] in fp16 or bf16 with fp32
// accumulation, computed as column-major C^T = B^T A^T. Exits the process if cuBLAS fails.
#pragma once

#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>

namespace harness {

inline void cublas_gemm(cublasHandle_t h, bool bf16, const void* A, const void* B, void* C, int M, int N, int K) {
    const float alpha = 1.0f, beta = 0.0f;
    cudaDataType_t t = bf16 ? CUDA_R_16BF : CUDA_R_16F;
    if (cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, t, N, A, t, K, &beta, C, t, N, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS) {
        std::printf("[FAIL] cublasGemmEx\n");
        std::exit(1);
    }
}

}  // namespace harness
