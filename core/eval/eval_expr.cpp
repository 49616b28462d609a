// Expression evaluation: constants, names, operators, containers, comprehensions, calls,
// conditional expressions (Select on IR conditions), lambdas and f-strings.
#include "eval/interp.h"

namespace tp::eval {

namespace {

struct DepthGuard {
    Evaluator& ev;
    DepthGuard(Evaluator& e, Span s) : ev(e) {
        if (++ev.depth > Evaluator::kMaxDepth * 8) ev.fail(DiagKind::EvalRecursionLimit, s, {std::to_string(Evaluator::kMaxDepth)});
    }
    ~DepthGuard() { --ev.depth; }
};

}  // namespace

static Value eval_constant(Evaluator& ev, const ast::Constant& c) {
    const auto& v = c.value;
    if (std::holds_alternative<ast::NoneValue>(v)) return Value::none();
    if (auto* b = std::get_if<bool>(&v)) return Value::boolean(*b);
    if (auto* i = std::get_if<int64_t>(&v)) return Value::integer(*i);
    if (auto* d = std::get_if<double>(&v)) return Value::floating(*d);
    if (auto* s = std::get_if<std::string>(&v)) return Value::str(*s);
    if (std::holds_alternative<ast::EllipsisValue>(v)) return Value::ellipsis();
    if (auto* big = std::get_if<ast::BigIntValue>(&v)) ev.fail(DiagKind::IntegerOverflow, c.span, {big->digits});
    if (std::holds_alternative<ast::ImagValue>(v)) ev.fail(DiagKind::UnsupportedConstruct, c.span, {"complex numbers", ""});
    ev.fail(DiagKind::UnsupportedConstruct, c.span, {"bytes literals", ""});
}

// Evaluates a list of element expressions, expanding `*iterable`.
static std::vector<Value> eval_elts(Evaluator& ev, const ast::ExprList& elts, const std::shared_ptr<Scope>& sc) {
    std::vector<Value> out;
    out.reserve(elts.size());
    for (const auto& e : elts) {
        if (auto* st = e->as<ast::Starred>()) {
            for (auto& x : ev.iterate(ev.eval(*st->value, sc), st->span)) out.push_back(std::move(x));
        } else {
            out.push_back(ev.eval(*e, sc));
        }
    }
    return out;
}

static void dict_set(DictObj& d, const Value& k, Value v) {
    for (auto& e : d.items)
        if (values_equal(e.first, k)) { e.second = std::move(v); return; }
    d.items.emplace_back(k, std::move(v));
}

// Runs the generators of a comprehension, calling emit for each element.
static void run_comprehension(Evaluator& ev, const std::vector<ast::Comprehension>& gens, size_t gi,
                              const std::shared_ptr<Scope>& sc, const std::function<void()>& emit) {
    if (gi == gens.size()) { emit(); return; }
    const auto& g = gens[gi];
    for (const auto& item : ev.iterate(ev.eval(*g.iter, sc), g.iter->span)) {
        ev.count_step(g.iter->span);
        ev.assign(*g.target, item, sc, g.iter->span);
        bool keep = true;
        for (const auto& cond : g.ifs)
            if (!ev.truthy(ev.eval(*cond, sc), cond->span)) { keep = false; break; }
        if (keep) run_comprehension(ev, gens, gi + 1, sc, emit);
    }
}

static std::string format_value(Evaluator& ev, const ast::FormattedValue& fv, const std::shared_ptr<Scope>& sc) {
    Value v = ev.eval(*fv.value, sc);
    std::string s = fv.conversion == 'r' ? repr(v) : to_str(v);
    if (fv.format_spec) {
        // Only a few specs matter for messages; keep the value as is for the rest.
        auto* spec = fv.format_spec->as<ast::JoinedStr>();
        std::string text;
        if (spec)
            for (const auto& part : spec->values)
                if (auto* c = part->as<ast::Constant>())
                    if (auto* cs = std::get_if<std::string>(&c->value)) text += *cs;
        if (!text.empty() && text.back() == 'f' && v.is_number()) {
            int prec = 6;
            auto dot = text.find('.');
            if (dot != std::string::npos) prec = std::atoi(text.c_str() + dot + 1);
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.*f", prec, v.kind == VK::Float ? v.f : static_cast<double>(v.i));
            s = buf;
        }
    }
    return s;
}

// repr, == and hash refuse containers nested too deep (or compared around a cycle) by
// throwing; the innermost expression being evaluated is where the user asked for it.
Value Evaluator::eval(const ast::Expr& e, const std::shared_ptr<Scope>& sc) {
    try {
        return eval_node(e, sc);
    } catch (const NestingLimitError& x) {
        fail(DiagKind::NestingTooDeep, e.span, {x.what()});
    }
}

Value Evaluator::eval_node(const ast::Expr& e, const std::shared_ptr<Scope>& sc) {
    using K = ast::ExprKind;
    switch (e.kind) {
        case K::Constant: return eval_constant(*this, static_cast<const ast::Constant&>(e));
        case K::Name: return lookup(static_cast<const ast::Name&>(e).id, sc, e.span);
        case K::Attribute: {
            auto& a = static_cast<const ast::Attribute&>(e);
            return getattr(eval(*a.value, sc), a.attr, e.span);
        }
        case K::Subscript: {
            auto& s = static_cast<const ast::Subscript&>(e);
            Value base = eval(*s.value, sc);
            return subscript(base, eval(*s.slice, sc), e.span, s.slice->span);
        }
        case K::Slice: {
            auto& s = static_cast<const ast::Slice&>(e);
            auto obj = std::make_shared<SliceObj>();
            if (s.lower) obj->lower = eval(*s.lower, sc);
            if (s.upper) obj->upper = eval(*s.upper, sc);
            if (s.step) obj->step = eval(*s.step, sc);
            return Value::make(VK::Slice, obj);
        }
        case K::BinOp: {
            auto& b = static_cast<const ast::BinOp&>(e);
            Value l = eval(*b.left, sc);
            Value r = eval(*b.right, sc);
            return binary(b.op, l, r, e.span);
        }
        case K::UnaryOp: {
            auto& u = static_cast<const ast::UnaryOp&>(e);
            return unary(u.op, eval(*u.operand, sc), e.span);
        }
        case K::BoolOp: {
            auto& b = static_cast<const ast::BoolOp&>(e);
            Value acc = eval(*b.values[0], sc);
            for (size_t i = 1; i < b.values.size(); ++i) {
                if (is_ir(acc)) {
                    Value r = eval(*b.values[i], sc);
                    acc = b.op == ast::BoolOpKind::And ? logical_and(acc, r, e.span) : logical_or(acc, r, e.span);
                    continue;
                }
                bool t = truthy(acc, b.values[i - 1]->span);
                if (b.op == ast::BoolOpKind::And ? !t : t) return acc;
                Value r = eval(*b.values[i], sc);
                if (is_ir(r) && i + 1 < b.values.size()) {
                    acc = r;
                    continue;
                }
                acc = r;
            }
            return acc;
        }
        case K::Compare: {
            auto& c = static_cast<const ast::Compare&>(e);
            Value left = eval(*c.left, sc);
            Value result;
            for (size_t i = 0; i < c.ops.size(); ++i) {
                Value right = eval(*c.comparators[i], sc);
                Value r = compare(c.ops[i], left, right, e.span);
                if (i == 0) result = r;
                else result = is_ir(result) || is_ir(r) ? logical_and(result, r, e.span) : r;
                if (!is_ir(result) && !truthy(result, e.span)) return result;
                left = right;
            }
            return result;
        }
        case K::IfExp: {
            auto& x = static_cast<const ast::IfExp&>(e);
            Value t = eval(*x.test, sc);
            if (!is_ir(t)) return truthy(t, x.test->span) ? eval(*x.body, sc) : eval(*x.orelse, sc);
            ir::Expr c = to_expr(t, x.test->span);
            if (auto k = ir::as_const_int(c)) return *k ? eval(*x.body, sc) : eval(*x.orelse, sc);
            Value a = eval(*x.body, sc), b = eval(*x.orelse, sc);
            return Value::expr(ir::make_select(c, to_expr(a, x.body->span), to_expr(b, x.orelse->span), e.span));
        }
        case K::Call: {
            DepthGuard g(*this, e.span);
            auto& c = static_cast<const ast::Call&>(e);
            Value f = eval(*c.func, sc);
            CallArgs args;
            args.span = e.span;
            args.func_span = c.func->span;
            for (const auto& a : c.args) {
                if (auto* st = a->as<ast::Starred>()) {
                    for (auto& x : iterate(eval(*st->value, sc), st->span)) {
                        args.pos.push_back(std::move(x));
                        args.pos_spans.push_back(st->span);
                    }
                } else {
                    args.pos.push_back(eval(*a, sc));
                    args.pos_spans.push_back(a->span);
                }
            }
            for (const auto& kw : c.keywords) {
                Value v = eval(*kw.value, sc);
                if (kw.arg.empty()) {
                    if (v.kind != VK::Dict) fail(DiagKind::TypeMismatch, kw.span, {"argument after `**` must be a dict, got " + type_name(v)});
                    for (const auto& [k, val] : v.as<DictObj>()->items) {
                        if (k.kind != VK::Str) fail(DiagKind::TypeMismatch, kw.span, {"keywords must be strings"});
                        args.kw.emplace_back(str_of(k), val);
                        args.kw_spans.push_back(kw.span);
                    }
                } else {
                    args.kw.emplace_back(kw.arg, std::move(v));
                    args.kw_spans.push_back(kw.span);
                }
            }
            return call(f, args);
        }
        case K::Tuple: return Value::tuple(eval_elts(*this, static_cast<const ast::Tuple&>(e).elts, sc));
        case K::List: return Value::list(eval_elts(*this, static_cast<const ast::List&>(e).elts, sc));
        case K::Set: {
            std::vector<Value> out;
            for (auto& v : eval_elts(*this, static_cast<const ast::Set&>(e).elts, sc)) {
                bool dup = false;
                for (const auto& o : out) dup |= values_equal(o, v);
                if (!dup) out.push_back(std::move(v));
            }
            return Value::list(std::move(out));
        }
        case K::Dict: {
            auto& d = static_cast<const ast::Dict&>(e);
            auto obj = std::make_shared<DictObj>();
            for (size_t i = 0; i < d.values.size(); ++i) {
                if (!d.keys[i]) {
                    Value m = eval(*d.values[i], sc);
                    if (m.kind != VK::Dict) fail(DiagKind::TypeMismatch, d.values[i]->span, {"`**` needs a dict, got " + type_name(m)});
                    for (const auto& [k, v] : m.as<DictObj>()->items) dict_set(*obj, k, v);
                    continue;
                }
                Value k = eval(*d.keys[i], sc);
                if (!is_hashable(k)) fail(DiagKind::TypeMismatch, d.keys[i]->span, {"unhashable type: " + type_name(k)});
                dict_set(*obj, k, eval(*d.values[i], sc));
            }
            return Value::make(VK::Dict, obj);
        }
        case K::ListComp: case K::GeneratorExp: case K::SetComp: {
            const ast::Expr* elt;
            const std::vector<ast::Comprehension>* gens;
            if (auto* l = e.as<ast::ListComp>()) { elt = l->elt.get(); gens = &l->generators; }
            else if (auto* g = e.as<ast::GeneratorExp>()) { elt = g->elt.get(); gens = &g->generators; }
            else { auto* s = e.as<ast::SetComp>(); elt = s->elt.get(); gens = &s->generators; }
            auto inner = std::make_shared<Scope>(sc);
            std::vector<Value> out;
            run_comprehension(*this, *gens, 0, inner, [&] { out.push_back(eval(*elt, inner)); });
            return Value::list(std::move(out));
        }
        case K::DictComp: {
            auto& d = static_cast<const ast::DictComp&>(e);
            auto inner = std::make_shared<Scope>(sc);
            auto obj = std::make_shared<DictObj>();
            run_comprehension(*this, d.generators, 0, inner, [&] {
                Value k = eval(*d.key, inner);
                dict_set(*obj, k, eval(*d.value, inner));
            });
            return Value::make(VK::Dict, obj);
        }
        case K::Lambda: {
            auto& l = static_cast<const ast::Lambda&>(e);
            auto f = std::make_shared<FuncObj>();
            f->name = "<lambda>";
            f->lambda = &l;
            f->args = l.args.get();
            f->closure = sc;
            f->span = e.span;
            for (const auto& d : l.args->defaults) f->defaults.push_back(eval(*d, sc));
            for (const auto& d : l.args->kw_defaults) f->kw_defaults.push_back(d ? std::optional<Value>(eval(*d, sc)) : std::nullopt);
            return Value::make(VK::Func, f);
        }
        case K::JoinedStr: {
            std::string s;
            for (const auto& part : static_cast<const ast::JoinedStr&>(e).values) {
                if (auto* fv = part->as<ast::FormattedValue>()) s += format_value(*this, *fv, sc);
                else s += to_str(eval(*part, sc));
            }
            return Value::str(std::move(s));
        }
        case K::FormattedValue: return Value::str(format_value(*this, static_cast<const ast::FormattedValue&>(e), sc));
        case K::NamedExpr: {
            auto& n = static_cast<const ast::NamedExpr&>(e);
            Value v = eval(*n.value, sc);
            assign(*n.target, v, sc, n.value->span);
            return v;
        }
        case K::Starred:
            fail(DiagKind::UnsupportedConstruct, e.span, {"*expression", " here; unpack it inside a call, list or tuple"});
        default:
            fail(DiagKind::UnsupportedConstruct, e.span, {ast::expr_kind_name(e.kind), " at trace time"});
    }
}

}  // namespace tp::eval
