// Internal interface between the interpreter and the T.* staging code: the T namespace
// lookup, `with T.Kernel(...)` and IR loops over T.Parallel / T.Pipelined / T.serial / range.
#pragma once

#include <optional>
#include <string>

#include "eval/interp.h"
#include "eval/tile_builtins.h"

namespace tp::eval {

struct TileBuiltin {
    TileBuiltinInfo info;
    BuiltinFn fn;
};

// The T.* table, split by concern across tile_*.cpp.
void register_tile_kernel(std::vector<TileBuiltin>& out);  // Kernel, alloc_*, loops, Tensor, const, empty
void register_tile_ops(std::vector<TileBuiltin>& out);     // copy, fill, reduce, atomic_add, ...
void register_tile_gemm(std::vector<TileBuiltin>& out);    // gemm, wgmma_gemm, wait_wgmma
void register_tile_math(std::vector<TileBuiltin>& out);    // exp, max, cast, if_then_else, ...
void register_tile_hints(std::vector<TileBuiltin>& out);   // set_max_nreg, disable_warp_group_reg_alloc, sync_threads
void register_tile_layout(std::vector<TileBuiltin>& out);  // Layout, annotate_layout
void register_tile_barriers(std::vector<TileBuiltin>& out);  // alloc_barrier, mbarrier_*, barrier_*, tma_copy, ws
void register_tile_views(std::vector<TileBuiltin>& out);     // reshape, view
void register_tile_im2col(std::vector<TileBuiltin>& out);    // im2col, c2d_im2col
void register_tile_allreduce(std::vector<TileBuiltin>& out);  // comm_reducer, attr, tvm_thread_allreduce, evaluate
void register_tile_reducer(std::vector<TileBuiltin>& out);    // alloc_reducer, finalize_reducer
void register_tile_extern(std::vector<TileBuiltin>& out);     // import_source, call_extern, dp4a

// Resolves `T.<name>`: builtins, dtypes (T.float16), T.GemmWarpPolicy, T.Tensor, ...
std::optional<Value> tile_attr(Evaluator& ev, const std::string& name, Span span);
std::vector<std::string> tile_names();

// Host helpers answered at trace time (tilelang.math, tvm.DataType / tir.const, device
// queries from the target), keyed by the opaque callee's dotted name; nullopt for any other.
std::optional<Value> call_host_shim(Evaluator& ev, const std::string& what, CallArgs& args);
// Attributes of the host objects those shims return (torch.cuda.get_device_properties(0).major).
std::optional<Value> host_attr_shim(Evaluator& ev, const std::string& what, const std::string& name);
// Torch tensors made by host code, known by shape and dtype (host_tensors.cpp): `torch.rand(...)`
// and the other makers (nullopt for any other callee), their .shape / .dtype / .ndim, and
// element-wise arithmetic with a number or a tensor of the same shape (nullopt otherwise).
std::optional<Value> make_host_tensor(Evaluator& ev, const std::string& what, CallArgs& args);
std::optional<Value> host_tensor_attr(const Value& v, const std::string& name);
std::optional<Value> host_tensor_binary(const Value& a, const Value& b);

// T.reinterpret / tvm.tir.reinterpret: `v`'s bits read as `to`, which must be as wide (a
// TypeMismatch at `span` otherwise).
Value reinterpret_value(Evaluator& ev, const Value& v, Span vspan, ir::DataType to, Span span);

// A T.Kernel(...) call evaluated in a `with` item.
struct KernelSpecObj : Obj {
    std::vector<ir::Expr> grid;
    std::vector<int64_t> threads;
    Span span;
};

// One item of a `with` statement. Python runs `with a, b: body` as `with a: with b: body`, so
// an item's body is the next item's scope and only the last item's is the statement's body.
struct WithScope {
    const ast::With& stmt;
    size_t index;  // the item this scope opens
    const ast::WithItem& item() const { return stmt.items[index]; }
};
// Enters item `index` of `w` and runs what it encloses (eval_stmt.cpp).
Flow exec_with(Evaluator& ev, const ast::With& w, size_t index, const std::shared_ptr<Scope>& sc);
// What `w`'s item encloses: the next item's scope, or the statement's body after the last.
Flow exec_with_body(Evaluator& ev, const WithScope& w, const std::shared_ptr<Scope>& sc);

// A T.ws(...) call evaluated in a `with` item: the warp groups, sorted.
struct RoleSpecObj : Obj {
    std::vector<int64_t> groups;
    Span span;
};
Flow exec_role_with(Evaluator& ev, const WithScope& w, const Value& spec, const std::shared_ptr<Scope>& sc);

// `with T.attr(T.comm_reducer(...), "reduce_scope", ...)` (tile_allreduce.cpp).
bool is_attr_scope(const Value& v);
Flow exec_attr_with(Evaluator& ev, const WithScope& w, const Value& scope, const std::shared_ptr<Scope>& sc);

// tilelang.tools.cuda.iket (iket.cpp): its calls, and `with iket.range(name)`.
std::optional<Value> call_iket(Evaluator& ev, const std::string& what, CallArgs& args);
bool is_iket_range(const Value& v);
Flow exec_iket_range_with(Evaluator& ev, const WithScope& w, const Value& range, const std::shared_ptr<Scope>& sc);

Flow exec_kernel_with(Evaluator& ev, const WithScope& w, const Value& spec, const std::shared_ptr<Scope>& sc);
Flow exec_ir_for(Evaluator& ev, const ast::For& f, const LoopSpecObj& spec, const std::shared_ptr<Scope>& sc);
// `range(...)` iterated inside a kernel becomes a serial IR loop.
Value range_as_loop(Evaluator& ev, const RangeObj& r, Span span);

// T.alloc_shared / alloc_fragment / alloc_local(shape, dtype, scope=None) staged as `scope`.
Value alloc_tile(Evaluator& ev, CallArgs& a, const char* fname, ir::Scope scope);
// T.alloc_reducer (tile_reducer.cpp): which loop variables of a T.Parallel nest over `body`
// run serially inside the others, because a reducer the body updates is not indexed by them.
std::vector<bool> reducer_serial_vars(const Evaluator& ev, const ir::Stmt& body, const std::vector<ir::Var>& vars);
// Removes keyword argument `name` from the call and returns its value (none when absent), for
// builtins that take a keyword TVM needs and we do not (dtype="handle") or read it apart.
Value take_keyword(CallArgs& a, const char* name);
// A buffer name not yet used in the open kernel: `base`, else base_1, base_2, ...
std::string unique_name(Evaluator& ev, std::string base);
// Requires that a tile op runs inside `with T.Kernel(...)`.
void require_kernel(Evaluator& ev, const std::string& what, Span span);
// Region operand of a tile op: a buffer, a sliced buffer or a point `A[i, j]`.
RegionObj as_region(Evaluator& ev, const Value& v, Span span, const char* what);
// Constant extents of a region with the 1s dropped, for shape checks; nullopt when any is
// symbolic. dims_text prints them as `[a, b]`.
std::optional<std::vector<int64_t>> squeezed(const std::vector<ir::Range>& region);
std::string dims_text(const std::vector<int64_t>& d);
// Fills point-index extents of a from b's extents aligned to trailing dims (TileLang's rule).
ir::BufferRegion complete_region(Evaluator& ev, const RegionObj& a, const RegionObj* other, Span span);

// T.reshape / T.view (tile_views.cpp). Whether `b` is a view; an element index of a view
// rewritten into the buffer it views (`b` and `idx` replaced, other buffers left alone).
bool is_view(const Evaluator& ev, const ir::Buffer& b);
// A view of `base` with `shape` (and `dtype`, which must be the base's): T.reshape, T.view and
// `T.Tensor(shape, dtype, buf.data)` inside a kernel.
Value make_view(Evaluator& ev, const Value& base, Span base_span, const Value& shape, Span shape_span, const Value* dtype, Span dtype_span,
                const char* fname, Span span);
void view_element(const Evaluator& ev, ir::Buffer& b, std::vector<ir::Expr>& idx);
// T.copy, T.fill / T.clear and T.reduce_* with a view operand, staged as element loops over
// the viewed buffer; false (nothing staged) when no operand is a view.
bool copy_through_view(Evaluator& ev, const ir::BufferRegion& src, const ir::BufferRegion& dst, Span span);
bool fill_through_view(Evaluator& ev, const ir::BufferRegion& dst, const ir::Expr& value, Span span);
bool reduce_through_view(Evaluator& ev, ir::ReduceKind kind, const ir::Buffer& src, const ir::Buffer& dst, int dim, bool clear, Span span);

}  // namespace tp::eval
