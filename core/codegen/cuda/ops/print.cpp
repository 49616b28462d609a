// T.print in CUDA (see lower_op.h): a fragment is copied whole into a shared tile of the same
// shape (allocated at the launch), which the code generator prints row-major from one thread
// between block barriers: the same text the CPU interpreter gives. Scalars and shared tiles
// need nothing here.
#include <variant>

#include "codegen/cuda/ops/lower_op.h"
#include "ops/access.h"

namespace tp::codegen::cuda {

using namespace ir;

Stmt lower_print(const PrintOpNode& n, const Stmt& s, FragmentLowering& cx) {
    auto* b = std::get_if<Buffer>(&n.value);
    if (!b || (*b)->scope != Scope::Fragment) return nullptr;
    auto tile = std::make_shared<BufferNode>((*b)->name, (*b)->dtype, (*b)->shape, Scope::Shared, (*b)->span);
    cx.print_tiles.push_back(tile);
    CopyOpNode cp(ops::whole_region(*b), ops::whole_region(tile), n.span);
    Stmt copy = lower_copy(cp, nullptr, cx);
    if (!copy) return s;
    return make_seq({copy, std::make_shared<PrintOpNode>(Buffer(tile), n.msg, n.span)}, n.span);
}

}  // namespace tp::codegen::cuda
