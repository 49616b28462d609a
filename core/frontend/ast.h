// The Python 3.12 abstract syntax tree. Node types and field names mirror CPython's `ast`
// module one for one (https://docs.python.org/3.12/library/ast.html), so the parser and the
// trace-time evaluator share one well-known contract. Every node carries its source span.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tileplay/source.h"

namespace tp::ast {

struct Node {
    Span span;
    virtual ~Node() = default;
};

// ----------------------------------------------------------------------------- expressions
enum class ExprKind {
    BoolOp, NamedExpr, BinOp, UnaryOp, Lambda, IfExp, Dict, Set, ListComp, SetComp, DictComp,
    GeneratorExp, Await, Yield, YieldFrom, Compare, Call, FormattedValue, JoinedStr, Constant,
    Attribute, Subscript, Starred, Name, List, Tuple, Slice
};
enum class ExprContext { Load, Store, Del };
enum class BoolOpKind { And, Or };
enum class OperatorKind { Add, Sub, Mult, MatMult, Div, Mod, Pow, LShift, RShift, BitOr, BitXor, BitAnd, FloorDiv };
enum class UnaryOpKind { Invert, Not, UAdd, USub };
enum class CmpOpKind { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

const char* expr_kind_name(ExprKind k);
const char* operator_symbol(OperatorKind k);   // "+", "@", "//", ...
const char* unaryop_symbol(UnaryOpKind k);     // "~", "not", "+", "-"
const char* cmpop_symbol(CmpOpKind k);         // "==", "is not", "not in", ...

struct Expr : Node {
    ExprKind kind;
    explicit Expr(ExprKind k) : kind(k) {}
    template <class T> const T* as() const { return kind == T::Kind ? static_cast<const T*>(this) : nullptr; }
    template <class T> T* as() { return kind == T::Kind ? static_cast<T*>(this) : nullptr; }
};
using ExprPtr = std::unique_ptr<Expr>;
using ExprList = std::vector<ExprPtr>;

#define TP_EXPR(Name) \
    static constexpr ExprKind Kind = ExprKind::Name; \
    Name() : Expr(ExprKind::Name) {}

struct BoolOp : Expr { TP_EXPR(BoolOp) BoolOpKind op{}; ExprList values; };
struct NamedExpr : Expr { TP_EXPR(NamedExpr) ExprPtr target, value; };
struct BinOp : Expr { TP_EXPR(BinOp) ExprPtr left; OperatorKind op{}; ExprPtr right; };
struct UnaryOp : Expr { TP_EXPR(UnaryOp) UnaryOpKind op{}; ExprPtr operand; };

struct Arg : Node {
    std::string arg;
    ExprPtr annotation;  // may be null
};
struct Arguments : Node {
    std::vector<Arg> posonlyargs, args;
    std::optional<Arg> vararg;
    std::vector<Arg> kwonlyargs;
    ExprList kw_defaults;  // one per kwonlyarg; null where no default
    std::optional<Arg> kwarg;
    ExprList defaults;     // for the last len(defaults) of posonlyargs + args
};

struct Lambda : Expr { TP_EXPR(Lambda) std::shared_ptr<Arguments> args; ExprPtr body; };
struct IfExp : Expr { TP_EXPR(IfExp) ExprPtr test, body, orelse; };
// keys[i] is null for `**mapping` entries, as in CPython.
struct Dict : Expr { TP_EXPR(Dict) ExprList keys, values; };
struct Set : Expr { TP_EXPR(Set) ExprList elts; };

struct Comprehension : Node {
    ExprPtr target, iter;
    ExprList ifs;
    bool is_async = false;
};
struct ListComp : Expr { TP_EXPR(ListComp) ExprPtr elt; std::vector<Comprehension> generators; };
struct SetComp : Expr { TP_EXPR(SetComp) ExprPtr elt; std::vector<Comprehension> generators; };
struct DictComp : Expr { TP_EXPR(DictComp) ExprPtr key, value; std::vector<Comprehension> generators; };
struct GeneratorExp : Expr { TP_EXPR(GeneratorExp) ExprPtr elt; std::vector<Comprehension> generators; };
struct Await : Expr { TP_EXPR(Await) ExprPtr value; };
struct Yield : Expr { TP_EXPR(Yield) ExprPtr value; /* may be null */ };
struct YieldFrom : Expr { TP_EXPR(YieldFrom) ExprPtr value; };
struct Compare : Expr { TP_EXPR(Compare) ExprPtr left; std::vector<CmpOpKind> ops; ExprList comparators; };

struct Keyword : Node {
    std::string arg;  // empty for `**kwargs`
    ExprPtr value;
};
struct Call : Expr { TP_EXPR(Call) ExprPtr func; ExprList args; std::vector<Keyword> keywords; };
// conversion: -1 none, 's', 'r', 'a'. format_spec is a JoinedStr or null.
struct FormattedValue : Expr { TP_EXPR(FormattedValue) ExprPtr value; int conversion = -1; ExprPtr format_spec; };
struct JoinedStr : Expr { TP_EXPR(JoinedStr) ExprList values; };

struct NoneValue { friend bool operator==(NoneValue, NoneValue) { return true; } };
struct EllipsisValue { friend bool operator==(EllipsisValue, EllipsisValue) { return true; } };
struct BytesValue { std::string bytes; friend bool operator==(const BytesValue&, const BytesValue&) = default; };
struct ImagValue { double imag = 0; friend bool operator==(const ImagValue&, const ImagValue&) = default; };
// Integers beyond int64 keep their decimal text in BigInt.
struct BigIntValue { std::string digits; friend bool operator==(const BigIntValue&, const BigIntValue&) = default; };
using ConstantValue = std::variant<NoneValue, bool, int64_t, BigIntValue, double, ImagValue, std::string, BytesValue, EllipsisValue>;

// str_kind is "u" for a u-prefixed string literal (CPython's Constant.kind), else empty.
struct Constant : Expr { TP_EXPR(Constant) ConstantValue value; std::string str_kind; };
struct Attribute : Expr { TP_EXPR(Attribute) ExprPtr value; std::string attr; ExprContext ctx = ExprContext::Load; };
struct Subscript : Expr { TP_EXPR(Subscript) ExprPtr value, slice; ExprContext ctx = ExprContext::Load; };
struct Starred : Expr { TP_EXPR(Starred) ExprPtr value; ExprContext ctx = ExprContext::Load; };
struct Name : Expr { TP_EXPR(Name) std::string id; ExprContext ctx = ExprContext::Load; };
struct List : Expr { TP_EXPR(List) ExprList elts; ExprContext ctx = ExprContext::Load; };
struct Tuple : Expr { TP_EXPR(Tuple) ExprList elts; ExprContext ctx = ExprContext::Load; };
struct Slice : Expr { TP_EXPR(Slice) ExprPtr lower, upper, step; /* each may be null */ };
#undef TP_EXPR

// ------------------------------------------------------------------------------- patterns
enum class PatternKind { MatchValue, MatchSingleton, MatchSequence, MatchMapping, MatchClass, MatchStar, MatchAs, MatchOr };
struct Pattern : Node {
    PatternKind kind;
    explicit Pattern(PatternKind k) : kind(k) {}
};
using PatternPtr = std::unique_ptr<Pattern>;
using PatternList = std::vector<PatternPtr>;
#define TP_PAT(Name) \
    static constexpr PatternKind Kind = PatternKind::Name; \
    Name() : Pattern(PatternKind::Name) {}
struct MatchValue : Pattern { TP_PAT(MatchValue) ExprPtr value; };
struct MatchSingleton : Pattern { TP_PAT(MatchSingleton) ConstantValue value; };
struct MatchSequence : Pattern { TP_PAT(MatchSequence) PatternList patterns; };
struct MatchMapping : Pattern { TP_PAT(MatchMapping) ExprList keys; PatternList patterns; std::optional<std::string> rest; };
struct MatchClass : Pattern { TP_PAT(MatchClass) ExprPtr cls; PatternList patterns; std::vector<std::string> kwd_attrs; PatternList kwd_patterns; };
struct MatchStar : Pattern { TP_PAT(MatchStar) std::optional<std::string> name; };
struct MatchAs : Pattern { TP_PAT(MatchAs) PatternPtr pattern; std::optional<std::string> name; };
struct MatchOr : Pattern { TP_PAT(MatchOr) PatternList patterns; };
#undef TP_PAT

// ----------------------------------------------------------------------------- statements
enum class StmtKind {
    FunctionDef, AsyncFunctionDef, ClassDef, Return, Delete, Assign, TypeAlias, AugAssign, AnnAssign,
    For, AsyncFor, While, If, With, AsyncWith, Match, Raise, Try, TryStar, Assert, Import, ImportFrom,
    Global, Nonlocal, ExprStmt, Pass, Break, Continue
};
const char* stmt_kind_name(StmtKind k);

struct Stmt : Node {
    StmtKind kind;
    explicit Stmt(StmtKind k) : kind(k) {}
    template <class T> const T* as() const { return kind == T::Kind ? static_cast<const T*>(this) : nullptr; }
    template <class T> T* as() { return kind == T::Kind ? static_cast<T*>(this) : nullptr; }
};
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;
#define TP_STMT(Name) \
    static constexpr StmtKind Kind = StmtKind::Name; \
    Name() : Stmt(StmtKind::Name) {}

// PEP 695 type parameters (`def f[T](...)`): kept by name only.
struct TypeParam : Node { std::string name; ExprPtr bound; int kind = 0; /* 0 TypeVar, 1 ParamSpec, 2 TypeVarTuple */ };

// Function bodies are shared so closures made by the evaluator can outlive nothing but the Module.
struct FunctionDef : Stmt {
    TP_STMT(FunctionDef)
    std::string name;
    std::shared_ptr<Arguments> args;
    StmtList body;
    ExprList decorator_list;
    ExprPtr returns;  // may be null
    std::vector<TypeParam> type_params;
    bool is_async = false;  // AsyncFunctionDef is parsed into FunctionDef with is_async set
};
struct ClassDef : Stmt {
    TP_STMT(ClassDef)
    std::string name;
    ExprList bases;
    std::vector<Keyword> keywords;
    StmtList body;
    ExprList decorator_list;
    std::vector<TypeParam> type_params;
};
struct Return : Stmt { TP_STMT(Return) ExprPtr value; };
struct Delete : Stmt { TP_STMT(Delete) ExprList targets; };
struct Assign : Stmt { TP_STMT(Assign) ExprList targets; ExprPtr value; };
struct TypeAlias : Stmt { TP_STMT(TypeAlias) ExprPtr name; std::vector<TypeParam> type_params; ExprPtr value; };
struct AugAssign : Stmt { TP_STMT(AugAssign) ExprPtr target; OperatorKind op{}; ExprPtr value; };
struct AnnAssign : Stmt { TP_STMT(AnnAssign) ExprPtr target, annotation, value; /* value may be null */ bool simple = true; };
struct For : Stmt { TP_STMT(For) ExprPtr target, iter; StmtList body, orelse; bool is_async = false; };
struct While : Stmt { TP_STMT(While) ExprPtr test; StmtList body, orelse; };
struct If : Stmt { TP_STMT(If) ExprPtr test; StmtList body, orelse; };
struct WithItem : Node { ExprPtr context_expr, optional_vars; /* may be null */ };
struct With : Stmt { TP_STMT(With) std::vector<WithItem> items; StmtList body; bool is_async = false; };
struct MatchCase : Node { PatternPtr pattern; ExprPtr guard; StmtList body; };
struct Match : Stmt { TP_STMT(Match) ExprPtr subject; std::vector<MatchCase> cases; };
struct Raise : Stmt { TP_STMT(Raise) ExprPtr exc, cause; };
struct ExceptHandler : Node { ExprPtr type; std::optional<std::string> name; StmtList body; };
struct Try : Stmt { TP_STMT(Try) StmtList body; std::vector<ExceptHandler> handlers; StmtList orelse, finalbody; bool is_star = false; };
struct Assert : Stmt { TP_STMT(Assert) ExprPtr test, msg; };
struct Alias : Node { std::string name; std::optional<std::string> asname; };  // name may be dotted
struct Import : Stmt { TP_STMT(Import) std::vector<Alias> names; };
struct ImportFrom : Stmt { TP_STMT(ImportFrom) std::string module; std::vector<Alias> names; int level = 0; };
struct Global : Stmt { TP_STMT(Global) std::vector<std::string> names; };
struct Nonlocal : Stmt { TP_STMT(Nonlocal) std::vector<std::string> names; };
struct ExprStmt : Stmt { TP_STMT(ExprStmt) ExprPtr value; };
struct Pass : Stmt { TP_STMT(Pass) };
struct Break : Stmt { TP_STMT(Break) };
struct Continue : Stmt { TP_STMT(Continue) };
#undef TP_STMT
// Note: AsyncFunctionDef/AsyncFor/AsyncWith/TryStar are represented by the flags is_async /
// is_star on FunctionDef/For/With/Try; the StmtKind values exist only for naming.

struct Module {
    SourceFilePtr file;
    StmtList body;
};
using ModulePtr = std::shared_ptr<Module>;

// Dumps the tree in the style of Python's ast.dump(indent=2), with line:col on each node.
std::string dump(const Module& m, bool with_spans = true);

}  // namespace tp::ast
