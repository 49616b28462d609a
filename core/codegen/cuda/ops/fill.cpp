// T.fill / T.clear in CUDA (see lower_op.h): on a fragment, one store per register the thread
// holds; on shared or global tiles, a T.Parallel nest over the region (bind_threads spreads it
// over the block), guarded where it may leave a global tensor.
#include "codegen/cuda/ops/lower_op.h"
#include "transform/tile_lowering.h"

namespace tp::codegen::cuda {

using namespace ir;
using namespace transform;

Stmt lower_fill(const FillOpNode& n, const Stmt& s, FragmentLowering& cx) {
    if (n.dst.buffer->scope != Scope::Fragment) return nullptr;
    const FragLayout* l = cx.layout_of(n.dst.buffer);
    if (!l || !whole_buffer(n.dst)) {
        cx.fail("T.fill of part of a fragment", n.span);
        return s;
    }
    Buffer b = cx.local_of(n.dst.buffer);
    Expr v = make_cast(b->dtype, cx.rewrite(n.value), n.span);
    return cx.local_loop(l->local_size(), "tp_f", [&](const Expr& i) -> Stmt {
        return std::make_shared<BufferStoreNode>(b, std::vector<Expr>{i}, v, n.span);
    }, n.span);
}

Stmt lower_fill(const FillOpNode& n, ThreadLowering&) { return fill_nest(n.dst, n.value, n.span); }

}  // namespace tp::codegen::cuda
