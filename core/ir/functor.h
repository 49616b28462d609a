// Visitor and mutator dispatch over Tile IR, generated from ir_nodes.def:
//   ExprFunctor<R, Args...> / StmtFunctor<R, Args...>: switch on the node kind and call
//     visit_<Name>(const <Name>Node&, const Expr&/Stmt&, Args...); unhandled kinds go to
//     visit_default_* (InternalError unless overridden).
//   IRVisitor: walks every statement, expression, buffer region and buffer shape.
//   IRMutator: rebuilds only what changed and returns the SAME pointer when nothing did, so
//     passes can cheaply tell whether they changed anything (`out == in`).
#pragma once

#include <string>

#include "ir/ir.h"
#include "tileplay/diagnostics.h"

namespace tp::ir {

template <class R, class... Args>
class ExprFunctor {
public:
    virtual ~ExprFunctor() = default;
    R operator()(const Expr& e, Args... args) { return visit_expr(e, args...); }
    virtual R visit_expr(const Expr& e, Args... args) {
        if (!e) throw InternalError("null expression", __FILE__, __LINE__);
        switch (e->kind) {
#define IR_EXPR(Name) \
    case NodeKind::Name: return visit_##Name(static_cast<const Name##Node&>(*e), e, args...);
#include "ir/ir_nodes.def"
            default: break;
        }
        throw InternalError(std::string("statement node in expression position: ") + node_kind_name(e->kind), __FILE__, __LINE__);
    }

protected:
    virtual R visit_default_expr(const Expr& e, Args...) {
        throw InternalError(std::string("unhandled expression node ") + node_kind_name(e->kind), __FILE__, __LINE__);
    }
#define IR_EXPR(Name) \
    virtual R visit_##Name(const Name##Node&, const Expr& e, Args... args) { return visit_default_expr(e, args...); }
#include "ir/ir_nodes.def"
};

template <class R, class... Args>
class StmtFunctor {
public:
    virtual ~StmtFunctor() = default;
    R operator()(const Stmt& s, Args... args) { return visit_stmt(s, args...); }
    virtual R visit_stmt(const Stmt& s, Args... args) {
        if (!s) throw InternalError("null statement", __FILE__, __LINE__);
        switch (s->kind) {
#define IR_STMT(Name) \
    case NodeKind::Name: return visit_##Name(static_cast<const Name##Node&>(*s), s, args...);
#include "ir/ir_nodes.def"
            default: break;
        }
        throw InternalError(std::string("expression node in statement position: ") + node_kind_name(s->kind), __FILE__, __LINE__);
    }

protected:
    virtual R visit_default_stmt(const Stmt& s, Args...) {
        throw InternalError(std::string("unhandled statement node ") + node_kind_name(s->kind), __FILE__, __LINE__);
    }
#define IR_STMT(Name) \
    virtual R visit_##Name(const Name##Node&, const Stmt& s, Args... args) { return visit_default_stmt(s, args...); }
#include "ir/ir_nodes.def"
};

// Read-only walk over everything. Override a visit_<Name> and call the base to keep recursing.
class IRVisitor : public ExprFunctor<void>, public StmtFunctor<void> {
public:
    using ExprFunctor<void>::visit_expr;
    using StmtFunctor<void>::visit_stmt;
    void visit(const Expr& e) { if (e) visit_expr(e); }
    void visit(const Stmt& s) { if (s) visit_stmt(s); }
    virtual void visit_buffer(const Buffer& b);  // walks the shape
    void visit_region(const BufferRegion& r);

protected:
#define IR_EXPR(Name) void visit_##Name(const Name##Node& n, const Expr& e) override;
#define IR_STMT(Name) void visit_##Name(const Name##Node& n, const Stmt& s) override;
#include "ir/ir_nodes.def"
};

// Rebuilding walk. Every visit_<Name> returns the input pointer when no child changed.
// Buffers are kept as they are (identity matters) unless mutate_buffer is overridden.
class IRMutator : public ExprFunctor<Expr>, public StmtFunctor<Stmt> {
public:
    using ExprFunctor<Expr>::visit_expr;
    using StmtFunctor<Stmt>::visit_stmt;
    Expr mutate(const Expr& e) { return e ? visit_expr(e) : e; }
    Stmt mutate(const Stmt& s) { return s ? visit_stmt(s) : s; }
    virtual Buffer mutate_buffer(const Buffer& b) { return b; }
    // Returns true when any element changed; out receives the mutated list.
    bool mutate_exprs(const std::vector<Expr>& in, std::vector<Expr>& out);
    virtual bool mutate_region(const BufferRegion& in, BufferRegion& out);

protected:
#define IR_EXPR(Name) Expr visit_##Name(const Name##Node& n, const Expr& e) override;
#define IR_STMT(Name) Stmt visit_##Name(const Name##Node& n, const Stmt& s) override;
#include "ir/ir_nodes.def"
};

// Applies a mutator to a function's body (and its params' buffers); returns the same pointer
// when nothing changed.
PrimFuncPtr mutate_func(const PrimFuncPtr& f, IRMutator& m);

}  // namespace tp::ir
