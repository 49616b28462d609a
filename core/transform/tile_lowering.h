// Helpers shared by the lowering passes (layout_inference, lower_tile_ops, pipeline_loops):
// T.Parallel nests for element-wise tile ops, calls into the Tensor-Core templates of
// codegen/cuda/runtime/tp_*.cuh as IR, and the 2-D view of a buffer region those templates take.
//
// A template call is Evaluate(Call("tp.call", {StringImm(callee), args...})); "tp.call_async"
// marks the cp.async producers of a software pipeline, whose writes the pipeline publishes
// itself (insert_syncs leaves them alone). Pointer arguments are Call("tp.addr_r" | "tp.addr_w",
// {BufferLoad}) = &buffer[indices], read or written by the callee (insert_syncs uses that).
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace tp::transform {

ir::Stmt device_call(const std::string& callee, std::vector<ir::Expr> args, Span span, bool async = false);
ir::Expr buffer_addr(const ir::Buffer& b, std::vector<ir::Expr> indices, bool written, Span span = {});
// The callee of a device_call statement, or "" when s is not one; *async set for tp.call_async.
std::string device_callee(const ir::Stmt& s, bool* async = nullptr);

// Dims of a region whose extent is not the constant 1 (TileLang pairs regions by these).
std::vector<size_t> non_unit_dims(const ir::BufferRegion& r);
bool same_extent(const ir::Expr& a, const ir::Expr& b);
// Indices of r for the loop vars (one per non-unit dim) and the in-bounds condition for a
// global buffer (null when statically in bounds).
std::pair<std::vector<ir::Expr>, ir::Expr> region_access(const ir::BufferRegion& r, const std::vector<ir::Var>& vars);
std::vector<ir::Var> nest_vars(size_t n, Span span);
ir::Stmt parallel_nest(const std::vector<ir::Var>& vars, const std::vector<ir::Expr>& extents, ir::Stmt body, Span span);
// Element-wise copy dst <- src as a T.Parallel nest (null when the shapes do not pair up).
// The T.Parallel nest over two regions paired by their non-unit dims (TileLang's rule), its body
// built by `element` from the source element (cast to the destination's dtype), the destination
// element's indices and the two regions' bounds conditions (null when in bounds); null when the
// shapes do not pair up.
using ElementBody = std::function<ir::Stmt(ir::Expr value, const ir::Expr& src_cond, const std::vector<ir::Expr>& dst_index,
                                           const ir::Expr& dst_cond)>;
ir::Stmt region_nest(const ir::BufferRegion& src, const ir::BufferRegion& dst, Span span, const ElementBody& element);
ir::Stmt copy_nest(const ir::BufferRegion& src, const ir::BufferRegion& dst, Span span);
// T.fill of `dst` with `value` as a T.Parallel nest over its non-unit dims, each store guarded
// where the region may leave its buffer.
ir::Stmt fill_nest(const ir::BufferRegion& dst, const ir::Expr& value, Span span);

// A region seen as a rows x cols tile whose columns are contiguous in memory (the last dim of
// the buffer): origin element, row stride, and how many rows/cols lie inside the buffer.
struct Tile2D {
    ir::Expr origin_row, origin_col;
    std::vector<ir::Expr> origin;  // full index of element (0, 0)
    int64_t rows = 0, cols = 0;    // constant extents
    ir::Expr ld;                   // elements between rows
    ir::Expr rows_valid, cols_valid;
};
std::optional<Tile2D> tile_2d(const ir::BufferRegion& r);
// True when the region is all of a buffer with a constant 2-D (or 1 x N) shape.
bool whole_buffer(const ir::BufferRegion& r);

// True when the tile provably lies inside its buffer with 16-byte aligned rows for `vec`-element
// chunks: constant shape, tile dims dividing the buffer dims, origins multiples of the tile
// dims (block_index * block_size), so copies may drop every predicate (IN_BOUNDS templates).
bool tile_in_bounds(const ir::BufferRegion& r, const Tile2D& t, int64_t vec);
bool is_multiple_of(const ir::Expr& e, int64_t n);

// Global tensors the kernel reads somewhere (loads, what tile ops read, read addresses): a
// TMA store into one of them must be complete before the call that issued it returns.
std::set<const ir::BufferNode*> global_reads(const ir::PrimFunc& f);

// The call a statement evaluates when its op is `op` (tp.async_call, tp.async_wait, ...), else null.
const ir::CallNode* evaluated_call(const ir::Stmt& s, const char* op);
// The element an address argument (tp.addr_r / tp.addr_w of buffer[indices]) points at, else null.
const ir::BufferLoadNode* addressed(const ir::Expr& arg);
// Every statement list of the function (nested SeqStmts flattened, inner lists first) through
// `rewrite`; the same function when no list changed.
ir::PrimFuncPtr rewrite_lists(const ir::PrimFuncPtr& func, const std::function<std::vector<ir::Stmt>(std::vector<ir::Stmt>)>& rewrite);

// A warp-specialized block's roles with the consumer branch rewritten by `f` (the producer,
// which only issues TMA loads, stays): the same node when nothing changed.
ir::Stmt with_consumer(const ir::WarpRolesNode& n, const ir::Stmt& s, const std::function<ir::Stmt(const ir::Stmt&)>& f);

// Whether a shared tile of this dtype and row length can use tp::SmemTile's XOR swizzle
// (16-byte chunks, rows of 2, 4 or a multiple of 8 chunks).
bool swizzle_applies(ir::DataType t, int64_t cols);
std::string cuda_bool(bool b);

}  // namespace tp::transform
