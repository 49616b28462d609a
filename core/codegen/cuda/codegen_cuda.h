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

struct CudaModule {
    std::string source;       // complete translation unit for NVRTC
    std::string kernel_name;  // extern "C" __global__ name
    LineMap lines;            // CUDA line -> DSL line
    int64_t dynamic_shared_bytes = 0;
    std::vector<std::string> headers_used;  // embedded runtime headers included
};

// Returns an empty source with diagnostics reported when something cannot be lowered.
CudaModule generate_cuda(const ir::PrimFunc& func, const Target& target, const std::string& dsl_path,
                         DiagnosticEngine& diags, bool line_directives = true);

// Embedded runtime headers (name -> text), generated at build time from runtime/*.cuh.
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_runtime_headers();

}  // namespace tp::codegen
