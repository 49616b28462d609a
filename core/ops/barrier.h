// The mbarrier operations of T.alloc_barrier (ir::BarrierOpNode) as an op object: the device
// helper each kind calls (codegen/cuda/runtime/tp_mbarrier.cuh). Every copy our lowering makes
// of a T.tma_copy completes before the statement after it, so no transaction bytes ever land
// on a barrier: a phase's expected bytes are already there, expect_tx has nothing to announce
// and arrive_expect_tx is a plain arrive (the interpreter, interp/barriers.cpp, agrees).
// Its CUDA form is in codegen/cuda/ops/barrier.cpp.
#pragma once

#include "ir/ir.h"

namespace tp::ops {

// "tp::user_mbar_arrive" or "tp::user_mbar_wait"; null for expect_tx, which emits nothing.
const char* barrier_helper(ir::BarrierKind k);
// Whether the operation's value (parity) is an argument of the helper.
bool barrier_passes_value(ir::BarrierKind k);

}  // namespace tp::ops
