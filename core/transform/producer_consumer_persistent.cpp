// Persistent grids for the producer/consumer split (see producer_consumer_internal.h): one
// block per SM walks the work units, so its producer fills the next unit's ring slots while the
// consumers finish this one (the epilogue, the accumulator store) and no block pays the ring's
// fill again. Taken by default where every unit does the same work; a causal loop whose trip
// count follows the block index is left to the hardware's block scheduler, which balances
// unequal blocks better than a fixed walk.
#include <set>

#include "transform/producer_consumer_internal.h"

namespace tp::transform::pc {

using namespace ir;

namespace {

// Whether the kernel can walk its blocks persistently (`tp.persistent=true`); empty when it
// can, else why not. The block indices must be used only under the statements the roles
// repeat per unit (not in bindings between the launch and them).
std::string plan_persistent(Plan& plan, const KernelLaunchNode& k, const Stmt& launch_body) {
    if (bindings_read(k, k.block_vars)) return "a binding before the kernel's statements uses the block index";
    if (k.grid.size() > 3) return "the grid has more than three dimensions";
    struct FindSwizzle : IRVisitor {
        const SwizzleOpNode* op = nullptr;
        void visit_SwizzleOp(const SwizzleOpNode& n, const Stmt&) override {
            if (n.enable && !op) op = &n;
        }
    } fs;
    fs.visit(launch_body);
    auto& p = plan.persistent;
    p.on = true;
    p.grid = k.grid;
    p.block_vars = k.block_vars;
    p.pid = std::make_shared<VarNode>("tp_pid", DataType::int32(), VarKind::BlockIdx, k.span);
    if (fs.op && k.block_vars.size() >= 2) {
        p.panel = fs.op->panel_size;
        p.column_order = !fs.op->row_order;
    }
    return "";
}

// Work units in the launch, when the grid is known at compile time.
std::optional<int64_t> units_of(const KernelLaunchNode& k) {
    int64_t units = 1;
    for (const auto& g : k.grid) {
        auto e = as_const_int(g);
        if (!e) return std::nullopt;
        units *= *e;
    }
    return units;
}

// Why the default does not take a persistent grid, empty when it does.
std::string why_not_by_default(const Plan& plan, const KernelLaunchNode& k, const Stmt& top, const Target& target) {
    if (plan.groups.on()) return "consumer groups already share the producer between two blocks";
    if (channel_control_reads(plan, top, k.block_vars))
        return "the loads' loop bounds or branches depend on the block index, so blocks do unequal work (the hardware's scheduler "
               "balances them better than a fixed walk)";
    auto units = units_of(k);
    if (!units) return "the grid's size is known only at launch";
    const int64_t sms = target.sm_count > 0 ? target.sm_count : 132;
    const int64_t resident = sms * plan.blocks_per_sm;
    if (*units <= resident) return "its " + std::to_string(*units) + " blocks run in one wave on " + std::to_string(resident) + " resident blocks";
    return "";
}

// `tp.persistent` as "true", "false" or "" (unset: the default decides).
std::string persistent_config(const PrimFunc& func) {
    auto it = func.attrs.find("tp.persistent");
    if (it == func.attrs.end()) return "";
    if (it->second == "true" || it->second == "1") return "true";
    if (it->second == "false" || it->second == "0") return "false";
    return it->second;
}

}  // namespace

bool persistent_asked(const PrimFunc& func) { return persistent_config(func) == "true"; }

void choose_persistent(Plan& plan, const PrimFunc& func, const KernelLaunchNode& k, const Stmt& top, const Target& target, DiagnosticEngine& diags) {
    const std::string config = persistent_config(func);
    if (config == "false") return;
    const char* what = "a persistent grid (`tp.persistent`)";
    if (config != "true")
        if (std::string why = why_not_by_default(plan, k, top, target); !why.empty()) {
            diags.report(DiagKind::FastPathNotTaken, k.span, {what, why, "one block runs per work unit"});
            return;
        }
    if (std::string why = plan_persistent(plan, k, k.body); !why.empty()) {
        diags.report(DiagKind::FastPathNotTaken, k.span, {what, why, "one block runs per work unit"});
        return;
    }
    diags.report(DiagKind::FastPathTaken, k.span,
                 {what, "each of at most SMs x " + std::to_string(plan.blocks_per_sm) +
                            " blocks walks the work units, its producer loading the next unit's tiles during this unit's epilogue"});
}

}  // namespace tp::transform::pc
