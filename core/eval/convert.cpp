// Conversions between trace-time values and what IR builders and T.* functions need
// (expressions, ints known at trace time, dtypes, shapes), plus builtin argument reading.
#include <cmath>

#include "eval/interp.h"

namespace tp::eval {

void Evaluator::fail(DiagKind kind, Span span, std::vector<std::string> args) {
    Diagnostic d;
    d.kind = kind;
    d.severity = diag_info(kind).severity;
    d.message = format_diag(kind, args);
    d.file = diags.file() ? diags.file()->path() : std::string();
    d.span = span;
    throw UserError(std::move(d));
}

ir::Expr Evaluator::to_expr(const Value& v, Span span, const char* what) {
    switch (v.kind) {
        case VK::Expr: return v.as<ExprObj>()->e;
        case VK::Bool: return ir::int_imm(v.b ? 1 : 0, ir::DataType::boolean(), span);
        case VK::Int:
            if (v.i > INT32_MAX || v.i < INT32_MIN) return ir::int_imm(v.i, ir::DataType::int64(), span);
            return ir::int_imm(v.i, ir::DataType::int32(), span);
        case VK::Float: return ir::float_imm(v.f, ir::DataType::float32(), span);
        case VK::Buffer: {
            const ir::Buffer& b = v.as<BufferObj>()->b;
            if (b->scope == ir::Scope::Var)
                return std::make_shared<ir::BufferLoadNode>(b, std::vector<ir::Expr>{ir::int_imm(0, ir::DataType::int32(), span)}, span);
            fail(DiagKind::TypeMismatch, span, {"expected a scalar " + std::string(what) + ", got " + type_name(v) + " `" +
                                                 b->name + "`; index it, e.g. `" + b->name + "[i]`"});
        }
        default:
            fail(DiagKind::TypeMismatch, span, {"expected a scalar " + std::string(what) + ", got " + type_name(v)});
    }
}

int64_t Evaluator::as_int(const Value& v, Span span, const char* what) {
    if (v.kind == VK::Int) return v.i;
    if (v.kind == VK::Bool) return v.b;
    if (v.kind == VK::Expr) {
        if (auto c = ir::as_const_int(v.as<ExprObj>()->e)) return *c;
        fail(DiagKind::NotConstant, span, {what});
    }
    if (is_ir(v)) fail(DiagKind::NotConstant, span, {what});
    fail(DiagKind::TypeMismatch, span, {"`" + std::string(what) + "` must be an int, got " + type_name(v)});
}

double Evaluator::as_float(const Value& v, Span span, const char* what) {
    if (v.kind == VK::Float) return v.f;
    if (v.kind == VK::Int || v.kind == VK::Bool) return static_cast<double>(as_int(v, span, what));
    if (v.kind == VK::Expr) {
        if (auto c = ir::as_const_float(v.as<ExprObj>()->e)) return *c;
        if (auto c = ir::as_const_int(v.as<ExprObj>()->e)) return static_cast<double>(*c);
        fail(DiagKind::NotConstant, span, {what});
    }
    fail(DiagKind::TypeMismatch, span, {"`" + std::string(what) + "` must be a number, got " + type_name(v)});
}

bool Evaluator::as_bool(const Value& v, Span span, const char* what) {
    if (is_ir(v) && v.kind == VK::Expr) {
        if (auto c = ir::as_const_int(v.as<ExprObj>()->e)) return *c != 0;
        fail(DiagKind::NotConstant, span, {what});
    }
    return truthy(v, span);
}

std::string Evaluator::as_str(const Value& v, Span span, const char* what) {
    if (v.kind == VK::Str) return str_of(v);
    fail(DiagKind::TypeMismatch, span, {"`" + std::string(what) + "` must be a string, got " + type_name(v)});
}

static const std::vector<std::string>& dtype_names() {
    static const std::vector<std::string> n = {"float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
                                               "uint8", "uint16", "uint32", "uint64", "bool", "float8_e4m3", "float8_e5m2"};
    return n;
}

// T.int4 is a value host code compares and keys dicts with (TileLang's quantize helpers); as an
// element type it needs packed storage, which nothing here has yet.
ir::DataType Evaluator::element_dtype(ir::DataType t, Span span) {
    if (t.bits < 8 && !t.is_bool() && t.code != ir::DataType::Void)
        fail(DiagKind::UnsupportedConstruct, span,
             {"T." + t.name(), " as an element type; 4-bit values need packed storage, which buffers, casts and T.gemm do not have yet "
                               "(keep two values a byte in int8 or uint8 and unpack them with shifts)"});
    return t;
}

ir::DataType Evaluator::as_dtype(const Value& v, Span span) { return element_dtype(dtype_value(v, span), span); }

ir::DataType Evaluator::dtype_value(const Value& v, Span span) {
    if (v.kind == VK::DType) return v.dt;
    if (v.kind == VK::Str) {
        if (auto t = ir::DataType::parse(str_of(v))) return *t;
        std::string m = closest_match(str_of(v), dtype_names());
        fail(DiagKind::InvalidDType, span, {str_of(v), m.empty() ? "; use e.g. `T.float16`" : "; did you mean `" + m + "`"});
    }
    if (v.kind == VK::Builtin) {
        const std::string& n = v.as<BuiltinObj>()->name;
        if (n == "float") return ir::DataType::float32();
        if (n == "int") return ir::DataType::int32();
        if (n == "bool") return ir::DataType::boolean();
    }
    if (v.kind == VK::Opaque) {
        // torch.float16 and friends: the attribute name is the dtype.
        const std::string& w = v.as<OpaqueObj>()->what;
        auto dot = w.rfind('.');
        if (dot != std::string::npos) {
            std::string leaf = w.substr(dot + 1);
            if (!leaf.empty() && leaf.back() == '`') leaf.pop_back();
            if (auto t = ir::DataType::parse(leaf)) return *t;
        }
    }
    fail(DiagKind::TypeMismatch, span, {"expected a dtype such as `T.float16` or \"float16\", got " + type_name(v)});
}

ir::Buffer Evaluator::as_buffer(const Value& v, Span span, const char* what) {
    if (v.kind == VK::Buffer) return v.as<BufferObj>()->b;
    fail(DiagKind::TypeMismatch, span, {"`" + std::string(what) + "` expects a buffer, got " + type_name(v)});
}

std::vector<Value> Evaluator::as_seq(const Value& v, Span span, const char* what) {
    if (v.is_seq()) return items_of(v);
    fail(DiagKind::TypeMismatch, span, {"`" + std::string(what) + "` expects a tuple or list, got " + type_name(v)});
}

std::vector<ir::Expr> Evaluator::as_shape(const Value& v, Span span) {
    std::vector<ir::Expr> shape;
    auto dim = [&](const Value& d) {
        ir::Expr e = to_expr(d, span, "shape dimension");
        if (!e->dtype.is_int()) fail(DiagKind::TypeMismatch, span, {"shape dimensions must be integers, got " + e->dtype.name()});
        if (auto c = ir::as_const_int(e); c && *c <= 0)
            fail(DiagKind::ShapeMismatch, span, {"dimension " + std::to_string(*c) + " is not positive"});
        shape.push_back(e);
    };
    if (v.is_seq()) {
        for (const auto& d : items_of(v)) dim(d);
    } else {
        dim(v);
    }
    check_shape_size(shape, span);
    return shape;
}

// Tensors have at most 8 dims (the interpreter's and the runtime's limit), and a constant
// shape's element count, times 16 bytes (the widest element), must fit 63 bits: a count that
// wrapped would size an allocation far smaller than the kernel writes.
void Evaluator::check_shape_size(const std::vector<ir::Expr>& shape, Span span) {
    constexpr size_t kMaxRank = 8;
    if (shape.size() > kMaxRank)
        fail(DiagKind::SizeTooLarge, span, {"a tensor of rank " + std::to_string(shape.size()), "at most " + std::to_string(kMaxRank) +
                                            " dimensions are supported"});
    int64_t n = 1;
    std::string dims;
    for (const auto& d : shape) {
        auto c = ir::as_const_int(d);
        dims += (dims.empty() ? "" : " x ") + (c ? std::to_string(*c) : ir::print(d));
        if (c && (__builtin_mul_overflow(n, *c, &n) || n > (INT64_MAX >> 4)))
            fail(DiagKind::SizeTooLarge, span, {"a tensor of shape " + dims + (&d == &shape.back() ? "" : " x ..."),
                                                "its element count overflows 64-bit byte counts"});
    }
}

// ------------------------------------------------------------------------- ArgReader
ArgReader::ArgReader(Evaluator& ev, CallArgs& args, std::string fname, std::vector<std::string> names)
    : ev_(ev), args_(args), fname_(std::move(fname)), names_(std::move(names)) {
    vals_.assign(names_.size(), nullptr);
    spans_.assign(names_.size(), args.span);
    bool variadic = !names_.empty() && names_.back() == "*";
    size_t fixed = variadic ? names_.size() - 1 : names_.size();
    for (size_t i = 0; i < args.pos.size(); ++i) {
        if (i < fixed) {
            vals_[i] = &args.pos[i];
            spans_[i] = i < args.pos_spans.size() ? args.pos_spans[i] : args.span;
        } else if (variadic) {
            rest.push_back(args.pos[i]);
        } else {
            ev.fail(DiagKind::WrongArgCount, args.span, {fname_, std::to_string(fixed), std::to_string(args.pos.size())});
        }
    }
    for (size_t k = 0; k < args.kw.size(); ++k) {
        const auto& [name, val] = args.kw[k];
        size_t idx = fixed;
        for (size_t i = 0; i < fixed; ++i)
            if (names_[i] == name) idx = i;
        Span ks = k < args.kw_spans.size() ? args.kw_spans[k] : args.span;
        if (idx == fixed) {
            std::vector<std::string> cands(names_.begin(), names_.begin() + static_cast<long>(fixed));
            std::string m = closest_match(name, cands);
            ev.fail(DiagKind::UnknownKeyword, ks, {fname_, name, m.empty() ? "" : "; did you mean `" + m + "`"});
        }
        if (vals_[idx])
            ev.fail(DiagKind::TypeMismatch, ks, {"`" + fname_ + "` got multiple values for argument `" + name + "`"});
        vals_[idx] = &val;
        spans_[idx] = ks;
    }
}

const Value* ArgReader::get(size_t i) { return i < vals_.size() ? vals_[i] : nullptr; }

Span ArgReader::span(size_t i) const { return i < spans_.size() ? spans_[i] : args_.span; }

const Value& ArgReader::require(size_t i) {
    if (!vals_[i]) {
        size_t given = 0;
        for (auto* v : vals_) given += v != nullptr;
        ev_.fail(DiagKind::TypeMismatch, args_.span, {"`" + fname_ + "` is missing required argument `" + names_[i] + "`"});
    }
    return *vals_[i];
}

Value make_builtin(std::string name, BuiltinFn fn) {
    auto b = std::make_shared<BuiltinObj>();
    b->name = std::move(name);
    b->fn = std::move(fn);
    return Value::make(VK::Builtin, b);
}

}  // namespace tp::eval
