// Generated for the token-class and line-link tests
#include "tp_gemm.cuh"
#line 30 "gemm.py"
extern "C" __global__ void __launch_bounds__(128) gemm_kernel(half_t* A) {
#line 31 "gemm.py"
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(a), "l"(b));
  __syncthreads();
#line 32 "gemm.py"
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(x));
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%1}, {%2}, {%3};");
}
