// bind_threads: maps each outermost T.Parallel nest inside T.Kernel onto the block's threads.
// A nest of N elements on T threads runs ceil(N/T) rounds; in round k thread t handles
// element k*T + t (consecutive threads take consecutive elements, so global accesses along
// the innermost dim coalesce), guarded when T does not divide N. Loop variables become
// LetStmts of that element index, so bodies are unchanged. Inner T.Parallel loops run serially.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr bind_threads(const ir::PrimFuncPtr& func);

}  // namespace tp::transform
