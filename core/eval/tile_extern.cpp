// User CUDA code inside a kernel: T.import_source (a C++ text placed before the kernel) and
// T.call_extern (a call of a function it, or CUDA, defines), and T.dp4a, TileLang's four-element
// int8 dot product, staged as plain arithmetic so every target and the interpreter run it.
// An extern call is opaque to the compiler: the passes keep it in place and treat its pointer
// operands as reads and writes they cannot see; the CPU interpreter refuses it at its line.
#include <algorithm>

#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

using Reg = std::vector<TileBuiltin>;

void add(Reg& r, std::string name, std::string sig, std::string doc, BuiltinFn fn) {
    r.push_back({{std::move(name), std::move(sig), std::move(doc), "extern"}, std::move(fn)});
}

// A C++ name the generated code can call: identifiers joined by `::`.
bool is_callable_name(const std::string& s) {
    if (s.empty()) return false;
    bool start = true;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == ':' && i + 1 < s.size() && s[i + 1] == ':' && !start) {
            ++i;
            start = true;
            continue;
        }
        bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        bool digit = c >= '0' && c <= '9';
        if (!(alpha || (digit && !start))) return false;
        start = false;
    }
    return !start;
}

// `A[i, j]` (or a region's first element) as the buffer and indices of the viewed storage.
std::pair<ir::Buffer, std::vector<ir::Expr>> element_of(Evaluator& ev, const Value& v, Span span, const char* what) {
    RegionObj r = as_region(ev, v, span, what);
    std::vector<ir::Expr> idx;
    for (const auto& d : r.dims) idx.push_back(d.min);
    ir::Buffer b = r.buffer;
    view_element(ev, b, idx);
    return {b, idx};
}

// One argument of T.call_extern: a pointer for a buffer, a region or T.access_ptr; else a value.
ir::Expr extern_argument(Evaluator& ev, const Value& v, Span span) {
    if (v.kind == VK::Buffer || v.kind == VK::Region) {
        auto [b, idx] = element_of(ev, v, span, "T.call_extern");
        return ir::make_call("address_of", {std::make_shared<ir::BufferLoadNode>(b, idx, span)}, ir::DataType(ir::DataType::Handle, 64), span);
    }
    return ev.to_expr(v, span, "T.call_extern argument");
}

// T.call_extern(dtype, name, *args) or T.call_extern(name, *args, dtype=...), as TileLang's
// wrapper accepts both. A "handle" (void) call is staged as a statement.
Value call_extern(Evaluator& ev, CallArgs& a) {
    require_kernel(ev, "T.call_extern", a.span);
    std::vector<Value> pos = a.pos;
    std::vector<Span> spans = a.pos_spans;
    Value dtype_kw = take_keyword(a, "dtype");
    for (size_t k = 0; k < a.kw.size(); ++k) ev.fail(DiagKind::UnknownKeyword, a.kw_spans[k], {"T.call_extern", a.kw[k].first, ""});
    if (!dtype_kw.is_none()) {
        pos.insert(pos.begin(), dtype_kw);
        spans.insert(spans.begin(), a.span);
    }
    if (pos.size() < 2) ev.fail(DiagKind::TypeMismatch, a.span, {"`T.call_extern` takes a result dtype, a function name and its arguments"});
    ir::DataType result = ev.as_dtype(pos[0], spans[0]);
    if (result.code == ir::DataType::Handle) result = ir::DataType::void_();
    std::string name = ev.as_str(pos[1], spans[1], "function name");
    if (!is_callable_name(name)) ev.fail(DiagKind::TypeMismatch, spans[1], {"`T.call_extern` needs a C++ function name, got \"" + name + "\""});
    std::vector<ir::Expr> args = {std::make_shared<ir::StringImmNode>(name, spans[1])};
    for (size_t i = 2; i < pos.size(); ++i) args.push_back(extern_argument(ev, pos[i], spans[i]));
    ir::Expr call = ir::make_call("call_extern", std::move(args), result, a.span);
    if (result.is_void()) {
        ev.stager.emit(std::make_shared<ir::EvaluateNode>(call, a.span));
        return Value::none();
    }
    return Value::expr(call);
}

// T.import_source(text): the text goes into the CUDA module before the kernels, once.
Value import_source(Evaluator& ev, CallArgs& a) {
    ArgReader rd(ev, a, "T.import_source", {"source"});
    if (!ev.kernel || !ev.kernel->active) ev.fail(DiagKind::TileOpOutsideKernel, a.span, {"T.import_source"});
    const Value* v = rd.get(0);
    if (!v || v->is_none()) return Value::none();  // TileLang's import_source(None) adds nothing
    std::string text = ev.as_str(*v, rd.span(0), "source");
    auto& list = ev.kernel->imported_sources;
    auto same = [&](const auto& s) { return s.first == text; };
    if (std::find_if(list.begin(), list.end(), same) == list.end()) list.emplace_back(std::move(text), a.span);
    return Value::none();
}

// T.dp4a(A[i], B[j], C[k]): C[k] += A[i..i+3] . B[j..j+3], int8 by int8 into int32, the four
// elements running along each operand's last dimension.
Value dp4a(Evaluator& ev, CallArgs& a) {
    ArgReader rd(ev, a, "T.dp4a", {"A", "B", "C"});
    require_kernel(ev, "T.dp4a", a.span);
    auto [ab, ai] = element_of(ev, rd.require(0), rd.span(0), "T.dp4a");
    auto [bb, bi] = element_of(ev, rd.require(1), rd.span(1), "T.dp4a");
    auto [cb, ci] = element_of(ev, rd.require(2), rd.span(2), "T.dp4a");
    const ir::DataType i8(ir::DataType::Int, 8), i32 = ir::DataType::int32();
    if (!(ab->dtype == i8) || !(bb->dtype == i8))
        ev.fail(DiagKind::TypeMismatch, a.span, {"`T.dp4a` takes int8 inputs, got " + ab->dtype.name() + " and " + bb->dtype.name()});
    if (!(cb->dtype == i32)) ev.fail(DiagKind::TypeMismatch, rd.span(2), {"`T.dp4a` accumulates into int32, got " + cb->dtype.name()});
    if (ai.empty() || bi.empty() || ci.empty()) ev.fail(DiagKind::TypeMismatch, a.span, {"`T.dp4a` needs buffer elements"});
    ir::Expr sum = std::make_shared<ir::BufferLoadNode>(cb, ci, a.span);
    for (int v = 0; v < 4; ++v) {
        auto at = [&](const ir::Buffer& b, std::vector<ir::Expr> idx) -> ir::Expr {
            idx.back() = ir::make_binary(ir::BinaryOp::Add, idx.back(), ir::int_imm(v));
            return ir::make_cast(i32, std::make_shared<ir::BufferLoadNode>(b, idx, a.span));
        };
        sum = ir::make_binary(ir::BinaryOp::Add, sum, ir::make_binary(ir::BinaryOp::Mul, at(ab, ai), at(bb, bi)));
    }
    ev.stager.emit(std::make_shared<ir::BufferStoreNode>(cb, ci, sum, a.span));
    return Value::none();
}

}  // namespace

void register_tile_extern(Reg& r) {
    add(r, "import_source", "T.import_source(source)", "CUDA C++ text placed before the kernel, for T.call_extern to call", import_source);
    add(r, "call_extern", "T.call_extern(dtype, name, *args)",
        "call a device function of T.import_source or CUDA; buffers and T.access_ptr pass as pointers (GPU only)", call_extern);
    add(r, "dp4a", "T.dp4a(A[i], B[j], C[k])", "C[k] += the dot product of four int8 elements of A and B, in int32", dp4a);
}

}  // namespace tp::eval
