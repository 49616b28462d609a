// The registry of intrinsic calls (CallNode::op): their arity, how the result dtype follows
// from the arguments, and the CUDA device function the code generator emits for them
// (overloads for float / half_t / bfloat16_t live in codegen/cuda/runtime/tp_math.cuh).
#pragma once

#include <string>
#include <vector>

#include "ir/dtype.h"

namespace tp::ir {

enum class IntrinsicResult {
    SameAsArg0,  // exp(x) has x's dtype
    Bool,        // isnan, isinf
    Given,       // the caller names the dtype (T.infinity("float16"))
    Void,        // side effects only (__syncthreads, atomic_add)
};

struct IntrinsicInfo {
    const char* name;       // DSL name: T.<name>
    int min_args, max_args;
    IntrinsicResult result;
    const char* cuda;       // device function in the runtime headers ("tp::exp")
    const char* fast_cuda;  // fast-math variant, or nullptr when the same
};

// Null when name is not an intrinsic.
const IntrinsicInfo* find_intrinsic(const std::string& name);
const std::vector<IntrinsicInfo>& all_intrinsics();

}  // namespace tp::ir
