// timeline_stamps (see timeline_stamps.h).
#include "transform/timeline_stamps.h"

#include <nlohmann/json.hpp>

#include "ir/functor.h"
#include "pipeline_view/pipeline_events.h"

namespace tp::transform {

using namespace ir;

namespace {

struct Role {
    int id = 0;
    std::string name;
    int64_t recorder = 0;  // the thread that records (the role's first, or the one its events run on)
};

class Stamper : public IRMutator {
public:
    nlohmann::json events = nlohmann::json::array(), roles = nlohmann::json::array();
    bool active = false;

    void enter(const Role& r) {
        role_ = r;
        roles.push_back({{"role", r.id}, {"name", r.name}, {"recorder", r.recorder}});
    }

    Stmt visit_WarpRoles(const WarpRolesNode& n, const Stmt&) override {
        const bool was = active;
        active = true;
        enter({1, "producer", n.all_consumer_threads()});
        Stmt p = mutate(n.producer);
        enter({0, "consumer", 0});
        Stmt c = mutate(n.consumer);
        active = was;
        return n.with(p, c);
    }

    // A branch taken by one thread (`tx == 256`: the producer's issuing thread) records on it.
    Stmt visit_IfThenElse(const IfThenElseNode& n, const Stmt& s) override {
        const int64_t saved = role_.recorder;
        if (auto* b = n.cond->as<BinaryNode>(); b && b->op == BinaryOp::EQ) {
            auto* v = b->a->as<VarNode>();
            auto* c = b->b->as<IntImmNode>();
            if (v && c && v->var_kind == VarKind::ThreadIdx) role_.recorder = c->value;
        }
        Stmt out = IRMutator::visit_IfThenElse(n, s);
        role_.recorder = saved;
        return out;
    }

    Stmt visit_Evaluate(const EvaluateNode&, const Stmt& s) override { return stamp(s); }
    Stmt visit_BarrierOp(const BarrierOpNode&, const Stmt& s) override { return stamp(s); }

private:
    Stmt stamp(const Stmt& s) {
        if (!active) return s;
        auto ev = pipeview::classify(s);
        if (!ev || ev->kind == PipeEventKind::Compute || ev->kind == PipeEventKind::Scalar) return s;
        const int id = int(events.size());
        if (id > 0xffff) return s;  // the record keeps 16 bits of event id
        events.push_back({{"id", id},
                          {"role", role_.id},
                          {"kind", pipe_event_kind_name(ev->kind)},
                          {"label", ev->label},
                          {"line", s->span.begin.line},
                          {"col", s->span.begin.col},
                          {"waits", ev->waits}});
        const Span sp = s->span;
        auto t0 = std::make_shared<VarNode>("tp_tl_t", DataType::int64(), VarKind::Plain, sp);
        auto call = [&](const char* fn, std::vector<Expr> args, DataType t) {
            args.insert(args.begin(), std::make_shared<StringImmNode>(fn, sp));
            return make_call("tp.sync_call", std::move(args), t, sp);
        };
        Stmt record = std::make_shared<EvaluateNode>(
            call("tp::tl_record", {int_imm(role_.id), int_imm(id), int_imm(role_.recorder), t0}, DataType::void_()), sp);
        return std::make_shared<LetStmtNode>(t0, call("tp::tl_now", {}, DataType::int64()), make_seq({s, record}, sp), sp);
    }

    Role role_;
};

bool has_roles(const Stmt& body) {
    struct Find : IRVisitor {
        bool found = false;
        void visit_WarpRoles(const WarpRolesNode&, const Stmt&) override { found = true; }
    } f;
    f.visit(body);
    return f.found;
}

}  // namespace

bool timeline_requested(const PrimFunc& func) {
    auto it = func.attrs.find("tp.timeline");
    return it != func.attrs.end() && (it->second == "true" || it->second == "True" || it->second == "1");
}

PrimFuncPtr timeline_stamps(const PrimFuncPtr& func) {
    if (!timeline_requested(*func)) return func;
    Stamper st;
    if (!has_roles(func->body)) {
        st.active = true;
        st.enter({0, "block", 0});
    }
    Stmt body = st.mutate(func->body);
    auto out = std::make_shared<PrimFunc>(*func);
    out->body = body;
    out->attrs["tp.timeline_events"] = nlohmann::json{{"roles", st.roles}, {"events", st.events}}.dump();
    return out;
}

}  // namespace tp::transform
