// CUDA C++ code generation from lowered Tile IR, with `#line` directives pointing at the DSL
// file and a CUDA-line -> DSL-line map for the UI.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/ir.h"
#include "target.h"
#include "tileplay/compiler.h"
#include "tileplay/diagnostics.h"

namespace tp::codegen {

// One __global__ function of the module: one `T.Kernel` launch.
struct CudaKernel {
    std::string name;  // extern "C" __global__ name
    int64_t dynamic_shared_bytes = 0;
};

struct CudaModule {
    std::string source;       // complete translation unit for NVRTC
    std::string kernel_name;  // the first kernel's extern "C" __global__ name
    LineMap lines;            // CUDA line -> DSL line
    int64_t dynamic_shared_bytes = 0;       // the first kernel's
    std::vector<CudaKernel> kernels;        // every launch's kernel, in program order
    std::vector<std::string> headers_used;  // embedded runtime headers included
};

// One kernel per lowered launch (pipeline.h: PipelineResult::launches), in one module. A single
// launch's kernel is `<func>_kernel`; several are `<func>_kernel_0`, `<func>_kernel_1`, ...
// Returns an empty source with diagnostics reported when something cannot be lowered.
CudaModule generate_cuda(const std::vector<ir::PrimFuncPtr>& launches, const Target& target, const std::string& dsl_path, DiagnosticEngine& diags,
                         bool line_directives = true);
// A function of one launch.
CudaModule generate_cuda(const ir::PrimFunc& func, const Target& target, const std::string& dsl_path,
                         DiagnosticEngine& diags, bool line_directives = true);

// Embedded runtime headers (name -> text), generated at build time from runtime/*.cuh. Each
// text views a string literal, so a NUL follows it (NVRTC takes C strings).
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_runtime_headers();
// 32 hex digits that change whenever any embedded header's name or text does (computed at
// build time: the module cache keys on it without hashing the headers in every process).
std::string_view embedded_runtime_headers_digest();

}  // namespace tp::codegen
