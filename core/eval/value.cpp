// Value constructors, Python-style repr/str, equality and type names for messages.
#include "eval/value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tp::eval {

namespace {

// Children waiting to be freed; a destructor that runs while the queue drains only adds to it.
thread_local std::vector<std::shared_ptr<Obj>> g_release_queue;
thread_local bool g_releasing = false;

void drain_release_queue() {
    if (g_releasing) return;
    g_releasing = true;
    while (!g_release_queue.empty()) {
        std::shared_ptr<Obj> o = std::move(g_release_queue.back());
        g_release_queue.pop_back();
        o.reset();  // may push its own children
    }
    g_releasing = false;
}

void queue_release(Value& v) {
    if ((v.kind == VK::Tuple || v.kind == VK::List || v.kind == VK::Dict) && v.obj) g_release_queue.push_back(std::move(v.obj));
}

// Containers being printed or compared, innermost last: repr shows a container met again
// as `[...]` (as Python does); depth beyond kMaxNesting is refused rather than overflowing
// the C++ stack.
thread_local std::vector<const Obj*> g_active;

struct Nest {
    explicit Nest(const Obj* o, const char* what) {
        if (g_active.size() >= static_cast<size_t>(kMaxNesting))
            throw NestingLimitError(std::string(what) + " of containers nested deeper than " + std::to_string(kMaxNesting) + " levels");
        g_active.push_back(o);
    }
    ~Nest() { g_active.pop_back(); }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
};

bool is_active(const Obj* o) { return std::find(g_active.begin(), g_active.end(), o) != g_active.end(); }

}  // namespace

void release_children(std::vector<Value>& items) {
    for (auto& v : items) queue_release(v);
    drain_release_queue();
}

void release_children(std::vector<std::pair<Value, Value>>& items) {
    for (auto& [k, v] : items) {
        queue_release(k);
        queue_release(v);
    }
    drain_release_queue();
}

const char* vk_name(VK k) {
    switch (k) {
        case VK::None: return "NoneType";
        case VK::Bool: return "bool";
        case VK::Int: return "int";
        case VK::Float: return "float";
        case VK::Str: return "str";
        case VK::Tuple: return "tuple";
        case VK::List: return "list";
        case VK::Dict: return "dict";
        case VK::Range: return "range";
        case VK::Slice: return "slice";
        case VK::Ellipsis: return "ellipsis";
        case VK::Func: return "function";
        case VK::Builtin: return "builtin function";
        case VK::Module: return "module";
        case VK::DType: return "dtype";
        case VK::Expr: return "IR expression";
        case VK::Buffer: return "buffer";
        case VK::Region: return "buffer region";
        case VK::LoopSpec: return "loop range";
        case VK::TypeObj: return "type";
        case VK::Enum: return "enum";
        case VK::Opaque: return "host object";
        case VK::Partial: return "functools.partial";
        case VK::Kernel: return "kernel frame";
        case VK::Role:
            return "warp-group role";
    }
    return "?";
}

Value Value::str(std::string s) { return make(VK::Str, std::make_shared<StrObj>(std::move(s))); }
Value Value::tuple(std::vector<Value> v) { return make(VK::Tuple, std::make_shared<SeqObj>(std::move(v))); }
Value Value::list(std::vector<Value> v) { return make(VK::List, std::make_shared<SeqObj>(std::move(v))); }
Value Value::expr(ir::Expr e) { return make(VK::Expr, std::make_shared<ExprObj>(std::move(e))); }
Value Value::buffer(ir::Buffer b) { return make(VK::Buffer, std::make_shared<BufferObj>(std::move(b))); }

const std::string& str_of(const Value& v) { return v.as<StrObj>()->s; }
std::vector<Value>& items_of(const Value& v) { return v.as<SeqObj>()->items; }

std::string type_name(const Value& v) {
    if (v.kind == VK::Buffer) return std::string(ir::scope_name(v.as<BufferObj>()->b->scope)) + " buffer";
    if (v.kind == VK::Opaque) return "host object `" + v.as<OpaqueObj>()->what + "`";
    if (v.kind == VK::Module) return "module `" + v.as<ModuleObj>()->name + "`";
    return vk_name(v.kind);
}

static std::string float_repr(double f) {
    if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
    if (std::isnan(f)) return "nan";
    char buf[64];
    for (int prec = 1; prec <= 17; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, f);
        if (std::strtod(buf, nullptr) == f) break;
    }
    std::string s = buf;
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    return s;
}

static std::string seq_repr(const std::vector<Value>& items, const char* open, const char* close, bool tuple) {
    std::string s = open;
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) s += ", ";
        s += repr(items[i]);
    }
    if (tuple && items.size() == 1) s += ",";
    return s + close;
}

std::string repr(const Value& v) {
    if (v.kind == VK::Tuple || v.kind == VK::List || v.kind == VK::Dict) {
        if (is_active(v.obj.get())) return v.kind == VK::Dict ? "{...}" : (v.kind == VK::List ? "[...]" : "(...)");
    }
    std::optional<Nest> nest;
    if (v.kind == VK::Tuple || v.kind == VK::List || v.kind == VK::Dict) nest.emplace(v.obj.get(), "repr");
    switch (v.kind) {
        case VK::None: return "None";
        case VK::Bool: return v.b ? "True" : "False";
        case VK::Int: return std::to_string(v.i);
        case VK::Float: return float_repr(v.f);
        case VK::Str: return "'" + str_of(v) + "'";
        case VK::Tuple: return seq_repr(items_of(v), "(", ")", true);
        case VK::List: return seq_repr(items_of(v), "[", "]", false);
        case VK::Dict: {
            std::string s = "{";
            bool first = true;
            for (const auto& [k, val] : v.as<DictObj>()->items) {
                if (!first) s += ", ";
                first = false;
                s += repr(k) + ": " + repr(val);
            }
            return s + "}";
        }
        case VK::Range: {
            auto* r = v.as<RangeObj>();
            return "range(" + repr(r->start) + ", " + repr(r->stop) + ")";
        }
        case VK::DType: return "T." + v.dt.name();
        case VK::Expr: return ir::print(v.as<ExprObj>()->e);
        case VK::Buffer: return v.as<BufferObj>()->b->name;
        case VK::Region: return v.as<RegionObj>()->buffer->name + "[...]";
        case VK::Func: return "<function " + v.as<FuncObj>()->name + ">";
        case VK::Builtin: return "<built-in function " + v.as<BuiltinObj>()->name + ">";
        case VK::Enum: return v.as<EnumObj>()->owner + "." + v.as<EnumObj>()->name;
        case VK::TypeObj: return v.as<TensorTypeObj>()->type_name;
        default: return "<" + type_name(v) + ">";
    }
}

std::string to_str(const Value& v) {
    if (v.kind == VK::Str) return str_of(v);
    if (v.kind == VK::DType) return v.dt.name();
    return repr(v);
}

bool is_hashable(const Value& v) {
    switch (v.kind) {
        case VK::List: case VK::Dict: case VK::Expr: return false;
        case VK::Tuple: {
            Nest nest(v.obj.get(), "hash");
            for (const auto& x : items_of(v))
                if (!is_hashable(x)) return false;
            return true;
        }
        default: return true;
    }
}

bool values_equal(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) {
        if (a.kind == VK::Float || b.kind == VK::Float) {
            double x = a.kind == VK::Float ? a.f : (a.kind == VK::Bool ? a.b : static_cast<double>(a.i));
            double y = b.kind == VK::Float ? b.f : (b.kind == VK::Bool ? b.b : static_cast<double>(b.i));
            return x == y;
        }
        int64_t x = a.kind == VK::Bool ? a.b : a.i, y = b.kind == VK::Bool ? b.b : b.i;
        return x == y;
    }
    // A dtype compares equal to its name, as TileLang's dtype objects do.
    if (a.kind == VK::DType && b.kind == VK::Str) {
        auto t = ir::DataType::parse(str_of(b));
        return t && *t == a.dt;
    }
    if (a.kind == VK::Str && b.kind == VK::DType) return values_equal(b, a);
    if (a.kind != b.kind) return false;
    if (a.obj == b.obj && a.obj && (a.kind == VK::Tuple || a.kind == VK::List || a.kind == VK::Dict)) return true;
    std::optional<Nest> nest;
    if (a.kind == VK::Tuple || a.kind == VK::List || a.kind == VK::Dict) nest.emplace(a.obj.get(), "comparison");
    switch (a.kind) {
        case VK::None: case VK::Ellipsis: return true;
        case VK::Str: return str_of(a) == str_of(b);
        case VK::DType: return a.dt == b.dt;
        case VK::Tuple: case VK::List: {
            const auto &x = items_of(a), &y = items_of(b);
            if (x.size() != y.size()) return false;
            for (size_t i = 0; i < x.size(); ++i)
                if (!values_equal(x[i], y[i])) return false;
            return true;
        }
        case VK::Dict: {
            const auto &x = a.as<DictObj>()->items, &y = b.as<DictObj>()->items;
            if (x.size() != y.size()) return false;
            for (const auto& [k, v] : x) {
                bool ok = false;
                for (const auto& [k2, v2] : y)
                    if (values_equal(k, k2)) { ok = values_equal(v, v2); break; }
                if (!ok) return false;
            }
            return true;
        }
        case VK::Buffer: return a.as<BufferObj>()->b == b.as<BufferObj>()->b;
        case VK::Enum: return a.as<EnumObj>()->owner == b.as<EnumObj>()->owner && a.as<EnumObj>()->name == b.as<EnumObj>()->name;
        default: return a.obj == b.obj;
    }
}

}  // namespace tp::eval
