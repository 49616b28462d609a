// Intrinsic table (see intrinsics.h). Fast-math variants map to CUDA's __expf-style
// intrinsics, which the runtime header only uses for float; half/bfloat16 go through float.
#include "ir/intrinsics.h"

namespace tp::ir {

const std::vector<IntrinsicInfo>& all_intrinsics() {
    using R = IntrinsicResult;
    static const std::vector<IntrinsicInfo> table = {
        {"exp", 1, 1, R::SameAsArg0, "tp::exp", "tp::fast_exp"},
        {"exp2", 1, 1, R::SameAsArg0, "tp::exp2", "tp::fast_exp2"},
        {"exp10", 1, 1, R::SameAsArg0, "tp::exp10", "tp::fast_exp10"},
        {"log", 1, 1, R::SameAsArg0, "tp::log", "tp::fast_log"},
        {"log2", 1, 1, R::SameAsArg0, "tp::log2", "tp::fast_log2"},
        {"log10", 1, 1, R::SameAsArg0, "tp::log10", "tp::fast_log10"},
        {"rsqrt", 1, 1, R::SameAsArg0, "tp::rsqrt", nullptr},
        {"sqrt", 1, 1, R::SameAsArg0, "tp::sqrt", nullptr},
        {"abs", 1, 1, R::SameAsArg0, "tp::abs", nullptr},
        {"tanh", 1, 1, R::SameAsArg0, "tp::tanh", "tp::fast_tanh"},
        {"erf", 1, 1, R::SameAsArg0, "tp::erf", nullptr},
        {"sigmoid", 1, 1, R::SameAsArg0, "tp::sigmoid", "tp::fast_sigmoid"},
        {"sin", 1, 1, R::SameAsArg0, "tp::sin", "tp::fast_sin"},
        {"cos", 1, 1, R::SameAsArg0, "tp::cos", "tp::fast_cos"},
        {"tan", 1, 1, R::SameAsArg0, "tp::tan", "tp::fast_tan"},
        {"floor", 1, 1, R::SameAsArg0, "tp::floor", nullptr},
        {"ceil", 1, 1, R::SameAsArg0, "tp::ceil", nullptr},
        {"round", 1, 1, R::SameAsArg0, "tp::round", nullptr},
        {"trunc", 1, 1, R::SameAsArg0, "tp::trunc", nullptr},
        {"pow", 2, 2, R::SameAsArg0, "tp::pow", "tp::fast_pow"},
        {"fmod", 2, 2, R::SameAsArg0, "tp::fmod", nullptr},
        {"clamp", 3, 3, R::SameAsArg0, "tp::clamp", nullptr},
        {"fma", 3, 3, R::SameAsArg0, "tp::fma", nullptr},
        {"isnan", 1, 1, R::Bool, "tp::isnan", nullptr},
        {"isinf", 1, 1, R::Bool, "tp::isinf", nullptr},
        {"infinity", 0, 0, R::Given, "tp::infinity", nullptr},
        {"max_value", 0, 0, R::Given, "tp::max_value", nullptr},
        {"min_value", 0, 0, R::Given, "tp::min_value", nullptr},
        {"reinterpret", 1, 1, R::Given, "tp::reinterpret", nullptr},  // the bits read as the call's dtype
        // Produced by passes, not written by users.
        {"gelu_erf", 1, 1, R::SameAsArg0, "tp::gelu_erf", nullptr},  // math_idioms: x * Phi(x)
        {"__syncthreads", 0, 0, R::Void, "__syncthreads", nullptr},
        {"named_barrier", 2, 2, R::Void, "tp::named_barrier", nullptr},               // T.sync_threads(barrier_id, arrive_count)
        {"fence_proxy_async", 0, 0, R::Void, "tp::user_fence_proxy_async", nullptr},  // T.fence_proxy_async()
        {"atomic_add", 2, 2, R::Void, "tp::atomic_add", nullptr},
        {"atomic_add_prev", 2, 2, R::SameAsArg0, "tp::atomic_add_prev", nullptr},  // T.atomic_add(..., return_prev=True)
        {"warp_shuffle", 3, 3, R::SameAsArg0, "tp::warp_shuffle", nullptr},        // T.tvm_warp_shuffle: (value, source lane, width)
        // T.rng_init(seed, seq, off) / T.rng_rand(): the thread's Philox generator (tp_rand.cuh).
        {"rng_init", 3, 3, R::Void, "tp_rng.init", nullptr},
        {"rng_rand", 0, 0, R::Given, "tp_rng.next", nullptr},
        // iket.mark / iket.range: (event id, kind, optional payload), a performance-monitor
        // event (tp_iket.cuh); it reads and writes no kernel data.
        {"iket_event", 2, 3, R::Void, "tp::iket_event", nullptr},
    };
    return table;
}

const IntrinsicInfo* find_intrinsic(const std::string& name) {
    for (const auto& i : all_intrinsics())
        if (name == i.name) return &i;
    return nullptr;
}

}  // namespace tp::ir
