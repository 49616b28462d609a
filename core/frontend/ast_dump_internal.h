// Internal to ast::dump, shared by ast_dump_expr.cpp (expressions, patterns, arguments) and
// ast_dump.cpp (statements and the ast.dump layout): the generic rendering tree both halves
// build and the small helpers they both use. A named namespace rather than an anonymous one
// because statements render their expressions through the other file and vice versa.
#pragma once

#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/parser_common.h"

namespace tp::ast::dump_detail {

inline const char* operator_name(OperatorKind k) {
    static const char* const kNames[] = {"Add", "Sub", "Mult", "MatMult", "Div", "Mod", "Pow",
                                         "LShift", "RShift", "BitOr", "BitXor", "BitAnd", "FloorDiv"};
    return kNames[static_cast<int>(k)];
}

// A generic rendering tree: a node with named fields, a list, or an already-printed atom.
struct DV {
    enum Kind { NodeK, ListK, AtomK } kind = AtomK;
    std::string text;  // class name or atom text
    Span span;
    std::vector<const char*> names;  // field names, parallel to fields
    std::vector<DV> fields;
    std::vector<DV> items;
};

inline DV atom(std::string s) {
    DV d;
    d.text = std::move(s);
    return d;
}
inline DV mk(const char* name, Span span = {}) {
    DV d;
    d.kind = DV::NodeK;
    d.text = name;
    d.span = span;
    return d;
}
inline DV list() {
    DV d;
    d.kind = DV::ListK;
    return d;
}

// Defined in ast_dump_expr.cpp; statements render their expressions and patterns through these.
DV expr(const Expr* e);
DV pattern(const Pattern* p);
DV arguments(const Arguments& a);
DV keywords(const std::vector<Keyword>& ks);

inline DV opt(const Expr* e) { return e ? expr(e) : atom("None"); }
inline DV exprs(const ExprList& l) {
    DV d = list();
    for (const auto& e : l) d.items.push_back(opt(e.get()));
    return d;
}
inline DV strs(const std::vector<std::string>& l) {
    DV d = list();
    for (const auto& s : l) d.items.push_back(atom(frontend::py_repr_str(s)));
    return d;
}
inline void field(DV& d, const char* name, DV v) {
    d.names.push_back(name);
    d.fields.push_back(std::move(v));
}
inline void field_opt(DV& d, const char* name, const Expr* e) {
    if (e) field(d, name, expr(e));
}

}  // namespace tp::ast::dump_detail
