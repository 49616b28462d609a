// guard_masks (see guard_masks.h).
#include "transform/guard_masks.h"

#include "ir/functor.h"
#include "transform/box_predicate.h"

namespace tp::transform {

using namespace ir;

namespace {

// Whether e reads element `indices` of buffer b (the value the store would
// leave in place).
bool same_element(const Expr& e, const BufferStoreNode& st) {
    auto* l = e ? e->as<BufferLoadNode>() : nullptr;
    if (!l || l->buffer.get() != st.buffer.get() || l->indices.size() != st.indices.size()) return false;
    for (size_t d = 0; d < st.indices.size(); ++d)
        if (l->indices[d].get() != st.indices[d].get()) return false;
    return true;
}

struct Guard : IRMutator {
    Stmt visit_For(const ForNode& n, const Stmt& s) override {
        if (n.for_kind != ForKind::Parallel) return IRMutator::visit_For(n, s);
        auto nest = match_parallel_nest(s);
        if (!nest || nest->store->buffer->scope != Scope::Fragment) return IRMutator::visit_For(n, s);
        auto* sel = nest->store->value->as<SelectNode>();
        if (!sel) return s;
        // Unchanged where `kept` holds: c ? C : v keeps C where c, c ? v : C where
        // not c.
        Expr kept;
        if (same_element(sel->true_value, *nest->store))
            kept = sel->cond;
        else if (same_element(sel->false_value, *nest->store))
            kept = make_unary(UnaryOp::Not, sel->cond, sel->span);
        else
            return s;
        Expr everywhere = holds_everywhere(substitute(kept, nest->bindings), nest->box);
        if (!everywhere || as_const_int(everywhere)) return s;  // unknown, or simplify's to decide
        return std::make_shared<IfThenElseNode>(make_unary(UnaryOp::Not, everywhere, n.span), s, nullptr, n.span);
    }
};

}  // namespace

PrimFuncPtr guard_masks(const PrimFuncPtr& func) {
    Guard g;
    return mutate_func(func, g);
}

}  // namespace tp::transform
