// serial_reduce: a T.reduce_* whose source lives in shared (or global) memory has no warp-level
// reduction here (those reduce a fragment's registers). Since every thread can read such a
// source, it becomes, before layout inference, a T.Parallel nest over the destination with a
// serial loop along the reduced dim, so the destination gets a layout from that loop like any
// element-wise code. Same result as the interpreter's reduction (which sums in double and rounds
// once), up to the rounding of the running value. A fragment reduced into shared or local memory
// (TileLang allows any destination) is copied into a shared tile of its shape first and reduced
// from there the same way: registers of any rank and layout, a destination no layout governs.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr serial_reduce(const ir::PrimFuncPtr& func);

}  // namespace tp::transform
