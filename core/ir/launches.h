// Kernel functions with several `T.Kernel` launches. TileLang runs each `with T.Kernel(...)`
// block of one prim_func as its own GPU launch, in program order on one stream. The passes,
// the code generator and the interpreter each handle one launch at a time: these helpers cut
// a function into one function per launch (same parameters and attributes, the body holding
// only the trace-time wrappers around that launch) and put the lowered pieces back together.
#pragma once

#include <vector>

#include "ir/ir.h"

namespace tp::ir {

// How many KernelLaunch nodes `s` holds (launches do not nest).
size_t count_launches(const Stmt& s);

// One function per launch, in program order; a function of one launch (or none) comes back
// as itself. Each keeps the wrappers (lets, allocations) its launch sits in. Outside its
// launches a function holds nothing else (the evaluator refuses device statements outside a
// `T.Kernel`, TileOpOutsideKernel), so no statement belongs to no launch.
std::vector<PrimFuncPtr> split_launches(const PrimFuncPtr& f);

// The launches' functions back as one, for printing (--emit=lowered) and for questions about
// the whole kernel: the bodies in order, the attributes of all (the first launch's value
// where two differ; per-launch values such as TMA maps are read from the parts).
PrimFuncPtr join_launches(const std::vector<PrimFuncPtr>& parts);

}  // namespace tp::ir
