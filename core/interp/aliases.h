// Dtype views on the CPU. A `T.view(tile, dtype=...)` is a buffer of its own laid over its
// tile's bytes on the GPU ("tp.alias.<view>" = "<tile>:<bytes>", eval/tile_views.cpp). Kernels
// use one to reuse a tile's memory for values of another type once the tile's own are dead
// (sparse MLA backward's f32 accumulator staging over a bf16 key tile); reading bytes through
// the other dtype would reinterpret bits, which the engines here do not model. So the view and
// its tile keep separate storage, and a statement that writes one of them after the other was
// written last first fills the other with NaN: the bytes now hold this dtype's values, and a
// kernel that read them through the other dtype gets NaN on the CPU (visible in its outputs and
// in the GPU check) instead of a plausible wrong value. The LLVM JIT runs a view as a buffer of
// its own too (the same values for a kernel that never reads across), without the NaN fill:
// the interpreter, the reference the GPU check and `--device cpu-interp` use, is the one that
// shows a kernel reading across.
#pragma once

#include "interp/program.h"

namespace tp::interp {

// Whether `f` has dtype views.
bool has_dtype_views(const ir::PrimFunc& f);

// Reads f's alias attributes into p (the groups of buffers sharing bytes, by slot).
void set_alias_groups(Program& p, const ir::PrimFunc& f);

// `inner` (the compiled `s`), preceded by the claim of its tile's bytes when `s` writes a
// member of an alias group; `inner` itself otherwise.
CStmtP claim_aliases(Program& p, const ir::Stmt& s, CStmtP inner);

}  // namespace tp::interp
