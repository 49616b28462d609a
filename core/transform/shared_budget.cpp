// shared_bytes / shared_limit / check_shared_budget (see shared_budget.h).
#include "transform/shared_budget.h"

#include "ir/functor.h"
#include "transform/shared_reuse.h"

namespace tp::transform {

using namespace ir;

bool aligned_shared_tiles(const PrimFunc& f) { return f.attrs.count("tp.ws") > 0 || f.attrs.count("tp.wgmma") > 0; }

int64_t shared_bytes(const PrimFunc& f, bool aligned, const std::map<const BufferNode*, int64_t>& scale) {
    struct Sum : IRVisitor {
        bool aligned = false;
        const std::map<const BufferNode*, int64_t>* scale = nullptr;
        int64_t end = 0;
        const PrimFunc* func = nullptr;
        void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
            const Buffer& b = n.buffer;
            // Buffers share_shared_memory placed are inside the planned bytes `end` starts at;
            // a dtype view (tp.alias.<view>) lies over its tile's bytes.
            if (b->scope == Scope::Shared && !planned_shared_offset(*func, *b) && !func->attrs.count("tp.alias." + b->name)) {
                int64_t elems = 1;
                for (const auto& d : b->shape) elems = as_const_int(d) ? elems * *as_const_int(d) : 0;
                auto it = scale->find(b.get());
                const int64_t times = it == scale->end() ? 1 : it->second;
                int64_t bytes = elems * b->dtype.bytes() * times;
                // A scaled buffer becomes a ring or a stack with one more dimension, and is laid
                // out as one (a ring of 1-D rows is 1024-byte aligned like any 2-D tile).
                const size_t rank = b->shape.size() + (times > 1 ? 1 : 0);
                int64_t align = aligned && rank > 1 ? 1024 : 16;
                end = (end + align - 1) / align * align + bytes;
            }
            IRVisitor::visit_Allocate(n, s);
        }
    } sum;
    sum.aligned = aligned;
    sum.scale = &scale;
    sum.func = &f;
    sum.end = planned_shared_bytes(f);
    sum.visit(f.body);
    return sum.end;
}

int64_t shared_limit(const Target& t, bool aligned) {
    int64_t max = t.max_smem_per_block > 0 ? t.max_smem_per_block : 48 * 1024;
    return aligned ? max - 1024 : max;
}

bool check_shared_budget(const PrimFunc& f, const Target& t, DiagnosticEngine& diags) {
    bool aligned = aligned_shared_tiles(f);
    int64_t bytes = shared_bytes(f, aligned), limit = shared_limit(t, aligned);
    if (bytes <= limit) return true;
    diags.report(DiagKind::SharedMemoryExceeded, f.span, {std::to_string(bytes + (aligned ? 1024 : 0)), t.name, std::to_string(t.max_smem_per_block)});
    return false;
}

}  // namespace tp::transform
