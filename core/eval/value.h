// Trace-time values: the Python objects a kernel factory manipulates (numbers, strings,
// containers, functions, modules) plus the staged things (IR expressions, buffers, regions,
// loop specs) that become Tile IR. Small scalars live inline; everything else is shared.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frontend/ast.h"
#include "ir/ir.h"

namespace tp::eval {

enum class VK : uint8_t {
    None,
    Bool,
    Int,
    Float,
    Str,
    Tuple,
    List,
    Dict,
    Range,
    Slice,
    Ellipsis,
    Func,      // user function / lambda / macro / prim_func
    Builtin,   // C++ callable (Python builtins and T.*)
    Module,    // T, tilelang, math, itertools, functools, or an opaque host module
    DType,     // T.float16, "float16" after conversion
    Expr,      // ir::Expr (staged scalar)
    Buffer,    // ir::Buffer (tensor, shared, fragment, local, var)
    Region,    // a sliced buffer `A[a:b, :]`
    LoopSpec,  // T.Parallel / T.Pipelined / T.serial ... iterable
    TypeObj,   // T.Tensor(shape, dtype), T.dtype, int, float ... used as annotation
    Enum,      // T.GemmWarpPolicy.FullRow, tilelang.PassConfigKey.X
    Opaque,    // anything the evaluator cannot model; errors only when used
    Partial,   // functools.partial
    Kernel,    // a T.Kernel(...) launch spec, consumed by `with`
    Role,      // a T.ws(...) warp-group role, consumed by `with`
};
const char* vk_name(VK k);

struct Obj {
    virtual ~Obj() = default;
};

struct Value {
    VK kind = VK::None;
    union {
        bool b;
        int64_t i;
        double f;
    };
    ir::DataType dt;            // for DType
    std::shared_ptr<Obj> obj;   // heap payload for non-scalar kinds

    Value() : i(0) {}
    static Value none() { return Value(); }
    static Value boolean(bool v) { Value r; r.kind = VK::Bool; r.i = 0; r.b = v; return r; }
    static Value integer(int64_t v) { Value r; r.kind = VK::Int; r.i = v; return r; }
    static Value floating(double v) { Value r; r.kind = VK::Float; r.f = v; return r; }
    static Value dtype(ir::DataType t) { Value r; r.kind = VK::DType; r.dt = t; return r; }
    static Value str(std::string s);
    static Value tuple(std::vector<Value> v);
    static Value list(std::vector<Value> v);
    static Value expr(ir::Expr e);
    static Value buffer(ir::Buffer b);
    static Value ellipsis() { Value r; r.kind = VK::Ellipsis; return r; }
    static Value make(VK k, std::shared_ptr<Obj> o) { Value r; r.kind = k; r.obj = std::move(o); return r; }

    bool is(VK k) const { return kind == k; }
    bool is_none() const { return kind == VK::None; }
    bool is_number() const { return kind == VK::Int || kind == VK::Float || kind == VK::Bool; }
    bool is_seq() const { return kind == VK::Tuple || kind == VK::List; }
    template <class T> T* as() const { return static_cast<T*>(obj.get()); }
};

// Dropping a container nested 100,000 deep must not recurse once per level on the C++
// stack: containers hand their children to this, which frees them one at a time.
void release_children(std::vector<Value>& items);
void release_children(std::vector<std::pair<Value, Value>>& items);

struct StrObj : Obj { std::string s; explicit StrObj(std::string v) : s(std::move(v)) {} };
struct SeqObj : Obj {
    std::vector<Value> items;
    explicit SeqObj(std::vector<Value> v) : items(std::move(v)) {}
    ~SeqObj() override { release_children(items); }
};
struct DictObj : Obj {
    std::vector<std::pair<Value, Value>> items;
    ~DictObj() override { release_children(items); }
};

// Thrown by repr/==/hash when containers nest deeper than kMaxNesting (or == meets a cycle,
// which Python answers with RecursionError); the evaluator turns it into a located
// NestingTooDeep diagnostic at the expression that asked.
constexpr int kMaxNesting = 1000;
struct NestingLimitError : std::runtime_error {
    explicit NestingLimitError(const std::string& what) : std::runtime_error(what) {}
};
struct RangeObj : Obj { Value start, stop, step; };  // Int values, or Expr inside a kernel
struct SliceObj : Obj { Value lower, upper, step; };
struct ExprObj : Obj { ir::Expr e; explicit ExprObj(ir::Expr v) : e(std::move(v)) {} };
struct BufferObj : Obj { ir::Buffer b; explicit BufferObj(ir::Buffer v) : b(std::move(v)) {} };

// One dimension of a subscripted buffer: a point index (extent unknown until paired with the
// other operand of a tile op) or a slice with its extent.
struct RegionDim {
    ir::Expr min;
    ir::Expr extent;  // null for a point index
};
struct RegionObj : Obj {
    ir::Buffer buffer;
    std::vector<RegionDim> dims;
};

enum class LoopKind { Serial, Unroll, Parallel, Pipelined, Vectorized, Persistent };
struct LoopSpecObj : Obj {
    LoopKind loop_kind = LoopKind::Serial;
    std::vector<std::pair<ir::Expr, ir::Expr>> ranges;  // (min, extent) per nested loop
    ir::Expr step;                                      // serial with step != 1
    int num_stages = 0;
    std::vector<int> order, stage;
    std::vector<std::vector<int>> group;
    ir::Expr wave_size, wave_index, group_size;  // T.Persistent: blocks per wave, this block, tile group
    Span span;
};

// T.Tensor((M, K), dtype) as an annotation / T.empty description.
struct TensorTypeObj : Obj {
    std::string type_name;  // "Tensor", "Buffer", "int", "float", "dtype", ...
    std::vector<Value> shape;
    std::optional<ir::DataType> dtype;
    bool is_tensor = false;
};

struct EnumObj : Obj {
    std::string owner, name;  // ("GemmWarpPolicy", "FullRow")
};

struct OpaqueObj : Obj {
    std::string what;  // "module `torch`", "`torch.float16`"
    // A torch tensor host code makes (`torch.rand(m, k, dtype=torch.float16) * 2 - 1`), known by
    // its shape and dtype only (host_tensors.cpp); is_tensor is false for any other host object.
    bool is_tensor = false;
    std::vector<int64_t> shape;
    ir::DataType dtype = ir::DataType::float32();
};

class Scope;
class Evaluator;

// Function made from a `def` or `lambda`; its AST lives as long as the module.
struct FuncObj : Obj {
    std::string name;
    const ast::FunctionDef* def = nullptr;  // def or
    const ast::Lambda* lambda = nullptr;     // lambda
    const ast::Arguments* args = nullptr;
    std::vector<Value> defaults;                  // aligned to the last posonly+args
    std::vector<std::optional<Value>> kw_defaults;  // per kwonly arg
    std::shared_ptr<Scope> closure;
    bool is_macro = false;
    bool is_prim_func = false;
    Span span;
};

struct CallArgs {
    std::vector<Value> pos;
    std::vector<Span> pos_spans;
    std::vector<std::pair<std::string, Value>> kw;
    std::vector<Span> kw_spans;
    Span span;       // the whole call
    Span func_span;  // the callee expression
};

using BuiltinFn = std::function<Value(Evaluator&, CallArgs&)>;
struct BuiltinObj : Obj {
    std::string name;  // shown in messages: "len", "T.copy"
    BuiltinFn fn;
};

struct PartialObj : Obj {
    Value func;
    std::vector<Value> pos;
    std::vector<std::pair<std::string, Value>> kw;
};

enum class ModuleKind { TileLang, Tilelang, Math, Itertools, Functools, Typing, User, Opaque };
struct ModuleObj : Obj {
    ModuleKind mod = ModuleKind::Opaque;
    std::string name;
};

// Python scopes: function locals chained to their defining scope, ending at module globals.
class Scope {
public:
    explicit Scope(std::shared_ptr<Scope> parent = nullptr, bool is_module = false)
        : parent_(std::move(parent)), is_module_(is_module) {}
    Value* find_local(const std::string& n) {
        auto it = vars_.find(n);
        return it == vars_.end() ? nullptr : &it->second;
    }
    void set(const std::string& n, Value v) { vars_[n] = std::move(v); }
    bool erase(const std::string& n) { return vars_.erase(n) > 0; }
    const std::shared_ptr<Scope>& parent() const { return parent_; }
    bool is_module() const { return is_module_; }
    std::vector<std::string> names() const {
        std::vector<std::string> r;
        for (const auto& [k, v] : vars_) r.push_back(k);
        return r;
    }
    std::vector<std::string> globals, nonlocals;  // declared by `global` / `nonlocal`

private:
    std::unordered_map<std::string, Value> vars_;
    std::shared_ptr<Scope> parent_;
    bool is_module_;
};

// Helpers shared by the evaluator's parts.
const std::string& str_of(const Value& v);
std::vector<Value>& items_of(const Value& v);
std::string type_name(const Value& v);        // Python-ish type name for messages
std::string repr(const Value& v);             // Python repr (IR values printed as IR)
std::string to_str(const Value& v);           // Python str()
bool values_equal(const Value& a, const Value& b);  // Python == on trace-time values
bool is_hashable(const Value& v);

}  // namespace tp::eval
