// Statement and function printing for Tile IR (see printer.cpp for expressions). Output is
// TileLang-like Python: one statement per line, 4-space indentation, nested T.Parallel loops
// folded into `for i, j in T.Parallel(a, b):`.
#include <sstream>

#include "ir/ir.h"

namespace tp::ir {

std::string print_shape(const std::vector<Expr>& shape);  // printer.cpp
std::string print_quoted(const std::string& s);           // printer.cpp

namespace {

std::string region_text(const BufferRegion& r) {
    std::string s = r.buffer->name + "[";
    for (size_t i = 0; i < r.region.size(); ++i) {
        const Range& rg = r.region[i];
        s += i ? ", " : "";
        if (as_const_int(rg.extent) == 1) {
            s += print(rg.min);
        } else {
            s += print(rg.min) + ":" + print(make_binary(BinaryOp::Add, rg.min, rg.extent));
        }
    }
    return s + "]";
}

// Prints a region as the bare buffer name when it covers the whole buffer (T.gemm(A_s, B_s, C)).
std::string operand_text(const BufferRegion& r) {
    bool whole = r.region.size() == r.buffer->shape.size();
    for (size_t i = 0; whole && i < r.region.size(); ++i) {
        whole = as_const_int(r.region[i].min) == 0 &&
                (r.region[i].extent == r.buffer->shape[i] ||
                 (as_const_int(r.region[i].extent) && as_const_int(r.region[i].extent) == as_const_int(r.buffer->shape[i])));
    }
    return whole ? r.buffer->name : region_text(r);
}

class StmtPrinter {
public:
    std::ostringstream out;

    void line(int indent, const std::string& text) { out << std::string(indent * 4, ' ') << text << "\n"; }

    void body(const Stmt& s, int indent) {
        if (!s || (s->as<SeqStmtNode>() && s->as<SeqStmtNode>()->seq.empty())) {
            line(indent, "pass");
            return;
        }
        stmt(s, indent);
    }

    void for_loop(const ForNode& f, int indent) {
        if (f.for_kind == ForKind::Parallel && as_const_int(f.min) == 0) {
            std::string vars = f.loop_var->name, extents = print(f.extent);
            Stmt inner = f.body;
            while (inner) {
                auto* g = inner->as<ForNode>();
                if (!g || g->for_kind != ForKind::Parallel || as_const_int(g->min) != 0) break;
                vars += ", " + g->loop_var->name;
                extents += ", " + print(g->extent);
                inner = g->body;
            }
            line(indent, "for " + vars + " in T.Parallel(" + extents + "):");
            body(inner, indent + 1);
            return;
        }
        std::string range = as_const_int(f.min) == 0 ? print(f.extent) : print(f.min) + ", " + print(make_binary(BinaryOp::Add, f.min, f.extent));
        std::string extra;
        if (f.for_kind == ForKind::Pipelined) {
            extra = ", num_stages=" + std::to_string(f.num_stages);
            auto list = [](const std::vector<int>& v) {
                std::string s = "[";
                for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
                return s + "]";
            };
            if (!f.order.empty()) extra += ", order=" + list(f.order);
            if (!f.stage.empty()) extra += ", stage=" + list(f.stage);
            if (!f.group.empty()) {
                extra += ", group=[";
                for (size_t i = 0; i < f.group.size(); ++i) extra += (i ? ", " : "") + list(f.group[i]);
                extra += "]";
            }
        }
        line(indent, "for " + f.loop_var->name + " in T." + for_kind_name(f.for_kind) + "(" + range + extra + "):");
        body(f.body, indent + 1);
    }

    void if_stmt(const IfThenElseNode& n, int indent, const char* kw) {
        line(indent, std::string(kw) + " " + print(n.cond) + ":");
        body(n.then_case, indent + 1);
        if (!n.else_case) return;
        if (auto* e = n.else_case->as<IfThenElseNode>()) {
            if_stmt(*e, indent, "elif");
            return;
        }
        line(indent, "else:");
        body(n.else_case, indent + 1);
    }

    void stmt(const Stmt& s, int indent) {
        if (!s) return;
        switch (s->kind) {
            case NodeKind::SeqStmt:
                for (const auto& c : static_cast<const SeqStmtNode&>(*s).seq) stmt(c, indent);
                return;
            case NodeKind::For: for_loop(static_cast<const ForNode&>(*s), indent); return;
            case NodeKind::While: {
                auto& n = static_cast<const WhileNode&>(*s);
                line(indent, "while " + print(n.cond) + ":");
                body(n.body, indent + 1);
                return;
            }
            case NodeKind::IfThenElse: if_stmt(static_cast<const IfThenElseNode&>(*s), indent, "if"); return;
            case NodeKind::LetStmt: {
                auto& n = static_cast<const LetStmtNode&>(*s);
                line(indent, n.var->name + " = " + print(n.value));
                stmt(n.body, indent);
                return;
            }
            case NodeKind::BufferStore: {
                auto& n = static_cast<const BufferStoreNode&>(*s);
                std::string idx;
                for (size_t i = 0; i < n.indices.size(); ++i) idx += (i ? ", " : "") + print(n.indices[i]);
                line(indent, n.buffer->name + "[" + idx + "] = " + print(n.value));
                return;
            }
            case NodeKind::Evaluate: line(indent, "T.evaluate(" + print(static_cast<const EvaluateNode&>(*s).value) + ")"); return;
            case NodeKind::Break: line(indent, "break"); return;
            case NodeKind::Allocate: {
                auto& n = static_cast<const AllocateNode&>(*s);
                const Buffer& b = n.buffer;
                std::string dt = print_quoted(b->dtype.name());
                if (b->scope == Scope::Var) {
                    line(indent, b->name + " = T.alloc_var(" + dt + (n.init ? ", init=" + print(n.init) : "") + ")");
                } else if (b->scope == Scope::Barrier) {
                    std::string counts;
                    for (size_t i = 0; i < b->arrive_counts.size(); ++i) counts += (i ? ", " : "") + std::to_string(b->arrive_counts[i]);
                    line(indent, b->name + " = T.alloc_barrier([" + counts + "])");
                } else {
                    line(indent, b->name + " = T.alloc_" + scope_name(b->scope) + "(" + print_shape(b->shape) + ", " + dt + ")");
                }
                stmt(n.body, indent);
                return;
            }
            case NodeKind::KernelLaunch: {
                auto& n = static_cast<const KernelLaunchNode&>(*s);
                std::string args;
                for (const auto& g : n.grid) args += print(g) + ", ";
                if (n.threads.size() == 1) {
                    args += "threads=" + std::to_string(n.threads[0]);
                } else {
                    args += "threads=(";
                    for (size_t i = 0; i < n.threads.size(); ++i) args += (i ? ", " : "") + std::to_string(n.threads[i]);
                    args += ")";
                }
                std::string vars;
                for (size_t i = 0; i < n.block_vars.size(); ++i) vars += (i ? ", " : "") + n.block_vars[i]->name;
                if (n.block_vars.size() > 1) vars = "(" + vars + ")";
                line(indent, "with T.Kernel(" + args + ") as " + vars + ":");
                body(n.body, indent + 1);
                return;
            }
            case NodeKind::CopyOp: {
                auto& n = static_cast<const CopyOpNode&>(*s);
                std::string extra;
                if (n.disable_tma) extra += ", disable_tma=True";
                if (n.coalesced_width) extra += ", coalesced_width=" + std::to_string(n.coalesced_width);
                if (n.barrier) extra += ", barrier=" + print(n.barrier);
                line(indent, std::string(n.barrier ? "T.tma_copy(" : "T.copy(") + region_text(n.src) + ", " + region_text(n.dst) + extra + ")");
                return;
            }
            case NodeKind::GemmOp: {
                auto& n = static_cast<const GemmOpNode&>(*s);
                std::string t = "T.gemm(" + operand_text(n.A) + ", " + operand_text(n.B) + ", " + operand_text(n.C);
                if (n.transpose_A) t += ", transpose_A=True";
                if (n.transpose_B) t += ", transpose_B=True";
                if (n.clear_accum) t += ", clear_accum=True";
                if (n.policy != GemmWarpPolicy::Square) t += std::string(", policy=T.GemmWarpPolicy.") + gemm_policy_name(n.policy);
                if (n.k_pack != 1) t += ", k_pack=" + std::to_string(n.k_pack);
                if (n.wg_wait != 0) t += ", wg_wait=" + std::to_string(n.wg_wait);
                line(indent, t + ")");
                return;
            }
            case NodeKind::FillOp: {
                auto& n = static_cast<const FillOpNode&>(*s);
                line(indent, "T.fill(" + operand_text(n.dst) + ", " + print(n.value) + ")");
                return;
            }
            case NodeKind::ReduceOp: {
                auto& n = static_cast<const ReduceOpNode&>(*s);
                line(indent, std::string("T.reduce_") + reduce_kind_name(n.reduce_kind) + "(" + n.src->name + ", " + n.dst->name +
                                 ", dim=" + std::to_string(n.dim) + ", clear=" + (n.clear ? "True" : "False") + ")");
                return;
            }
            case NodeKind::AtomicAddOp: {
                auto& n = static_cast<const AtomicAddOpNode&>(*s);
                std::string src = std::holds_alternative<Expr>(n.src) ? print(std::get<Expr>(n.src))
                                                                     : operand_text(std::get<BufferRegion>(n.src));
                std::string dst = std::holds_alternative<Expr>(n.src) ? region_text(n.dst) : operand_text(n.dst);
                line(indent, "T.atomic_add(" + dst + ", " + src + ")");
                return;
            }
            case NodeKind::PrintOp: {
                auto& n = static_cast<const PrintOpNode&>(*s);
                std::string v = std::holds_alternative<Buffer>(n.value) ? std::get<Buffer>(n.value)->name : print(std::get<Expr>(n.value));
                line(indent, "T.print(" + v + (n.msg.empty() ? "" : ", msg=" + print_quoted(n.msg)) + ")");
                return;
            }
            case NodeKind::AssertOp: {
                auto& n = static_cast<const AssertOpNode&>(*s);
                line(indent, "T.device_assert(" + print(n.cond) + (n.msg.empty() ? "" : ", msg=" + print_quoted(n.msg)) + ")");
                return;
            }
            case NodeKind::SwizzleOp: {
                auto& n = static_cast<const SwizzleOpNode&>(*s);
                line(indent, "T.use_swizzle(panel_size=" + std::to_string(n.panel_size) + ", order=" +
                                 (n.row_order ? "\"row\"" : "\"col\"") + (n.enable ? "" : ", enable=False") + ")");
                return;
            }
            case NodeKind::LayoutAnnotationOp: {
                auto& n = static_cast<const LayoutAnnotationOpNode&>(*s);
                std::string t;
                for (size_t i = 0; i < n.layouts.size(); ++i)
                    t += (i ? ", " : "") + n.layouts[i].first->name + ": " + print_quoted(n.layouts[i].second);
                line(indent, "T.annotate_layout({" + t + "})");
                return;
            }
            case NodeKind::WarpRoles: {
                auto& n = static_cast<const WarpRolesNode&>(*s);
                auto regs = [](int r) { return r ? ", regs=" + std::to_string(r) : std::string(); };
                line(indent, "with T.ws_producer(threads=" + std::to_string(n.producer_threads) + regs(n.producer_regs) + "):");
                body(n.producer, indent + 1);
                std::string groups;
                if (n.consumer_groups > 1)
                    groups = ", groups=" + std::to_string(n.consumer_groups) + ", block_axis=" + std::to_string(n.group_axis) +
                             ", group=" + (n.group_var ? n.group_var->name : std::string("?"));
                line(indent, "with T.ws_consumer(threads=" + std::to_string(n.consumer_threads) + regs(n.consumer_regs) + groups + "):");
                body(n.consumer, indent + 1);
                return;
            }
            case NodeKind::RoleBlock: {
                auto& n = static_cast<const RoleBlockNode&>(*s);
                std::string g;
                for (size_t i = 0; i < n.groups.size(); ++i) g += (i ? ", " : "") + std::to_string(n.groups[i]);
                line(indent, "with T.ws(" + g + "):");
                body(n.body, indent + 1);
                return;
            }
            case NodeKind::BarrierOp: {
                auto& n = static_cast<const BarrierOpNode&>(*s);
                std::string t = std::string("T.") + barrier_kind_name(n.barrier_kind) + "(" + n.barrier->name + "[" + print(n.index) + "]";
                if (n.value) t += ", " + print(n.value);
                line(indent, t + ")");
                return;
            }
            default: line(indent, std::string("<") + node_kind_name(s->kind) + ">"); return;
        }
    }
};

}  // namespace

std::string print(const Stmt& s, int indent) {
    StmtPrinter p;
    p.stmt(s, indent);
    return p.out.str();
}

std::string print(const PrimFunc& f) {
    StmtPrinter p;
    for (const auto& [k, v] : f.attrs) p.line(0, "# attr " + k + " = " + v);
    std::string params;
    for (size_t i = 0; i < f.params.size(); ++i) {
        const Param& pm = f.params[i];
        params += i ? ", " : "";
        if (pm.buffer) {
            params += pm.name + ": T.Tensor(" + print_shape(pm.buffer->shape) + ", " + print_quoted(pm.buffer->dtype.name()) + ")";
        } else if (pm.var) {
            params += pm.name + ": T." + pm.var->dtype.name();
        } else {
            params += pm.name;
        }
    }
    p.line(0, "@T.prim_func");
    p.line(0, "def " + f.name + "(" + params + "):");
    p.body(f.body, 1);
    return p.out.str();
}

}  // namespace tp::ir
