// AST name tables: the class names and operator symbols that ast::dump, diagnostics and later
// stages print. The CPython-compatible dump lives in ast_dump.cpp (statements and layout) and
// ast_dump_expr.cpp (expressions and patterns); Python's repr of literals in py_repr.cpp.
#include "frontend/ast.h"

namespace tp::ast {

const char* expr_kind_name(ExprKind k) {
    static const char* const kNames[] = {
        "BoolOp", "NamedExpr", "BinOp", "UnaryOp", "Lambda", "IfExp", "Dict", "Set", "ListComp", "SetComp",
        "DictComp", "GeneratorExp", "Await", "Yield", "YieldFrom", "Compare", "Call", "FormattedValue",
        "JoinedStr", "Constant", "Attribute", "Subscript", "Starred", "Name", "List", "Tuple", "Slice"};
    return kNames[static_cast<int>(k)];
}

const char* stmt_kind_name(StmtKind k) {
    static const char* const kNames[] = {
        "FunctionDef", "AsyncFunctionDef", "ClassDef", "Return", "Delete", "Assign", "TypeAlias", "AugAssign",
        "AnnAssign", "For", "AsyncFor", "While", "If", "With", "AsyncWith", "Match", "Raise", "Try", "TryStar",
        "Assert", "Import", "ImportFrom", "Global", "Nonlocal", "Expr", "Pass", "Break", "Continue"};
    return kNames[static_cast<int>(k)];
}

const char* operator_symbol(OperatorKind k) {
    static const char* const kSyms[] = {"+", "-", "*", "@", "/", "%", "**", "<<", ">>", "|", "^", "&", "//"};
    return kSyms[static_cast<int>(k)];
}

const char* unaryop_symbol(UnaryOpKind k) {
    static const char* const kSyms[] = {"~", "not", "+", "-"};
    return kSyms[static_cast<int>(k)];
}

const char* cmpop_symbol(CmpOpKind k) {
    static const char* const kSyms[] = {"==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"};
    return kSyms[static_cast<int>(k)];
}

}  // namespace tp::ast
