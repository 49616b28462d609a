// The T.fill op object; see fill.h.
#include "ops/fill.h"

namespace tp::ops {

OpAccess access(const ir::FillOpNode& f) {
    OpAccess a;
    a.writes.push_back(f.dst);
    return a;
}

}  // namespace tp::ops
