/* libtileplay's C ABI: compile a TileLang kernel factory of a source file with arguments, read
 * its CUDA C++, PTX, cubin and parameter list, run it on the CPU interpreter with host buffers,
 * or launch it on a CUDA stream with device pointers. Plain C with one opaque handle, so any
 * language with a C FFI (the Python package uses ctypes) can call it without a C++ ABI.
 *
 * Conventions: functions never throw or abort on bad input; a call that fails returns non-zero
 * (or NULL) and the handle's tp_kernel_error() says why. Strings returned by the library are
 * owned by the handle and stay valid until the next call that changes it (a run or launch sets
 * the error text) or tp_kernel_free(). A handle is not safe to use from two threads at once. */
#ifndef TILEPLAY_C_API_H
#define TILEPLAY_C_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TP_C_API_VERSION 3  /* 3: tp_kernel_work, tp_target_figures */

typedef struct tp_kernel tp_kernel;

/* One tensor argument: a dense row-major buffer (host memory for tp_kernel_run_cpu, device
 * memory for tp_kernel_launch) with its dtype name ("float16", "float32", "int32", ...) and
 * shape. Symbolic dimensions of the kernel's signature take their values from these shapes. */
typedef struct tp_tensor {
    void* data;
    const char* dtype;
    int32_t ndim;
    const int64_t* shape;
} tp_tensor;

/* TP_C_API_VERSION of the library (callers loading it at run time check it matches). */
int tp_api_version(void);

/* Compiles the factory `kernel` (NULL or "": the file's only / first one) of the TileLang file
 * at `path`. `defines` are n_defines "NAME=VALUE" strings binding the factory's arguments
 * (values parse as int, float, True/False, a dtype name or a string); `pass_configs` are
 * "KEY=VALUE" TileLang pass configs (e.g. "tl.disable_warp_specialized=true") over the file's
 * own. `target` is "sm_80", "sm_90a", ... (NULL: "sm_90"). `stage` is the last stage produced:
 * "ir" (enough for the CPU interpreter), "cuda", "ptx" or "cubin" (NULL: "cubin").
 * Returns a handle even when the compile fails (tp_kernel_ok() is 0 and the diagnostics say
 * why); NULL only when memory runs out. */
tp_kernel* tp_compile(const char* path, const char* kernel, const char* const* defines, size_t n_defines, const char* target,
                      const char* const* pass_configs, size_t n_pass_configs, const char* stage);
void tp_kernel_free(tp_kernel* k);

/* 1 when the compile produced every requested stage without errors. */
int tp_kernel_ok(const tp_kernel* k);
/* The last error: the compile's first error as "file:line:col: message", or why the last run
 * or launch failed; "" when there is none. */
const char* tp_kernel_error(const tp_kernel* k);
/* Every diagnostic rendered "file:line:col: error: message [Kind]" with the source line and a
 * caret, one after the other; "" when there are none. */
const char* tp_kernel_diagnostics(const tp_kernel* k);

/* The generated __global__ function's name, the factory it came from, the CUDA C++ source and
 * the PTX ("" when the compile stopped before that stage), and the cubin's bytes (NULL with
 * *size = 0 when there is none). */
const char* tp_kernel_name(const tp_kernel* k);
const char* tp_kernel_factory(const tp_kernel* k);
const char* tp_kernel_cuda(const tp_kernel* k);
const char* tp_kernel_ptx(const tp_kernel* k);
const uint8_t* tp_kernel_cubin(const tp_kernel* k, size_t* size);
/* The kernel's `T.Kernel` launches: a kernel function with several runs each as its own
 * __global__ function, in program order (tp_kernel_launch launches them all); one launch's
 * name is tp_kernel_name's. An out-of-range index gives NULL. */
int tp_kernel_num_launches(const tp_kernel* k);
const char* tp_kernel_launch_name(const tp_kernel* k, int i);
/* The factory's argument values the compile used, as "NAME=VALUE" lines. */
const char* tp_kernel_bound_params(const tp_kernel* k);

/* The work the kernel does, counted on its Tile IR: *flops the floating-point operations of its
 * T.gemm tiles, *global_bytes the bytes its copies, atomics and element accesses move to and
 * from global memory, over every block and loop trip. Returns 1 when the counts are exact, 0
 * when a runtime trip count or a branch had to be assumed (tp_kernel_work_assumptions says
 * which, one line each), -1 without an evaluated kernel. */
int tp_kernel_work(tp_kernel* k, double* flops, double* global_bytes);
const char* tp_kernel_work_assumptions(const tp_kernel* k);

/* The kernel's parameters in signature order: tensors (with dtype and shape; a dimension left
 * symbolic is -1 and its text names the symbol) and scalars (ndim 0). Outputs are the
 * tensors the factory's out_idx names. Out-of-range indices give NULL / -1 / 0. */
int tp_kernel_num_params(const tp_kernel* k);
const char* tp_kernel_param_name(const tp_kernel* k, int i);
const char* tp_kernel_param_dtype(const tp_kernel* k, int i);
int tp_kernel_param_ndim(const tp_kernel* k, int i);
int64_t tp_kernel_param_dim(const tp_kernel* k, int i, int d);
const char* tp_kernel_param_dim_text(const tp_kernel* k, int i, int d);
int tp_kernel_param_is_output(const tp_kernel* k, int i);
/* 1 for a T.alloc_global workspace: also an output (allocated by the caller, zeroed), but a
 * scratch buffer of the kernel's launches, not one of its results. */
int tp_kernel_param_is_workspace(const tp_kernel* k, int i);
int tp_kernel_param_is_scalar(const tp_kernel* k, int i);
/* 1 for a scalar parameter that is a tensor's symbolic dimension (T.dynamic): runs bind it
 * from the buffers' shapes, so the caller passes no value for it. */
int tp_kernel_param_is_dimension(const tp_kernel* k, int i);

/* Runs the kernel on the CPU interpreter. `tensors` holds one host buffer per tensor parameter
 * and `scalars` one value per scalar parameter that is not a dimension, both in signature order. Every tensor's dtype
 * and shape must match the signature; outputs (and any tensor the kernel stores to) are
 * written in place. `threads` = 0 uses every core. Returns 0, or non-zero with
 * tp_kernel_error() set (wrong count, dtype or shape, or a run-time error at a DSL line). */
int tp_kernel_run_cpu(tp_kernel* k, const tp_tensor* tensors, size_t n_tensors, const double* scalars, size_t n_scalars, int threads);

/* Launches the compiled cubin on `stream` (a CUstream / cudaStream_t; NULL = the default
 * stream) of CUDA device `device`, whose primary context is made current, with device
 * pointers in `tensors` (as for tp_kernel_run_cpu); a kernel of several launches queues them
 * all, in order on that stream. Asynchronous: it returns once the launches are queued. The
 * CUDA driver is loaded at run time; without one, or without a cubin, it returns non-zero
 * with tp_kernel_error() saying so. */
int tp_kernel_launch(tp_kernel* k, int device, void* stream, const tp_tensor* tensors, size_t n_tensors, const double* scalars, size_t n_scalars);

/* The number of CUDA devices (0 without a driver or a device). */
int tp_cuda_device_count(void);
/* The target to compile for device `device` ("sm_90a" on Hopper: the arch-specific variant
 * where it adds instructions) into buf (NUL-terminated); 0, or non-zero without that device. */
int tp_cuda_device_target(int device, char* buf, size_t size);
/* The figures TilePlay's target table holds for `target` ("sm_80", "sm_90a", ...): its example
 * GPU's DRAM bandwidth in GB/s, dense fp16 Tensor-Core TFLOP/s and SM count; 0, or non-zero
 * for a target it does not know. */
int tp_target_figures(const char* target, double* dram_gbps, double* fp16_tflops, int* sm_count);

#ifdef __cplusplus
}
#endif

#endif /* TILEPLAY_C_API_H */
