// The trace-time interpreter: evaluates the Python subset of kernel factories over Values,
// with lazily evaluated module globals, and stages T.* calls into Tile IR through Stager.
// User errors are thrown as UserError (caught by evaluate_kernel) with the span of the
// offending expression.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "eval/staging.h"
#include "eval/value.h"
#include "transform/global_layout.h"
#include "tileplay/compiler.h"
#include "tileplay/diagnostics.h"

namespace tp::eval {

enum class Flow { Normal, Break, Continue, Return };

// What the kernel being staged collects besides its statements.
struct KernelContext {
    bool eager = false;                // factory body is the kernel (T.const / T.empty style)
    std::vector<ir::Param> params;     // in order
    std::vector<ir::Var> symbolic;     // unbound T.const / T.dynamic symbols
    std::map<std::string, ir::Var> symbol_by_name;
    std::map<std::string, Value> symbol_values;  // -D values for T.const names
    std::set<std::string> pending_tensors;       // eager params declared later by `A: T.Tensor(...)`
    std::vector<ir::Buffer> outputs;             // created by T.empty
    std::vector<ir::Param> workspaces;           // T.alloc_global buffers, passed after the signature's parameters
    bool kernel_seen = false;
    bool active = false;                         // T.Kernel allowed: eager factory body or prim_func body
    std::vector<ir::Var> block_vars, thread_vars;  // of the open T.Kernel
    std::vector<std::pair<std::string, Span>> imported_sources;  // T.import_source texts and calls, in order, once each
    std::vector<int64_t> thread_extents;           // its threads= per axis, for T.thread_binding
    ir::DataType index_type = ir::DataType::int32();  // int64 where tensors or the launch reach 2^31
    std::set<std::string> buffer_names;          // unique names within the kernel
    // Dtype-changing views of shared tiles (tile_views.cpp): the view's name -> "base:bytes",
    // passed to the function as "tp.alias.<view>" attributes.
    std::map<std::string, std::string> aliases;
    bool in_role = false;                        // inside `with T.ws(...)` (roles do not nest)
    bool wgmma_fallback_noted = false;           // T.wgmma_gemm's mma.sync remark given once
    std::shared_ptr<const Obj> reducer;          // inside `with T.attr(T.comm_reducer(...), "reduce_scope", ...)`
    // T.Layout annotations of global tensors, applied to the whole body when the kernel closes.
    std::vector<transform::GlobalLayout> global_layouts;
    // iket events of this kernel function: (kind, name) -> (event id, payload type), and the
    // names of the ranges open at this point of the trace (iket.cpp).
    std::map<std::pair<std::string, std::string>, std::pair<int64_t, std::string>> iket_events;
    std::vector<std::string> iket_ranges;
};

// The lazily evaluated globals of one Python module: the compiled file's, or those of a module
// it imports from its own folder (`from helpers import f`, found as Python's sys.path[0] finds
// it). Each function's closure chain ends at its module's scope, so its globals resolve there.
struct ModuleGlobals {
    std::string name;  // "__main__", else the dotted import name
    bool package = false;  // read from a folder's __init__.py: its relative imports start from it
    ast::ModulePtr ast;
    std::shared_ptr<Scope> scope = std::make_shared<Scope>(nullptr, true);
    std::unordered_map<std::string, const ast::Stmt*> defs;  // name -> the statement binding it
    std::set<std::string> evaluating;
    std::set<std::string> nested_defs;  // names whose binding sits in a top-level if/try
    Span pin;                           // an imported module's code is reported at its import
};
// Indexes `m.ast`'s module-level bindings into m.defs; only the compiled file (`is_main`) runs
// its `if __name__ == "__main__":` block.
void index_module_globals(ModuleGlobals& m, bool is_main);

class Evaluator {
public:
    Evaluator(ast::ModulePtr module, DiagnosticEngine& diags);

    // ----- errors
    [[noreturn]] void fail(DiagKind kind, Span span, std::vector<std::string> args = {});

    // ----- expressions and statements
    Value eval(const ast::Expr& e, const std::shared_ptr<Scope>& sc);
    Value eval_node(const ast::Expr& e, const std::shared_ptr<Scope>& sc);  // eval without the nesting catch
    Flow exec_block(const ast::StmtList& body, const std::shared_ptr<Scope>& sc);
    Flow exec(const ast::Stmt& s, const std::shared_ptr<Scope>& sc);
    void assign(const ast::Expr& target, const Value& v, const std::shared_ptr<Scope>& sc, Span vspan);
    void bind_name(const std::string& name, const Value& v, const std::shared_ptr<Scope>& sc, Span span);
    Value lookup(const std::string& name, const std::shared_ptr<Scope>& sc, Span span);

    // ----- calls and attributes
    Value call(const Value& f, CallArgs& args);
    Value call_function(const FuncObj& f, CallArgs& args);
    Value make_function(const ast::FunctionDef& def, const std::shared_ptr<Scope>& sc);
    Value getattr(const Value& v, const std::string& name, Span span);
    std::optional<Value> try_getattr(const Value& v, const std::string& name, Span span);
    Value subscript(const Value& v, const Value& idx, Span span, Span idx_span);
    std::vector<Value> iterate(const Value& v, Span span);

    // ----- operators (ops.cpp)
    Value binary(ast::OperatorKind op, const Value& a, const Value& b, Span span);
    Value compare(ast::CmpOpKind op, const Value& a, const Value& b, Span span);
    Value unary(ast::UnaryOpKind op, const Value& a, Span span);
    Value logical_and(const Value& a, const Value& b, Span span);
    Value logical_or(const Value& a, const Value& b, Span span);
    Value logical_not(const Value& a, Span span);
    bool truthy(const Value& v, Span span);  // NotConstant for IR values
    void check_repeat_size(const Value& a, const Value& b, Span span);  // SizeTooLarge before `seq * n` allocates

    // ----- conversions
    ir::Expr to_expr(const Value& v, Span span, const char* what = "value");
    bool is_ir(const Value& v) const;  // an Expr (or var-scope buffer) rather than a Python value
    int64_t as_int(const Value& v, Span span, const char* what);
    double as_float(const Value& v, Span span, const char* what);
    bool as_bool(const Value& v, Span span, const char* what);
    std::string as_str(const Value& v, Span span, const char* what);
    ir::DataType as_dtype(const Value& v, Span span);    // an element type: dtype_value, 4-bit types refused
    ir::DataType dtype_value(const Value& v, Span span);  // any dtype, T.int4 included (a value to compare)
    ir::DataType element_dtype(ir::DataType t, Span span);  // t, or an error for 4-bit types
    ir::Buffer as_buffer(const Value& v, Span span, const char* what);
    std::vector<ir::Expr> as_shape(const Value& v, Span span);
    void check_shape_size(const std::vector<ir::Expr>& shape, Span span);  // SizeTooLarge: rank > 8, counts that overflow
    std::vector<Value> as_seq(const Value& v, Span span, const char* what);

    // ----- builtins
    Value builtin(const std::string& name);  // Python builtin by name, or None
    Value module_value(const std::string& dotted, Span span = {});
    std::optional<Value> module_attr(const ModuleObj& m, const std::string& name, Span span);

    // ----- module globals (lazy)
    Value global(const std::string& name, Span span, bool* found) { return global_in(main_, name, span, found); }
    Value global_in(ModuleGlobals& m, const std::string& name, Span span, bool* found);
    const std::shared_ptr<Scope>& module_scope() const { return main_.scope; }
    // The module a scope chain ends at (the compiled file's unless the chain is an imported one's).
    ModuleGlobals& globals_of(const std::shared_ptr<Scope>& sc);
    // ----- modules imported from the compiled file's folder (py_user_modules.cpp)
    // Loads `<folder>/<dotted as a path>.py` on first use, its code reported at `span`; nullptr
    // when the compiled file has no such sibling (the name is then an opaque host module).
    ModuleGlobals* user_module(const std::string& dotted, Span span);
    std::optional<Value> user_module_attr(const std::string& dotted, const std::string& name, Span span);
    // Calls a function defined in an imported module: an error raised inside it (reported at the
    // import) moves to this call, with a note naming the function and its module.
    Value call_imported(const FuncObj& f, ModuleGlobals& home, CallArgs& args);
    std::vector<std::string> visible_names(const std::shared_ptr<Scope>& sc) const;

    ast::ModulePtr module;
    DiagnosticEngine& diags;
    Stager stager;
    KernelContext* kernel = nullptr;  // set while a factory is being staged
    std::string target;
    int depth = 0;
    int call_depth = 0;
    int python_loop_depth = 0;  // trace-time loops open inside the innermost IR loop
    int module_eval_depth = 0;  // > 0 while a module global is being evaluated lazily
    static constexpr int kMaxDepth = 200;
    // Trace time is bounded like a run: statements and comprehension items executed. Nested
    // `range(100000)` loops in a factory end with a located error instead of hanging.
    int64_t steps = 0;
    int64_t max_steps = kDefaultTraceStepLimit;
    void count_step(Span span) {
        if (++steps > max_steps) fail(DiagKind::TraceStepBudget, span, {std::to_string(max_steps)});
    }
    Value return_value;
    std::string name_hint;  // target of `x = T.alloc_...(...)`, names the buffer
    // T.reshape / T.view: each view (kept alive here) and the buffer whose elements it shows.
    std::map<const ir::BufferNode*, std::pair<ir::Buffer, ir::Buffer>> buffer_views;
    // `view[i, j]` evaluates to a load of the viewed buffer; a tile op given that load as its
    // `A[i, j]` operand reads the region of the view starting there (as_region), so the point
    // is kept here with the view and its indices (the load itself kept alive as the key's owner).
    struct ViewPoint {
        ir::Expr load;
        ir::Buffer view;
        std::vector<ir::Expr> indices;
    };
    std::map<const ir::Node*, ViewPoint> view_points;
    // T.alloc_reducer buffers: updated in T.Parallel loops along dims that do not index them.
    std::set<const ir::BufferNode*> reducers;

private:
    ModuleGlobals main_;
    std::map<std::string, std::unique_ptr<ModuleGlobals>> user_modules_;  // by dotted name
    std::map<const Scope*, ModuleGlobals*> module_by_scope_;
    std::unordered_map<std::string, Value> builtins_;
};

// Python-style argument binding for builtins: reads named/positional args in order.
class ArgReader {
public:
    ArgReader(Evaluator& ev, CallArgs& args, std::string fname, std::vector<std::string> names);
    const Value* get(size_t i);  // nullptr when not given
    Value get_or(size_t i, Value dflt) { const Value* v = get(i); return v ? *v : dflt; }
    Span span(size_t i) const;
    const Value& require(size_t i);
    // Extra positional args after the named ones (for *args builtins).
    std::vector<Value> rest;

private:
    Evaluator& ev_;
    CallArgs& args_;
    std::string fname_;
    std::vector<std::string> names_;
    std::vector<const Value*> vals_;
    std::vector<Span> spans_;
};

// Compound statements (eval_control.cpp): folded at trace time or staged as IR.
Flow exec_for(Evaluator& ev, const ast::For& f, const std::shared_ptr<Scope>& sc);
Flow exec_if(Evaluator& ev, const ast::If& s, const std::shared_ptr<Scope>& sc);
Flow exec_while(Evaluator& ev, const ast::While& w, const std::shared_ptr<Scope>& sc);
// Stages the body of a loop on kernel runtime values (`for` over a loop spec, `while` on a
// runtime test) into a new frame: `break` inside belongs to this loop, not to a Python loop
// around it. Returns how the body ended and its statements.
std::pair<Flow, std::vector<ir::Stmt>> stage_ir_loop_body(Evaluator& ev, const ast::StmtList& body, const std::shared_ptr<Scope>& sc);

// Bound methods of Python values (eval_methods.cpp), for Evaluator::try_getattr; nullopt when
// the value has no such method.
std::optional<Value> str_method(const std::string& s, const std::string& name);
std::optional<Value> seq_method(const Value& v, const std::string& name);  // list or tuple
std::optional<Value> dict_method(const Value& v, const std::string& name);
// A Python index into a sequence of length n, negative counting from the end; IndexError if out.
int64_t norm_index(Evaluator& ev, int64_t i, size_t n, Span span);

// "tilelang.jit" for `@tilelang.jit(...)`, "autotune" for `@autotune`: a decorator's dotted name.
std::string decorator_name(const ast::Expr& e);
// `@autotune` / `@tilelang.autotune` (any module prefix).
bool is_autotune(const std::string& decorator);

// Reads a `-D NAME=VALUE` text as a Python value: int, float, bool, None, dtype name, a Python
// literal, else a string. Factory parameters and autotune spaces read -D the same way.
Value parse_define(Evaluator& ev, const std::string& name, const std::string& text);

// Registration hooks of the evaluator's parts.
void register_python_builtins(std::unordered_map<std::string, Value>& out);
Value make_builtin(std::string name, BuiltinFn fn);

}  // namespace tp::eval
