// Persistent grids for the producer/consumer split (see producer_consumer_internal.h): one
// block per SM walks the work units, so its producer fills the next unit's ring slots while the
// consumers finish this one (the epilogue, the accumulator store) and no block pays the ring's
// fill again. Taken by default where every unit does the same work: blocks that do equal work,
// or a causal loop whose trip count grows with one block index so evenly that the blocks c and
// G - 1 - c together always do the same (a unit is then that pair). Other unequal blocks are
// left to the hardware's block scheduler, which balances them better than a fixed walk.
#include <algorithm>
#include <set>

#include "transform/heavy_blocks_first.h"
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

// Work units in the launch, when the grid is known at compile time (a paired axis counts
// ceil(G / 2) pairs).
std::optional<int64_t> units_of(const KernelLaunchNode& k, int paired_axis) {
    int64_t units = 1;
    for (size_t a = 0; a < k.grid.size(); ++a) {
        auto e = as_const_int(k.grid[a]);
        if (!e) return std::nullopt;
        units *= static_cast<int>(a) == paired_axis ? (*e + 1) / 2 : *e;
    }
    return units;
}

// The block axis whose index alone decides the loops' trip counts, in such a way that blocks c
// and G - 1 - c together run the same number of iterations for every c (within 1/8): causal
// attention's min(ceildiv(S, N), ceildiv((bx + 1) * M, N)). -1 when there is none, when another
// block index also decides a trip count, or when a trip count does not fold at some c.
int balanced_pair_axis(const KernelLaunchNode& k, const Stmt& body) {
    int axis = -1;
    for (size_t a = 0; a < k.block_vars.size() && a < k.grid.size(); ++a) {
        const VarNode* v = k.block_vars[a].get();
        auto extents = extents_naming(body, v);
        if (extents.empty()) continue;
        auto g = as_const_int(k.grid[a]);
        if (axis >= 0 || !g || *g < 4) return -1;
        for (const auto& e : extents) {
            int64_t lo = INT64_MAX, hi = 0;
            for (int64_t c : {int64_t{0}, int64_t{1}, *g / 4, *g / 2 - 1}) {
                auto x = extent_at(e, v, c), y = extent_at(e, v, *g - 1 - c);
                if (!x || !y) return -1;
                lo = std::min(lo, *x + *y);
                hi = std::max(hi, *x + *y);
            }
            if (lo <= 0 || 8 * (hi - lo) > lo) return -1;
        }
        axis = static_cast<int>(a);
    }
    return axis;
}

// Why the default does not take a persistent grid, empty when it does.
std::string why_not_by_default(const Plan& plan, const KernelLaunchNode& k, const Stmt& top, const Target& target, int pair) {
    if (plan.groups.on()) return "consumer groups already share the producer between two blocks";
    if (pair < 0 && channel_control_reads(plan, top, k.block_vars))
        return "the loads' loop bounds or branches depend on the block index, so blocks do unequal work (the hardware's scheduler "
               "balances them better than a fixed walk; blocks c and G - 1 - c of one axis would need to do equal work together)";
    auto units = units_of(k, pair);
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

std::vector<Expr> persistent_unit_grid(const Plan::Persistent& p) {
    std::vector<Expr> grid = p.grid;
    if (p.paired_axis >= 0) {
        Expr& g = grid[p.paired_axis];
        auto c = as_const_int(g);  // balanced_pair_axis takes only constant extents
        g = c ? int_imm((*c + 1) / 2) : make_binary(BinaryOp::FloorDiv, make_binary(BinaryOp::Add, g, int_imm(1)), int_imm(2));
    }
    return grid;
}

Expr persistent_units(const Plan::Persistent& p) {
    auto grid = persistent_unit_grid(p);
    Expr units = grid[0];
    for (size_t i = 1; i < grid.size(); ++i) units = make_binary(BinaryOp::Mul, units, grid[i]);
    return units;
}

void choose_persistent(Plan& plan, const PrimFunc& func, const KernelLaunchNode& k, const Stmt& top, const Target& target, DiagnosticEngine& diags) {
    const std::string config = persistent_config(func);
    if (config == "false") return;
    const char* what = "a persistent grid (`tp.persistent`)";
    const int pair = channel_control_reads(plan, top, k.block_vars) ? balanced_pair_axis(k, k.body) : -1;
    if (config != "true")
        if (std::string why = why_not_by_default(plan, k, top, target, pair); !why.empty()) {
            diags.report(DiagKind::FastPathNotTaken, k.span, {what, why, "one block runs per work unit"});
            return;
        }
    if (std::string why = plan_persistent(plan, k, k.body); !why.empty()) {
        diags.report(DiagKind::FastPathNotTaken, k.span, {what, why, "one block runs per work unit"});
        return;
    }
    plan.persistent.paired_axis = pair;
    const std::string unit = pair < 0 ? "the work units"
                                      : "pairs of blocks c and G - 1 - c on axis " + std::string(1, "xyz"[pair]) +
                                            " (whose loops run longer as c grows, so each pair does equal work)";
    diags.report(DiagKind::FastPathTaken, k.span,
                 {what, "each of at most SMs x " + std::to_string(plan.blocks_per_sm) + " blocks walks " + unit +
                            ", its producer loading the next unit's tiles during this unit's epilogue"});
}

}  // namespace tp::transform::pc
