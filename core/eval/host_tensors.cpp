// Torch tensors that host code makes before a kernel is built (a module-level
// `A = torch.rand(m, k, dtype=torch.float16) * 2 - 1` whose `A.shape` sizes the kernel, or a
// tensor whose presence a flag tests): the evaluator knows them by shape and dtype only, as the
// host code that reads them does. Their values are never known at trace time; anything that
// needs them stays host code the evaluator does not run (an UnsupportedConstruct at its use).
#include <algorithm>

#include "eval/interp.h"
#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

const OpaqueObj* as_tensor(const Value& v) {
    if (v.kind != VK::Opaque) return nullptr;
    const auto* o = v.as<OpaqueObj>();
    return o->is_tensor ? o : nullptr;
}

Value tensor_value(std::string what, std::vector<int64_t> shape, ir::DataType dtype) {
    auto o = std::make_shared<OpaqueObj>();
    o->what = std::move(what);
    o->is_tensor = true;
    o->shape = std::move(shape);
    o->dtype = dtype;
    return Value::make(VK::Opaque, o);
}

// `torch.rand(2, 3)`, `torch.rand((2, 3))`, `torch.rand(size=(2, 3))`: the sizes of a shape.
std::vector<int64_t> sizes(Evaluator& ev, const std::vector<Value>& dims, const std::vector<Span>& spans, Span span) {
    std::vector<int64_t> out;
    if (dims.size() == 1 && dims[0].is_seq()) {
        for (const auto& d : items_of(dims[0])) out.push_back(ev.as_int(d, span, "size"));
    } else {
        for (size_t i = 0; i < dims.size(); ++i) out.push_back(ev.as_int(dims[i], i < spans.size() ? spans[i] : span, "size"));
    }
    for (int64_t d : out)
        if (d < 0) ev.fail(DiagKind::PythonException, span, {"RuntimeError: negative dimension " + std::to_string(d)});
    return out;
}

const Value* keyword(const CallArgs& a, const char* name) {
    for (const auto& [k, v] : a.kw)
        if (k == name) return &v;
    return nullptr;
}

}  // namespace

std::optional<Value> make_host_tensor(Evaluator& ev, const std::string& what, CallArgs& a) {
    static const char* const makers[] = {"rand",       "randn",     "zeros",      "ones",      "empty",      "randint",  "full",
                                         "zeros_like", "ones_like", "empty_like", "rand_like", "randn_like", "full_like"};
    if (what.rfind("torch.", 0) != 0 || what.find('.', 6) != std::string::npos) return std::nullopt;
    const std::string leaf = what.substr(6);
    if (std::find(std::begin(makers), std::end(makers), leaf) == std::end(makers)) return std::nullopt;
    const Value* dtype_v = keyword(a, "dtype");
    std::optional<ir::DataType> dtype;
    if (dtype_v && !dtype_v->is_none()) dtype = ev.as_dtype(*dtype_v, a.span);
    if (leaf.size() > 5 && leaf.compare(leaf.size() - 5, 5, "_like") == 0) {
        const OpaqueObj* t = a.pos.empty() ? nullptr : as_tensor(a.pos[0]);
        if (!t) return std::nullopt;  // the like of an unknown host object stays host code
        return tensor_value(what + "(...)", t->shape, dtype.value_or(t->dtype));
    }
    std::vector<Value> dims = a.pos;
    std::vector<Span> spans = a.pos_spans;
    if (const Value* size = keyword(a, "size")) {
        dims = {*size};
    } else if (leaf == "randint" || leaf == "full") {
        // randint(low=0, high, size) takes its shape last, full(size, fill_value) first.
        if (dims.empty()) return std::nullopt;
        dims = {leaf == "randint" ? dims.back() : dims.front()};
    }
    ir::DataType dflt = leaf == "randint" ? ir::DataType::int64() : ir::DataType::float32();
    return tensor_value(what + "(...)", sizes(ev, dims, spans, a.span), dtype.value_or(dflt));
}

std::optional<Value> host_tensor_attr(const Value& v, const std::string& name) {
    const OpaqueObj* t = as_tensor(v);
    if (!t) return std::nullopt;
    if (name == "shape") {
        std::vector<Value> dims;
        for (int64_t d : t->shape) dims.push_back(Value::integer(d));
        return Value::tuple(std::move(dims));
    }
    if (name == "dtype") return Value::dtype(t->dtype);
    if (name == "ndim") return Value::integer(static_cast<int64_t>(t->shape.size()));
    return std::nullopt;
}

std::optional<Value> host_tensor_binary(const Value& a, const Value& b) {
    const OpaqueObj *ta = as_tensor(a), *tb = as_tensor(b);
    if (!ta && !tb) return std::nullopt;
    // Element-wise with a number, or with a tensor of the same shape: the shape stays.
    const OpaqueObj* t = ta ? ta : tb;
    const Value& other = ta ? b : a;
    if (!(other.is_number() || (ta && tb && ta->shape == tb->shape))) return std::nullopt;
    return tensor_value(t->what, t->shape, t->dtype);
}

}  // namespace tp::eval
