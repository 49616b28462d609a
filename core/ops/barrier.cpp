// The mbarrier op object (see ops/barrier.h).
#include "ops/barrier.h"

namespace tp::ops {

const char* barrier_helper(ir::BarrierKind k) {
    switch (k) {
        case ir::BarrierKind::Arrive:
        case ir::BarrierKind::ArriveExpectTx:
            return "tp::user_mbar_arrive";
        case ir::BarrierKind::Wait:
            return "tp::user_mbar_wait";
        case ir::BarrierKind::ExpectTx:
            return nullptr;
    }
    return nullptr;
}

bool barrier_passes_value(ir::BarrierKind k) { return k == ir::BarrierKind::Wait; }

}  // namespace tp::ops
