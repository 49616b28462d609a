// merge_async_waits (see merge_async_waits.h).
#include "transform/merge_async_waits.h"

#include "ir/functor.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// The shared buffer a tp::copy_g2s call writes (its first argument's address), or null.
const BufferNode* g2s_destination(const Stmt& s) {
    if (!starts_with(device_callee(s), "tp::copy_g2s<")) return nullptr;
    auto* e = s->as<EvaluateNode>();
    auto* c = e ? e->value->as<CallNode>() : nullptr;
    if (!c || c->args.size() < 2) return nullptr;
    auto* l = addressed(c->args[1]);  // args[0] names the callee
    return l ? l->buffer.get() : nullptr;
}

struct Merge : IRMutator {
    Stmt visit_SeqStmt(const SeqStmtNode& n, const Stmt& s) override {
        Stmt base = IRMutator::visit_SeqStmt(n, s);
        std::vector<Stmt> list;
        flatten_seq(base, list);
        std::vector<Stmt> out;
        bool changed = false;
        for (size_t i = 0; i < list.size(); ++i) {
            // copy A, commit, wait<0>, copy B (another buffer): drop A's commit and wait.
            if (i + 3 < list.size() && device_callee(list[i + 1]) == "tp::cp_async_commit" &&
                device_callee(list[i + 2]) == "tp::cp_async_wait<0>") {
                const BufferNode *a = g2s_destination(list[i]), *b = g2s_destination(list[i + 3]);
                if (a && b && a != b) {
                    out.push_back(list[i]);
                    i += 2;
                    changed = true;
                    continue;
                }
            }
            out.push_back(list[i]);
        }
        return changed ? make_seq(out, n.span) : base;
    }
};

}  // namespace

PrimFuncPtr merge_async_waits(const PrimFuncPtr& func) {
    Merge m;
    Stmt body = m.mutate(func->body);
    if (body == func->body) return func;
    auto f = std::make_shared<PrimFunc>(*func);
    f->body = body;
    return f;
}

}  // namespace tp::transform
