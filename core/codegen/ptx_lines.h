// Reads PTX `.loc` directives (following `inlined_at` chains back to the outermost call site
// in the DSL file) and SASS line-info comments into generated-line -> DSL-line maps.
#pragma once

#include <string>

#include "tileplay/compiler.h"

namespace tp::codegen {

LineMap ptx_line_map(const std::string& ptx, const std::string& dsl_path);

// Parses "ptxas info" lines (registers, smem, spills, stack) from an NVRTC/ptxas log.
ResourceUsage parse_ptxas_info(const std::string& log);

}  // namespace tp::codegen
