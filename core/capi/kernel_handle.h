// What a tp_kernel handle of libtileplay's C ABI (tileplay/c_api.h) holds: the compile's
// result, the strings handed across the boundary (kept here so their pointers stay valid), and
// the cubin loaded per CUDA device for in-process launches.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "tileplay/c_api.h"
#include "tileplay/compiler.h"

struct tp_kernel {
    tp::CompileResult result;
    bool ok = false;          // the compile's verdict (a failed run later does not change it)
    std::string error;        // tp_kernel_error
    std::string diagnostics;  // tp_kernel_diagnostics
    std::string bound;        // tp_kernel_bound_params
    std::string work_assumptions;  // tp_kernel_work_assumptions

    // One loaded module per device, with the retained primary context it was loaded in.
    struct Loaded {
        tp::runtime::CUcontext ctx = nullptr;
        int device = 0;
        int sm_count = 0;
        std::unique_ptr<tp::runtime::LoadedKernel> kernel;
    };
    std::map<int, Loaded> loaded;

    ~tp_kernel();
};

namespace tp::capi {

// A tp_tensor as the core sees it: a dtype and a validated shape. False with `error` set when
// the dtype name is unknown, the rank is negative or too large, a dimension is negative, or
// the pointer is null for a non-empty tensor.
struct TensorView {
    ir::DataType dtype;
    std::vector<int64_t> shape;
    int64_t nbytes = 0;
};
bool view_tensor(const tp_tensor& t, const std::string& param, TensorView& out, std::string& error);

// Whether a scalar parameter is a symbolic dimension of a tensor parameter (T.dynamic): its
// value comes from the buffers' shapes, never from the caller's scalars.
bool is_dimension(const tp::KernelInfo& k, const tp::TensorParamInfo& scalar);

// Checks the caller's counts against the signature: one tensor per tensor parameter and one
// scalar per scalar parameter that is not a dimension (the message names what it expects).
bool check_arg_counts(const tp::KernelInfo& k, size_t n_tensors, size_t n_scalars, std::string& error);
// A diagnostic as the one line an error string carries: "file:line:col: message" (the
// diagnostic's own file, else `fallback_file`; the parts it has).
std::string one_line(const tp::Diagnostic& d, const std::string& fallback_file);

}  // namespace tp::capi
