// Which op a statement is, and the visitor over op accesses; see access.h.
#include "ops/access.h"

#include "ops/atomic.h"
#include "ops/copy.h"
#include "ops/fill.h"
#include "ops/gemm.h"
#include "ops/print.h"
#include "ops/reduce.h"

namespace tp::ops {

using namespace ir;

std::optional<OpAccess> tile_op_access(const StmtNode& s) {
    switch (s.kind) {
        case NodeKind::CopyOp: return access(static_cast<const CopyOpNode&>(s));
        case NodeKind::GemmOp: return access(static_cast<const GemmOpNode&>(s));
        case NodeKind::FillOp: return access(static_cast<const FillOpNode&>(s));
        case NodeKind::ReduceOp: return access(static_cast<const ReduceOpNode&>(s));
        case NodeKind::AtomicAddOp: return access(static_cast<const AtomicAddOpNode&>(s));
        case NodeKind::PrintOp: return access(static_cast<const PrintOpNode&>(s));
        default: return std::nullopt;
    }
}

BufferRegion whole_region(const Buffer& b) {
    BufferRegion r{b, {}};
    for (const auto& d : b->shape) r.region.push_back({int_imm(0), d});
    return r;
}

void OpAccessVisitor::visit_CopyOp(const CopyOpNode& n, const Stmt& s) {
    on_op(n, access(n));
    IRVisitor::visit_CopyOp(n, s);
}
void OpAccessVisitor::visit_GemmOp(const GemmOpNode& n, const Stmt& s) {
    on_op(n, access(n));
    IRVisitor::visit_GemmOp(n, s);
}
void OpAccessVisitor::visit_FillOp(const FillOpNode& n, const Stmt& s) {
    on_op(n, access(n));
    IRVisitor::visit_FillOp(n, s);
}
void OpAccessVisitor::visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) {
    on_op(n, access(n));
    IRVisitor::visit_ReduceOp(n, s);
}
void OpAccessVisitor::visit_AtomicAddOp(const AtomicAddOpNode& n, const Stmt& s) {
    on_op(n, access(n));
    IRVisitor::visit_AtomicAddOp(n, s);
}
void OpAccessVisitor::visit_PrintOp(const PrintOpNode& n, const Stmt& s) {
    on_op(n, access(n));
    IRVisitor::visit_PrintOp(n, s);
}

}  // namespace tp::ops
