// The T.print op object; see print.h.
#include "ops/print.h"

#include <variant>

namespace tp::ops {

OpAccess access(const ir::PrintOpNode& p) {
    OpAccess a;
    if (auto* b = std::get_if<ir::Buffer>(&p.value)) a.reads.push_back(whole_region(*b));
    a.barrier = true;
    return a;
}

}  // namespace tp::ops
