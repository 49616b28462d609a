// Thread-level kernels in the JIT, lowered as the interpreter runs them (core/interp/threads.cpp):
// the block function is one thread's program, run once per thread on a fiber (block_threads.cpp)
// with its rank in State::rank. `__syncthreads` calls tp_jit_barrier; a block-wide statement (a
// tile op or T.Parallel loop on the block's tiles) is a barrier, the statement run by thread 0
// alone, and a second barrier; a warp shuffle posts the value, waits, reads its source lane and
// waits again. Every barrier site has its own keys, so threads that reach different barriers are
// caught (a fault; the interpreter's re-run reports ThreadsDiverge at the line).
#include "interp/program.h"
#include "jit/emit.h"

namespace tp::jit {

using ir::DataType;
using llvm::Value;

namespace {

bool is_sync(const ir::Stmt& s) {
    auto* e = s->as<ir::EvaluateNode>();
    auto* c = e ? e->value->as<ir::CallNode>() : nullptr;
    return c && c->op == "__syncthreads";
}

}  // namespace

void Emitter::barrier(int64_t key) {
    auto* fty = llvm::FunctionType::get(b.getVoidTy(), {ptr, i64}, false);
    b.CreateCall(mod.getOrInsertFunction("tp_jit_barrier", fty), {state_arg, ci(key)});
}

bool Emitter::collective(const ir::Stmt& s) {
    if (!thread_mode || wide_depth > 0 || !in_launch) return false;
    const bool sync = is_sync(s);
    if (!sync && !interp::block_wide(s)) return false;
    const int64_t key = 2 * barrier_keys++;
    barrier(key);
    if (sync) return true;
    // Thread 0 runs first after every barrier (the fibers resume in rank order), so it runs the
    // statement before any thread goes past the second barrier, as on the interpreter.
    if_then(b.CreateICmpEQ(rank_val, ci(0)), [&] {
        ++wide_depth;
        stmt(s);
        --wide_depth;
    });
    barrier(key + 1);
    return true;
}

// T.tvm_warp_shuffle(value, lane, width): the interpreter's warp_exchange. The value crosses as
// a double (exact for every dtype the JIT holds) and comes back in the call's dtype.
Value* Emitter::warp_shuffle(const ir::CallNode& c) {
    // Outside per-thread code the interpreter stops with its own diagnostic: let it.
    if (!thread_mode || wide_depth > 0 || !in_launch || c.args.size() != 3)
        throw Reject{"`T.tvm_warp_shuffle` outside the per-thread code of a thread-level kernel"};
    Value* v = to_double(expr(c.args[0]), c.args[0]->dtype);
    Value* lane = convert(expr(c.args[1]), c.args[1]->dtype, DataType::int64());
    Value* width = convert(expr(c.args[2]), c.args[2]->dtype, DataType::int64());
    const int64_t key = 2 * barrier_keys++;
    auto* fty = llvm::FunctionType::get(f64, {ptr, f64, i64, i64, i64}, false);
    Value* r = b.CreateCall(mod.getOrInsertFunction("tp_jit_shuffle", fty), {state_arg, v, lane, width, ci(key)});
    if (c.dtype.is_float()) return round_to(r, c.dtype);
    return call_intrinsic(llvm::Intrinsic::fptosi_sat, i64, {r});  // the interpreter's static_cast
}

// Thread index d of the rank, the first index varying fastest (the interpreter's order).
void Emitter::bind_thread_vars(const ir::KernelLaunchNode& k) {
    thread_extents = k.threads;
    Value* r = rank_val;
    for (size_t d = 0; d < k.thread_vars.size(); ++d) {
        const int64_t e = d < k.threads.size() ? std::max<int64_t>(k.threads[d], 1) : 1;
        b.CreateStore(b.CreateSRem(r, ci(e)), var_slot(k.thread_vars[d]));
        r = b.CreateSDiv(r, ci(e));
    }
}

Value* Emitter::block_area(const ir::BufferNode& buf, int64_t bytes, const std::function<void(Value*)>& init) {
    if (!in_launch) throw Reject{"block-local buffer `" + buf.name + "` allocated outside the `T.Kernel` of a thread-level kernel"};
    const int64_t offset = (shared_bytes + 63) / 64 * 64;  // the emitter assumes 64-byte aligned buffers
    shared_bytes = offset + bytes;
    if (shared_bytes > (int64_t{4} << 20)) throw Reject{"shared and fragment buffers over 4 MiB per block"};
    Value* base = b.CreateConstInBoundsGEP1_64(i8, shared_base, static_cast<uint64_t>(offset));
    // Thread 0 reaches each allocation first and sets it up; the others use it as it is then.
    if_then(b.CreateICmpEQ(rank_val, ci(0)), [&] { init(base); });
    return base;
}

}  // namespace tp::jit
