// The T.* builtins that describe the kernel's structure: T.Kernel launch specs, allocations,
// symbolic dims (T.const / T.dynamic), tensor types, T.empty outputs and the loop specs
// (T.Parallel, T.Pipelined, T.serial, T.unroll, T.vectorized, range inside a kernel).
// Staging `with T.Kernel` and the loops themselves into IR is in tile_kernel_exec.cpp.
#include <algorithm>

#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

using Reg = std::vector<TileBuiltin>;

void add(Reg& r, std::string name, std::string sig, std::string doc, std::string cat, BuiltinFn fn) {
    r.push_back({{std::move(name), std::move(sig), std::move(doc), std::move(cat)}, std::move(fn)});
}

// A tile that cannot fit where it lives is refused at its allocation, before any pass or
// NVRTC sees it: a fragment larger than an SM's whole register file (65536 32-bit registers
// on every supported target; NVRTC would spend minutes spilling it), a local array over
// CUDA's 512 KiB of local memory per thread, a shared tile over 4 GiB (the budget pass reports
// the exact per-target limit later; this keeps byte counts far from 32-bit overflow).
void check_tile_size(Evaluator& ev, const std::vector<ir::Expr>& shape, ir::DataType dt, ir::Scope scope, Span span) {
    int64_t elems = 1;
    std::string dims;
    for (const auto& d : shape) {
        elems *= *ir::as_const_int(d);  // as_shape has bounded the product
        dims += (dims.empty() ? "" : " x ") + std::to_string(*ir::as_const_int(d));
    }
    std::string what = "a " + std::string(ir::scope_name(scope)) + " tile of " + dims + " " + dt.name();
    int64_t bytes = elems * dt.bytes();
    constexpr int64_t kRegisterFileBytes = 65536 * 4;
    if (scope == ir::Scope::Fragment && bytes > kRegisterFileBytes)
        ev.fail(DiagKind::SizeTooLarge, span,
                {what, std::to_string(bytes) + " bytes, over the " + std::to_string(kRegisterFileBytes) +
                           " bytes of an SM's register file; use a smaller tile"});
    if (scope == ir::Scope::Local && bytes > (int64_t(512) << 10))
        ev.fail(DiagKind::SizeTooLarge, span, {what, std::to_string(bytes) + " bytes per thread, over CUDA's 524288 bytes of local memory"});
    if (scope == ir::Scope::Shared && bytes > (int64_t(1) << 32))
        ev.fail(DiagKind::SizeTooLarge, span, {what, std::to_string(bytes) + " bytes, while a block's shared memory is at most 232448 bytes"});
}

}  // namespace

Value alloc_tile(Evaluator& ev, CallArgs& a, const char* fname, ir::Scope scope) {
    ArgReader r(ev, a, fname, {"shape", "dtype", "scope"});
    require_kernel(ev, fname, a.span);
    std::vector<ir::Expr> shape = ev.as_shape(r.require(0), r.span(0));
    for (const auto& d : shape)
        if (!ir::as_const_int(d)) ev.fail(DiagKind::NotConstant, r.span(0), {std::string(fname) + "(shape)"});
    ir::DataType dt = ev.as_dtype(r.require(1), r.span(1));
    if (const Value* sv = r.get(2)) {
        std::string s = ev.as_str(*sv, r.span(2), "scope");
        if (s == "shared" || s == "shared.dyn")
            scope = ir::Scope::Shared;
        else if (s == "local.fragment")
            scope = ir::Scope::Fragment;
        else if (s == "local")
            scope = ir::Scope::Local;
        else if (s == "local.var")
            scope = ir::Scope::Var;
        else
            ev.fail(DiagKind::TypeMismatch, r.span(2),
                    {"unknown scope \"" + s + "\"; use \"shared\", \"shared.dyn\", \"local.fragment\" or \"local\""});
    }
    check_tile_size(ev, shape, dt, scope, a.span);
    auto buf = std::make_shared<const ir::BufferNode>(unique_name(ev, ev.name_hint), dt, shape, scope, a.span);
    ev.name_hint.clear();
    ev.stager.add_allocation(buf, nullptr, a.span);
    return Value::buffer(buf);
}

namespace {

// T.Pipelined / T.serial style bounds: (n) or (start, stop).
std::pair<ir::Expr, ir::Expr> bounds(Evaluator& ev, const Value& a, const Value* b, Span span) {
    ir::Expr lo = b ? ev.to_expr(a, span, "loop start") : ir::int_imm(0);
    ir::Expr hi = ev.to_expr(b ? *b : a, span, "loop bound");
    if (!lo->dtype.is_int() || !hi->dtype.is_int()) ev.fail(DiagKind::TypeMismatch, span, {"loop bounds must be integers"});
    return {lo, ir::make_binary(ir::BinaryOp::Sub, hi, lo, span)};
}

std::vector<int> int_list(Evaluator& ev, const Value* v, Span span, const char* what) {
    std::vector<int> out;
    if (!v || v->is_none()) return out;
    for (const auto& x : ev.as_seq(*v, span, what)) out.push_back(static_cast<int>(ev.as_int(x, span, what)));
    return out;
}

Value loop_spec(std::shared_ptr<LoopSpecObj> s) { return Value::make(VK::LoopSpec, std::move(s)); }

Value simple_loop(Evaluator& ev, CallArgs& a, const char* fname, LoopKind kind) {
    ArgReader r(ev, a, fname, {"start", "stop", "step"});
    auto s = std::make_shared<LoopSpecObj>();
    s->loop_kind = kind;
    s->span = a.span;
    s->ranges.push_back(bounds(ev, r.require(0), r.get(1), a.span));
    if (const Value* st = r.get(2); st && !st->is_none()) {
        ir::Expr step = ev.to_expr(*st, r.span(2), "loop step");
        if (auto c = ir::as_const_int(step); c && *c <= 0) ev.fail(DiagKind::TypeMismatch, r.span(2), {"loop step must be positive"});
        if (!(ir::as_const_int(step) && *ir::as_const_int(step) == 1)) {
            auto& [lo, ext] = s->ranges[0];
            ext = ir::make_binary(ir::BinaryOp::FloorDiv,
                                  ir::make_binary(ir::BinaryOp::Add, ext, ir::make_binary(ir::BinaryOp::Sub, step, ir::int_imm(1))), step);
            s->step = step;
        }
    }
    return loop_spec(s);
}

}  // namespace

Value take_keyword(CallArgs& a, const char* name) {
    for (size_t i = 0; i < a.kw.size(); ++i)
        if (a.kw[i].first == name) {
            Value v = a.kw[i].second;
            a.kw.erase(a.kw.begin() + static_cast<std::ptrdiff_t>(i));
            if (i < a.kw_spans.size()) a.kw_spans.erase(a.kw_spans.begin() + static_cast<std::ptrdiff_t>(i));
            return v;
        }
    return Value::none();
}

std::string unique_name(Evaluator& ev, std::string base) {
    if (base.empty()) base = "buf";
    if (!ev.kernel) return base;
    std::string n = base;
    for (int k = 1; ev.kernel->buffer_names.count(n); ++k) n = base + "_" + std::to_string(k);
    ev.kernel->buffer_names.insert(n);
    return n;
}

Value range_as_loop(Evaluator& ev, const RangeObj& r, Span span) {
    auto s = std::make_shared<LoopSpecObj>();
    s->span = span;
    Value start = r.start, stop = r.stop;
    s->ranges.push_back(bounds(ev, start, &stop, span));
    ir::Expr step = ev.to_expr(r.step, span, "range step");
    if (!(ir::as_const_int(step) && *ir::as_const_int(step) == 1)) {
        if (auto c = ir::as_const_int(step); c && *c <= 0)
            ev.fail(DiagKind::UnsupportedConstruct, span, {"range", " with a non-positive step inside a kernel"});
        auto& [lo, ext] = s->ranges[0];
        ext = ir::make_binary(ir::BinaryOp::FloorDiv,
                              ir::make_binary(ir::BinaryOp::Add, ext, ir::make_binary(ir::BinaryOp::Sub, step, ir::int_imm(1))), step);
        s->step = step;
    }
    return loop_spec(s);
}

void register_tile_kernel(Reg& r) {
    add(r, "Kernel", "T.Kernel(*grid, threads=128, prelude=None)", "launch a grid of thread blocks; `as (bx, by)` binds block indices", "kernel",
        [](Evaluator& ev, CallArgs& a) -> Value {
            auto s = std::make_shared<KernelSpecObj>();
            s->span = a.span;
            if (a.pos.size() > 3)
                ev.fail(DiagKind::BadKernelLaunch, a.span, {"expected at most 3 grid extents, got " + std::to_string(a.pos.size())});
            // `T.Kernel()` binds no block index: TileLang launches one block (its KernelLaunch
            // takes 0 to 3 extents), so the grid is (1,).
            if (a.pos.empty()) s->grid.push_back(ir::int_imm(1));
            const int64_t limit = (int64_t(1) << 31) - 1;
            for (size_t i = 0; i < a.pos.size(); ++i) {
                ir::Expr g = ev.to_expr(a.pos[i], a.pos_spans[i], "grid extent");
                if (!g->dtype.is_int()) ev.fail(DiagKind::BadKernelLaunch, a.pos_spans[i], {"grid extents must be integers"});
                if (auto c = ir::as_const_int(g); c && *c <= 0)
                    ev.fail(DiagKind::BadKernelLaunch, a.pos_spans[i], {"grid extent " + std::to_string(*c) + " is not positive"});
                // CUDA's grid limits: x below 2^31, y and z below 2^16. Past 2^16 in y or z
                // the grid is launched as one x dimension (KernelLaunchNode::linear_grid), so it
                // is the block count that must stay below 2^31.
                if (auto c = ir::as_const_int(g); c && *c > limit)
                    ev.fail(DiagKind::BadKernelLaunch, a.pos_spans[i],
                            {"grid extent " + std::to_string(*c) + " exceeds CUDA's limit of " + std::to_string(limit) + " blocks; use larger blocks"});
                s->grid.push_back(g);
            }
            int64_t blocks = 1;  // capped at limit + 1; -1 when an extent is symbolic
            for (const auto& g : s->grid) {
                auto c = ir::as_const_int(g);
                blocks = c && blocks > 0 ? std::min<int64_t>(blocks * *c, limit + 1) : -1;
            }
            if (ir::needs_linear_grid(s->grid) && blocks > limit)
                ev.fail(DiagKind::BadKernelLaunch, a.span,
                        {"the grid has " + std::to_string(blocks) + " or more blocks, past CUDA's limit of " + std::to_string(limit) +
                         " for a grid launched in one dimension (its y or z extent is over 65535); use larger blocks"});
            s->threads = {128};
            for (size_t k = 0; k < a.kw.size(); ++k) {
                const auto& [name, v] = a.kw[k];
                if (name == "threads") {
                    s->threads.clear();
                    std::vector<Value> ts = v.is_seq() ? items_of(v) : std::vector<Value>{v};
                    if (ts.empty() || ts.size() > 3) ev.fail(DiagKind::BadKernelLaunch, a.kw_spans[k], {"`threads` takes 1 to 3 extents"});
                    for (const auto& t : ts) {
                        int64_t n = ev.as_int(t, a.kw_spans[k], "threads");
                        if (n <= 0) ev.fail(DiagKind::BadKernelLaunch, a.kw_spans[k], {"thread count " + std::to_string(n) + " is not positive"});
                        s->threads.push_back(n);
                    }
                } else if (name != "prelude" && name != "is_cpu") {
                    std::string m = closest_match(name, {"threads", "prelude", "is_cpu"});
                    ev.fail(DiagKind::UnknownKeyword, a.kw_spans[k], {"T.Kernel", name, m.empty() ? "" : "; did you mean `" + m + "`"});
                }
            }
            return Value::make(VK::Kernel, s);
        });
    add(r, "alloc_shared", "T.alloc_shared(shape, dtype, scope=\"shared.dyn\")", "allocate a tile in shared memory", "memory",
        [](Evaluator& ev, CallArgs& a) { return alloc_tile(ev, a, "T.alloc_shared", ir::Scope::Shared); });
    add(r, "alloc_fragment", "T.alloc_fragment(shape, dtype, scope=\"local.fragment\")",
        "allocate a register tile distributed over the block's threads", "memory",
        [](Evaluator& ev, CallArgs& a) { return alloc_tile(ev, a, "T.alloc_fragment", ir::Scope::Fragment); });
    add(r, "alloc_local", "T.alloc_local(shape, dtype, scope=\"local\")", "allocate per-thread local storage", "memory",
        [](Evaluator& ev, CallArgs& a) { return alloc_tile(ev, a, "T.alloc_local", ir::Scope::Local); });
    add(r, "alloc_var", "T.alloc_var(dtype, init=None)", "a per-thread scalar variable; read by name, assigned with `=`", "memory",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.alloc_var", {"dtype", "init", "scope"});
            require_kernel(ev, "T.alloc_var", a.span);
            ir::DataType dt = ev.as_dtype(rd.require(0), rd.span(0));
            auto buf = std::make_shared<const ir::BufferNode>(unique_name(ev, ev.name_hint), dt, std::vector<ir::Expr>{ir::int_imm(1)},
                                                              ir::Scope::Var, a.span);
            ev.name_hint.clear();
            ir::Expr init;
            if (const Value* iv = rd.get(1); iv && !iv->is_none()) {
                init = ev.to_expr(*iv, rd.span(1), "init");
                if (!(init->dtype == dt)) init = ir::make_cast(dt, init, rd.span(1));
            }
            // A constant init travels with the hoisted allocation; anything else is stored here.
            bool constant = init && (ir::as_const_int(init) || ir::as_const_float(init));
            ev.stager.add_allocation(buf, constant ? init : nullptr, a.span);
            if (init && !constant) ev.stager.emit(std::make_shared<ir::BufferStoreNode>(buf, std::vector<ir::Expr>{ir::int_imm(0)}, init, a.span));
            return Value::buffer(buf);
        });
    add(r, "empty", "T.empty(shape, dtype)", "declare an output tensor of an eager-style kernel (`return` it)", "kernel",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.empty", {"shape", "dtype"});
            if (!ev.kernel || !ev.kernel->active || ev.stager.in_kernel() || ev.module_eval_depth > 0)
                ev.fail(DiagKind::UnsupportedConstruct, a.span, {"T.empty", "; call it in the kernel function body before `with T.Kernel`"});
            std::vector<ir::Expr> shape = ev.as_shape(rd.require(0), rd.span(0));
            ir::DataType dt = rd.get(1) ? ev.as_dtype(*rd.get(1), rd.span(1)) : ir::DataType::float32();
            std::string name = ev.name_hint.empty() ? "out" + std::to_string(ev.kernel->outputs.size()) : ev.name_hint;
            ev.name_hint.clear();
            auto buf = std::make_shared<const ir::BufferNode>(unique_name(ev, name), dt, shape, ir::Scope::Global, a.span);
            ir::Param p;
            p.name = buf->name;
            p.buffer = buf;
            p.is_output = true;
            ev.kernel->params.push_back(p);
            ev.kernel->outputs.push_back(buf);
            return Value::buffer(buf);
        });
    // TileLang allocates a T.alloc_global buffer on the device itself (cudaMalloc) and passes it
    // to the kernel; here it is a trailing kernel parameter the runner allocates, zeroed like
    // an output. Launches of one function share it, as TileLang's do.
    add(r, "alloc_global", "T.alloc_global(shape, dtype, scope=\"global\")",
        "a global-memory workspace the runner allocates (zeroed) and every launch of the function shares", "memory",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.alloc_global", {"shape", "dtype", "scope"});
            if (!ev.kernel || !ev.kernel->active || ev.stager.in_kernel() || ev.module_eval_depth > 0)
                ev.fail(DiagKind::UnsupportedConstruct, a.span, {"T.alloc_global", "; call it in the kernel function body before `with T.Kernel`"});
            if (const Value* sc = rd.get(2); sc && !sc->is_none() && ev.as_str(*sc, rd.span(2), "scope") != "global")
                ev.fail(DiagKind::UnsupportedConstruct, rd.span(2),
                        {"T.alloc_global with scope \"" + ev.as_str(*sc, rd.span(2), "scope") + "\"", "; use T.alloc_shared or T.alloc_local"});
            std::vector<ir::Expr> shape = ev.as_shape(rd.require(0), rd.span(0));
            ir::DataType dt = ev.as_dtype(rd.require(1), rd.span(1));
            std::string name = ev.name_hint.empty() ? "workspace" + std::to_string(ev.kernel->workspaces.size()) : ev.name_hint;
            ev.name_hint.clear();
            auto buf = std::make_shared<const ir::BufferNode>(unique_name(ev, name), dt, shape, ir::Scope::Global, a.span);
            ir::Param p;
            p.name = buf->name;
            p.buffer = buf;
            p.is_output = true;
            p.is_workspace = true;
            ev.kernel->workspaces.push_back(p);
            return Value::buffer(buf);
        });
    auto symbols = [](Evaluator& ev, CallArgs& a, const char* fname) -> Value {
        ArgReader rd(ev, a, fname, {"names", "dtype"});
        std::string text = ev.as_str(rd.require(0), rd.span(0), "names");
        ir::DataType dt = rd.get(1) ? ev.as_dtype(*rd.get(1), rd.span(1)) : ir::DataType::int32();
        std::vector<Value> out;
        std::string cur;
        auto flush = [&] {
            if (cur.empty()) return;
            if (!ev.kernel) ev.fail(DiagKind::UnsupportedConstruct, a.span, {fname, " outside a kernel function"});
            auto dv = ev.kernel->symbol_values.find(cur);
            if (dv != ev.kernel->symbol_values.end()) {
                out.push_back(dv->second);
            } else {
                auto it = ev.kernel->symbol_by_name.find(cur);
                if (it == ev.kernel->symbol_by_name.end()) {
                    auto v = std::make_shared<const ir::VarNode>(cur, dt, ir::VarKind::Symbolic, a.span);
                    it = ev.kernel->symbol_by_name.emplace(cur, v).first;
                    ev.kernel->symbolic.push_back(v);
                }
                out.push_back(Value::expr(it->second));
            }
            cur.clear();
        };
        for (char c : text) {
            if (c == ',' || c == ' ' || c == '\t')
                flush();
            else
                cur += c;
        }
        flush();
        if (out.empty()) ev.fail(DiagKind::TypeMismatch, rd.span(0), {std::string("`") + fname + "` needs at least one name"});
        return out.size() == 1 ? out[0] : Value::tuple(std::move(out));
    };
    add(r, "const", "T.const(\"M, N, K\", dtype=T.int32)", "symbolic dimensions, bound with -D or left dynamic", "kernel",
        [symbols](Evaluator& ev, CallArgs& a) { return symbols(ev, a, "T.const"); });
    add(r, "dynamic", "T.dynamic(\"M\", dtype=T.int32)", "a dimension known only at run time (bindable with -D)", "kernel",
        [symbols](Evaluator& ev, CallArgs& a) { return symbols(ev, a, "T.dynamic"); });
    add(r, "symbolic", "T.symbolic(\"M\", dtype=T.int32)", "alias of T.dynamic", "kernel",
        [symbols](Evaluator& ev, CallArgs& a) { return symbols(ev, a, "T.symbolic"); });
    auto tensor_type = [](Evaluator& ev, CallArgs& a, const char* fname) -> Value {
        // TileLang's order: T.Tensor(shape, dtype, data, scope), T.Buffer(shape, dtype, data, strides, ...).
        const bool buffer = std::string(fname) == "T.Buffer";
        ArgReader rd(ev, a, fname, {"shape", "dtype", "data", buffer ? "strides" : "scope", buffer ? "scope" : "strides"});
        // `T.Tensor(shape, dtype, buf.data)` in a kernel: buf's elements seen with that shape.
        if (const Value* data = rd.get(2); data && !data->is_none())
            return make_view(ev, *data, rd.span(2), rd.require(0), rd.span(0), rd.get(1), rd.span(1), fname, a.span);
        auto t = std::make_shared<TensorTypeObj>();
        t->type_name = fname;
        t->is_tensor = true;
        const Value& sh = rd.require(0);
        t->shape = sh.is_seq() ? items_of(sh) : std::vector<Value>{sh};
        t->dtype = rd.get(1) ? ev.as_dtype(*rd.get(1), rd.span(1)) : ir::DataType::float32();
        return Value::make(VK::TypeObj, t);
    };
    add(r, "Tensor", "T.Tensor(shape, dtype)", "type of a global tensor parameter", "type",
        [tensor_type](Evaluator& ev, CallArgs& a) { return tensor_type(ev, a, "T.Tensor"); });
    add(r, "Buffer", "T.Buffer(shape, dtype)", "alias of T.Tensor", "type",
        [tensor_type](Evaluator& ev, CallArgs& a) { return tensor_type(ev, a, "T.Buffer"); });
    add(r, "Parallel", "T.Parallel(*extents)", "element-wise loop nest spread over the block's threads", "loop",
        [](Evaluator& ev, CallArgs& a) -> Value {
            auto s = std::make_shared<LoopSpecObj>();
            s->loop_kind = LoopKind::Parallel;
            s->span = a.span;
            if (a.pos.empty()) ev.fail(DiagKind::WrongArgCount, a.span, {"T.Parallel", "at least 1", "0"});
            for (size_t i = 0; i < a.pos.size(); ++i) s->ranges.push_back(bounds(ev, a.pos[i], nullptr, a.pos_spans[i]));
            for (size_t k = 0; k < a.kw.size(); ++k)
                if (a.kw[k].first != "coalesced_width" && a.kw[k].first != "loop_layout")
                    ev.fail(DiagKind::UnknownKeyword, a.kw_spans[k], {"T.Parallel", a.kw[k].first, ""});
            return loop_spec(s);
        });
    // TVM's one-dimensional `T.parallel(n | start, stop)`: TileLang's T.Parallel(a, b) is made
    // of such loops nested, so `for i in T.parallel(a): for j in T.parallel(b):` stages the same
    // nest as `for i, j in T.Parallel(a, b):`.
    add(r, "parallel", "T.parallel(n | start, stop)", "one parallel loop (TVM's form); nested ones make a T.Parallel nest", "loop",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.parallel", {"start", "stop", "annotations"});
            auto s = std::make_shared<LoopSpecObj>();
            s->loop_kind = LoopKind::Parallel;
            s->span = a.span;
            s->ranges.push_back(bounds(ev, rd.require(0), rd.get(1), a.span));
            return loop_spec(s);
        });
    add(r, "Pipelined", "T.Pipelined(n | start, stop, num_stages=0, order=None, stage=None, group=None)",
        "serial loop whose copies are software-pipelined over num_stages buffers", "loop", [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.Pipelined", {"start", "stop", "num_stages", "order", "stage", "sync", "group"});
            auto s = std::make_shared<LoopSpecObj>();
            s->loop_kind = LoopKind::Pipelined;
            s->span = a.span;
            s->ranges.push_back(bounds(ev, rd.require(0), rd.get(1), a.span));
            s->num_stages = rd.get(2) ? static_cast<int>(ev.as_int(*rd.get(2), rd.span(2), "num_stages")) : 0;
            if (s->num_stages < 0) ev.fail(DiagKind::TypeMismatch, rd.span(2), {"`num_stages` must be >= 0"});
            s->order = int_list(ev, rd.get(3), rd.span(3), "order");
            s->stage = int_list(ev, rd.get(4), rd.span(4), "stage");
            if (const Value* g = rd.get(6); g && !g->is_none())
                for (const auto& grp : ev.as_seq(*g, rd.span(6), "group")) s->group.push_back(int_list(ev, &grp, rd.span(6), "group"));
            return loop_spec(s);
        });
    add(r, "Persistent", "T.Persistent(domain, wave_size, index, group_size=8)",
        "the tiles of `domain` this block visits, wave by wave (a persistent grid of wave_size blocks)", "loop",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.Persistent", {"domain", "wave_size", "index", "group_size"});
            auto s = std::make_shared<LoopSpecObj>();
            s->loop_kind = LoopKind::Persistent;
            s->span = a.span;
            for (const auto& d : ev.as_seq(rd.require(0), rd.span(0), "domain")) s->ranges.push_back(bounds(ev, d, nullptr, rd.span(0)));
            if (s->ranges.empty()) ev.fail(DiagKind::WrongArgCount, rd.span(0), {"T.Persistent domain", "at least 1", "0"});
            s->wave_size = ev.to_expr(rd.require(1), rd.span(1), "wave_size");
            s->wave_index = ev.to_expr(rd.require(2), rd.span(2), "index");
            s->group_size = rd.get(3) && !rd.get(3)->is_none() ? ev.to_expr(*rd.get(3), rd.span(3), "group_size") : ir::int_imm(8);
            return loop_spec(s);
        });
    add(r, "serial", "T.serial(n | start, stop[, step])", "a sequential loop", "loop",
        [](Evaluator& ev, CallArgs& a) { return simple_loop(ev, a, "T.serial", LoopKind::Serial); });
    add(r, "Serial", "T.Serial(n | start, stop[, step])", "alias of T.serial", "loop",
        [](Evaluator& ev, CallArgs& a) { return simple_loop(ev, a, "T.Serial", LoopKind::Serial); });
    add(r, "unroll", "T.unroll(n | start, stop[, step])", "a fully unrolled loop", "loop",
        [](Evaluator& ev, CallArgs& a) { return simple_loop(ev, a, "T.unroll", LoopKind::Unroll); });
    add(r, "vectorized", "T.vectorized(n | start, stop)", "a vectorized innermost loop", "loop",
        [](Evaluator& ev, CallArgs& a) { return simple_loop(ev, a, "T.vectorized", LoopKind::Vectorized); });
    add(r, "grid", "T.grid(*extents)", "nested sequential loops", "loop", [](Evaluator& ev, CallArgs& a) -> Value {
        auto s = std::make_shared<LoopSpecObj>();
        s->span = a.span;
        for (size_t i = 0; i < a.pos.size(); ++i) s->ranges.push_back(bounds(ev, a.pos[i], nullptr, a.pos_spans[i]));
        if (s->ranges.empty()) ev.fail(DiagKind::WrongArgCount, a.span, {"T.grid", "at least 1", "0"});
        return loop_spec(s);
    });
    // threadIdx / blockIdx of the open kernel by dimension: the same reading for both.
    auto binding = [](const char* name, bool thread) {
        return [name, thread](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, name, {"dim"});
            require_kernel(ev, name, a.span);
            const auto& vars = thread ? ev.kernel->thread_vars : ev.kernel->block_vars;
            int64_t d = rd.get(0) ? ev.as_int(*rd.get(0), rd.span(0), "dim") : 0;
            if (d < 0 || d >= static_cast<int64_t>(vars.size()))
                ev.fail(DiagKind::TypeMismatch, a.span,
                        {"the kernel has " + std::to_string(vars.size()) + (thread ? " thread" : " grid") + " dimension(s)"});
            return Value::expr(vars[static_cast<size_t>(d)]);
        };
    };
    add(r, "get_thread_binding", "T.get_thread_binding(dim=0)", "threadIdx of the open kernel", "kernel", binding("T.get_thread_binding", true));
    // TileLang's `T.thread_binding(0, n, thread="threadIdx.x")` names the same index as
    // get_thread_binding; the range must be the kernel's own thread extent, since a narrower
    // one would need a guard the statement does not spell.
    add(r, "thread_binding", "T.thread_binding(begin, end, thread=\"threadIdx.x\")", "threadIdx of the open kernel along one axis", "kernel",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.thread_binding", {"begin", "end", "thread", "annotations"});
            require_kernel(ev, "T.thread_binding", a.span);
            // TVM's short form T.thread_binding(n, "threadIdx.x") puts the axis second.
            bool short_form = !rd.get(2) && rd.get(1) && rd.get(1)->kind == VK::Str;
            const Value& begin = short_form ? Value::integer(0) : rd.require(0);
            const Value& end_v = short_form ? rd.require(0) : rd.require(1);
            Span end_span = short_form ? rd.span(0) : rd.span(1);
            size_t axis_i = short_form ? 1 : 2;
            std::string axis = ev.as_str(rd.require(axis_i), rd.span(axis_i), "thread");
            static const std::vector<std::string> axes{"threadIdx.x", "threadIdx.y", "threadIdx.z"};
            auto it = std::find(axes.begin(), axes.end(), axis);
            if (it == axes.end()) ev.fail(DiagKind::TypeMismatch, rd.span(axis_i), {"`thread` must be threadIdx.x, threadIdx.y or threadIdx.z"});
            size_t d = static_cast<size_t>(it - axes.begin());
            const auto& vars = ev.kernel->thread_vars;
            if (d >= vars.size())
                ev.fail(DiagKind::TypeMismatch, rd.span(axis_i), {"the kernel has " + std::to_string(vars.size()) + " thread dimension(s)"});
            if (ev.as_int(begin, short_form ? a.span : rd.span(0), "begin") != 0)
                ev.fail(DiagKind::TypeMismatch, rd.span(0), {"`T.thread_binding` must start at 0"});
            if (ev.as_int(end_v, end_span, "end") != ev.kernel->thread_extents[d])
                ev.fail(DiagKind::TypeMismatch, end_span, {"`T.thread_binding` must span the kernel's " + axis + " extent"});
            return Value::expr(vars[d]);
        });
    add(r, "get_block_binding", "T.get_block_binding(dim=0)", "blockIdx of the open kernel", "kernel", binding("T.get_block_binding", false));
    auto mark = [](const char* name, bool prim) {
        return [name, prim](Evaluator& ev, CallArgs& a) -> Value {
            if (a.pos.size() != 1 || a.pos[0].kind != VK::Func) {
                // `@T.prim_func(...)` with options: return a decorator.
                if (a.pos.empty())
                    return make_builtin(name, [name, prim](Evaluator& ev2, CallArgs& a2) -> Value {
                        if (a2.pos.size() != 1 || a2.pos[0].kind != VK::Func)
                            ev2.fail(DiagKind::TypeMismatch, a2.span, {std::string("`") + name + "` decorates a function"});
                        auto f = std::make_shared<FuncObj>(*a2.pos[0].as<FuncObj>());
                        (prim ? f->is_prim_func : f->is_macro) = true;
                        return Value::make(VK::Func, f);
                    });
                ev.fail(DiagKind::TypeMismatch, a.span, {std::string("`") + name + "` decorates a function"});
            }
            auto f = std::make_shared<FuncObj>(*a.pos[0].as<FuncObj>());
            (prim ? f->is_prim_func : f->is_macro) = true;
            return Value::make(VK::Func, f);
        };
    };
    add(r, "prim_func", "@T.prim_func", "marks the kernel function whose parameters are the kernel's tensors", "kernel", mark("T.prim_func", true));
    add(r, "macro", "@T.macro", "a helper inlined at each call while tracing", "kernel", mark("T.macro", false));
}

}  // namespace tp::eval
