// Value constructors, Python-style repr/str, equality and type names for messages.
#include "eval/value.h"

#include <cmath>
#include <cstdio>

namespace tp::eval {

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
        case VK::Tuple:
            for (const auto& x : items_of(v))
                if (!is_hashable(x)) return false;
            return true;
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
