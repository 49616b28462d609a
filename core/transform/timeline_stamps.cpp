// timeline_stamps (see timeline_stamps.h).
#include "transform/timeline_stamps.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "codegen/cuda/runtime/tp_timeline.cuh"
#include "ir/functor.h"
#include "pipeline_view/pipeline_events.h"

namespace tp::transform {

using namespace ir;

namespace {

struct Role {
    int id = 0;
    std::string name;
    int64_t recorder = 0;  // the thread that records (the role's first, or the one its events run on)
    int groups = 1;        // warpgroups recorded, each on its first thread (recorder + 128 g)
};

class Stamper : public IRMutator {
public:
    nlohmann::json events = nlohmann::json::array(), roles = nlohmann::json::array();
    bool active = false;

    // The table names every lane the role records: lane `id` for its first warpgroup, lane g + 1
    // for warpgroup g >= 1 (tp_timeline.cuh's layout).
    void enter(const Role& r) {
        role_ = r;
        for (int g = 0; g < r.groups; ++g) {
            const std::string name = r.groups > 1 ? r.name + " wg" + std::to_string(g) : r.name;
            roles.push_back({{"role", g == 0 ? r.id : g + 1}, {"name", name}, {"recorder", r.recorder + tl::kWarpgroup * g}});
        }
    }

    Stmt visit_WarpRoles(const WarpRolesNode& n, const Stmt&) override {
        const bool was = active;
        active = true;
        enter({1, "producer", n.all_consumer_threads(), 1});
        Stmt p = mutate(n.producer);
        // Each consumer warpgroup on a lane of its own, as many as the buffer has lanes for:
        // they run the same events, but not in step (one may wait while another computes).
        const int wgs = int(std::clamp<int64_t>(n.all_consumer_threads() / tl::kWarpgroup, 1, tl::kRoles - 1));
        enter({0, "consumer", 0, wgs});
        Stmt c = mutate(n.consumer);
        active = was;
        return n.with(p, c);
    }

    // A branch taken by one thread (`tx == 256`: the producer's issuing thread) records on it.
    Stmt visit_IfThenElse(const IfThenElseNode& n, const Stmt& s) override {
        const Role saved = role_;
        if (auto* b = n.cond->as<BinaryNode>(); b && b->op == BinaryOp::EQ) {
            auto* v = b->a->as<VarNode>();
            auto* c = b->b->as<IntImmNode>();
            if (v && c && v->var_kind == VarKind::ThreadIdx) role_.recorder = c->value, role_.groups = 1;
        }
        Stmt out = IRMutator::visit_IfThenElse(n, s);
        role_ = saved;
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
            call("tp::tl_record", {int_imm(role_.id), int_imm(id), int_imm(role_.recorder), int_imm(role_.groups), t0}, DataType::void_()), sp);
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
