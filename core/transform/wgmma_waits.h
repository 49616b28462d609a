// wgmma_waits: places the wait of every asynchronous tensor-core group (sm_90a wgmma, issued by
// a tp.async_call) as late as the registers and tiles it names allow, so the group runs while
// the statements after its issue do, and gives each wait its pending-group count.
//
// layout_inference lowers a wgmma T.gemm to its issue and, right after it, a
// tp.async_wait(0, operands...) naming everything the group still reads or writes. This pass
// moves each wait down its statement list past statements that touch none of those buffers,
// counting the issues it passes (wgmma groups finish in order, so waiting for this one leaves
// that many newer ones running). It stops at a statement that touches an operand, at a
// barrier or another wait, at a loop or branch holding tensor-core work, and at the end of
// the list (TileLang's wg_wait, chosen by the compiler). `tp.disable_async_wgmma` keeps every
// wait right after its issue.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr wgmma_waits(const ir::PrimFuncPtr& func);

}  // namespace tp::transform
