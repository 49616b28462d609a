// The T.* registry: collects the entries of tile_kernel/tile_ops/tile_math, resolves
// `T.<name>` (functions, dtypes, T.GemmWarpPolicy, T.dtype) and lists them for reference.
#include <algorithm>
#include <mutex>

#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

struct Registry {
    std::vector<TileBuiltin> entries;
    std::unordered_map<std::string, Value> values;
};

const std::vector<std::string>& dtype_attr_names() {
    static const std::vector<std::string> n = {
        "float16", "bfloat16", "float32", "tfloat32", "float64", "float", "half", "double", "int8", "int16", "int32", "int64",
        "short", "int", "long", "uint", "ulong", "int4", "uint8", "uint16", "uint32", "uint64", "bool", "float8_e4m3", "float8_e4m3fn", "float8_e5m2", "float8_e5m2fnuz", "float8_e4m3fnuz"};
    return n;
}

const Registry& registry() {
    static const Registry reg = [] {
        Registry r;
        register_tile_kernel(r.entries);
        register_tile_ops(r.entries);
        register_tile_gemm(r.entries);
        register_tile_math(r.entries);
        register_tile_hints(r.entries);
        register_tile_layout(r.entries);
        register_tile_barriers(r.entries);
        register_tile_views(r.entries);
        register_tile_im2col(r.entries);
        register_tile_allreduce(r.entries);
        register_tile_reducer(r.entries);
        register_tile_extern(r.entries);
        for (const auto& e : r.entries) r.values[e.info.name] = make_builtin("T." + e.info.name, e.fn);
        return r;
    }();
    return reg;
}

}  // namespace

std::vector<TileBuiltinInfo> tile_builtins() {
    std::vector<TileBuiltinInfo> out;
    for (const auto& e : registry().entries) out.push_back(e.info);
    for (const auto& n : dtype_attr_names())
        out.push_back({n, "T." + n, "data type " + (ir::DataType::parse(n) ? ir::DataType::parse(n)->name() : n) + "; `T." + n + "(x)` casts", "dtype"});
    out.push_back({"GemmWarpPolicy", "T.GemmWarpPolicy.{Square, FullRow, FullCol}", "how T.gemm splits the tile among warps", "type"});
    out.push_back({"dtype", "T.dtype", "annotation for a dtype parameter", "type"});
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a.category != b.category ? a.category < b.category : a.name < b.name;
    });
    return out;
}

std::vector<std::string> tile_names() {
    std::vector<std::string> n;
    for (const auto& e : registry().entries) n.push_back(e.info.name);
    for (const auto& d : dtype_attr_names()) n.push_back(d);
    n.push_back("GemmWarpPolicy");
    n.push_back("dtype");
    return n;
}

std::optional<Value> tile_attr(Evaluator& ev, const std::string& name, Span span) {
    const auto& reg = registry();
    auto it = reg.values.find(name);
    if (it != reg.values.end()) return it->second;
    if (std::find(dtype_attr_names().begin(), dtype_attr_names().end(), name) != dtype_attr_names().end())
        if (auto t = ir::DataType::parse(name)) return Value::dtype(*t);
    if (name == "GemmWarpPolicy") {
        auto e = std::make_shared<EnumObj>();
        e->owner = "GemmWarpPolicy";
        return Value::make(VK::Enum, e);
    }
    if (name == "dtype") {
        auto t = std::make_shared<TensorTypeObj>();
        t->type_name = "dtype";
        return Value::make(VK::TypeObj, t);
    }
    return std::nullopt;
}

void require_kernel(Evaluator& ev, const std::string& what, Span span) {
    if (!ev.stager.in_kernel() || !ev.stager.has_frame() || ev.module_eval_depth > 0)
        ev.fail(DiagKind::TileOpOutsideKernel, span, {what});
}

}  // namespace tp::eval
