// register_pressure: after ptxas has allocated registers, says at the DSL line that causes
// it when a kernel spills or keeps arrays in local memory (a warning), or when its registers
// or shared memory limit it to a quarter of the SM's warps or fewer (a remark), naming the
// fragments that hold the most registers per thread and what to change. A check on the
// compiled kernel rather than a pass: it changes nothing.
#pragma once

#include <cstdint>

#include "ir/ir.h"
#include "target.h"
#include "tileplay/compiler.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

// Registers a thread's constant-size per-thread arrays (fragments' shares after lowering) hold
// together: a lower bound of what ptxas must give the kernel.
int64_t per_thread_array_registers(const ir::PrimFunc& lowered);

void report_register_pressure(const ir::PrimFunc& lowered, const ResourceUsage& ru, int64_t threads, const Target& target,
                              DiagnosticEngine& diags);

}  // namespace tp::transform
