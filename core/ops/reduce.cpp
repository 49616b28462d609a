// The T.reduce_* op object; see reduce.h.
#include "ops/reduce.h"

namespace tp::ops {

OpAccess access(const ir::ReduceOpNode& r) {
    OpAccess a;
    a.reads.push_back(whole_region(r.src));
    if (!r.clear) a.reads.push_back(whole_region(r.dst));
    a.writes.push_back(whole_region(r.dst));
    return a;
}

}  // namespace tp::ops
