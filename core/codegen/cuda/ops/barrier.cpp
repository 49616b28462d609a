// T.alloc_barrier's mbarriers and their operations in CUDA (see ops/barrier.h): thread 0
// initialises each barrier with its arrive count, the init is fenced for the async proxy and
// the block synchronises before any thread can arrive; each operation is one call of
// runtime/tp_mbarrier.cuh in the sm_80 forms (expect_tx has nothing to announce, see
// ops/barrier.h).
#include "codegen/cuda/codegen_cuda_impl.h"
#include "ops/barrier.h"

namespace tp::codegen::detail {

using namespace ir;

void CudaEmitter::barrier_init(const Buffer& b) {
    headers.insert("tp_mbarrier.cuh");
    std::string name = buffer_name(b);
    emit("if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {");
    ++indent;
    for (size_t i = 0; i < b->arrive_counts.size(); ++i)
        emit("tp::user_mbar_init(&" + name + "[" + std::to_string(i) + "], " + std::to_string(b->arrive_counts[i]) + "u);");
    emit("tp::user_mbar_fence_init();");
    --indent;
    emit("}");
    emit("__syncthreads();");
}

void CudaEmitter::barrier_op(const BarrierOpNode& n) {
    const char* helper = ops::barrier_helper(n.barrier_kind);
    if (!helper) {
        emit("// " + std::string(barrier_kind_name(n.barrier_kind)) + ": the copies complete before the statement after them");
        return;
    }
    headers.insert("tp_mbarrier.cuh");
    std::string call = std::string(helper) + "(&" + buffer_name(n.barrier) + "[" + expr(n.index) + "]";
    if (ops::barrier_passes_value(n.barrier_kind)) call += ", static_cast<unsigned>(" + expr(n.value) + ")";
    emit(call + ");");
}

}  // namespace tp::codegen::detail
