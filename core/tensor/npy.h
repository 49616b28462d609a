// .npy (format v1.0) read/write for HostTensor, so inputs and outputs of `tilec run`, the GPU
// worker and the baselines can be checked with numpy.
//
// Descriptors: '<f2' float16, '<f4' float32, '<f8' float64, '|i1' '<i2' '<i4' '<i8',
// '|u1' '<u2' '<u4' '<u8', '|b1' bool. numpy has no bfloat16 or fp8, so those are written as
// their raw bits: bfloat16 as '<u2', fp8 as '|u1' (view them with ml_dtypes, or
// `(a.astype(np.uint32) << 16).view(np.float32)` for bf16). '|V2' / '<V2' are read as bf16
// bits too. load_npy_as() applies that rule when a file is loaded for a parameter of a known
// dtype: uint16 bits into a bf16 parameter and uint8 bits into an fp8 parameter are
// reinterpreted, every other dtype pair is converted by value.
#pragma once

#include <string>

#include "tensor.h"

namespace tp {

// Numpy descriptor for a dtype, e.g. "<f2"; empty when it has none.
std::string npy_descr(ir::DataType t);

bool write_npy(const std::string& path, const HostTensor& t, std::string* error = nullptr);
bool read_npy(const std::string& path, HostTensor& out, std::string* error = nullptr);

// Encodes / decodes the whole file in memory (used by the file functions and by tests).
std::string encode_npy(const HostTensor& t);
bool decode_npy(const std::string& bytes, HostTensor& out, std::string* error = nullptr);

// Reads `path` and returns it as `want` with the given shape; an error when the shape differs
// or the dtype cannot be converted.
bool load_npy_as(const std::string& path, ir::DataType want, const std::vector<int64_t>& shape,
                 HostTensor& out, std::string* error = nullptr);

}  // namespace tp
