// What a tile op reads and writes, asked one way by every pass that orders or checks statements
// (insert_syncs, wgmma_waits, producer_consumer's scan, verify, check_resources, the lowering
// passes' sets of global reads): each op object (ops/<op>.h) states its own regions, and
// tile_op_access picks the op a statement is. Passes never re-derive this from node fields.
#pragma once

#include <optional>
#include <vector>

#include "ir/functor.h"
#include "ir/ir.h"

namespace tp::ops {

struct OpAccess {
    std::vector<ir::BufferRegion> reads, writes;
    // The op orders the block itself: a T.print is a point passes move nothing across (codegen
    // brackets a tile print with block barriers), so its own accesses need no barrier.
    bool barrier = false;
    // A producer a software pipeline runs stages ahead (T.copy): a T.Pipelined loop keeps
    // num_stages copies of the shared tiles it writes, as TileLang multi-versions them.
    bool stage_producer = false;
};

// The regions of a statement that is a tile op, or nothing when it is not one.
std::optional<OpAccess> tile_op_access(const ir::StmtNode& s);

// A buffer as one region of all its elements (ops whose operands are whole buffers).
ir::BufferRegion whole_region(const ir::Buffer& b);

// An IRVisitor that hands each tile op's access to on_op, then walks the op's expressions
// and buffers as IRVisitor does.
class OpAccessVisitor : public ir::IRVisitor {
protected:
    virtual void on_op(const ir::StmtNode& op, const OpAccess& access) = 0;
    void visit_CopyOp(const ir::CopyOpNode& n, const ir::Stmt& s) override;
    void visit_GemmOp(const ir::GemmOpNode& n, const ir::Stmt& s) override;
    void visit_FillOp(const ir::FillOpNode& n, const ir::Stmt& s) override;
    void visit_ReduceOp(const ir::ReduceOpNode& n, const ir::Stmt& s) override;
    void visit_AtomicAddOp(const ir::AtomicAddOpNode& n, const ir::Stmt& s) override;
    void visit_PrintOp(const ir::PrintOpNode& n, const ir::Stmt& s) override;
};

}  // namespace tp::ops
