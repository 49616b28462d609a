// The T.atomic_add op object; see atomic.h.
#include "ops/atomic.h"

#include <variant>

namespace tp::ops {

OpAccess access(const ir::AtomicAddOpNode& n) {
    OpAccess a;
    a.reads.push_back(n.dst);
    if (auto* src = std::get_if<ir::BufferRegion>(&n.src)) a.reads.push_back(*src);
    a.writes.push_back(n.dst);
    return a;
}

}  // namespace tp::ops
