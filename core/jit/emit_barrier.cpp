// mbarriers and warp-group roles (`T.ws`) in the JIT, as the interpreter runs them
// (core/interp/barriers.cpp): a block runs as one program, so roles run in program order; an
// mbarrier is one i64 word per element (completed phases * 2^21 + arrivals of the current
// phase); an arrive counts the threads that run it (the role's inside `T.ws`, else the block's),
// and a wait for a phase program order has not completed is a fault, which the interpreter's
// re-run reports (BarrierWaitNeverCompletes) with what the barrier holds.
#include "jit/emit.h"

namespace tp::jit {

using ir::DataType;
using llvm::Value;

namespace {
constexpr int64_t kPhaseUnit = int64_t{1} << 21;  // the interpreter's: arrive counts are below 2^20
}

void Emitter::allocate_barrier(const ir::AllocateNode& a) {
    const ir::Buffer& buf = a.buffer;
    auto n = buf->shape.size() == 1 ? ir::as_const_int(buf->shape[0]) : std::nullopt;
    if (!n || *n < 0 || buf->arrive_counts.size() != static_cast<size_t>(*n))
        throw Reject{"mbarrier buffer `" + buf->name + "` whose size is not a constant"};
    BufInfo bi;
    bi.node = buf.get();
    bi.shape = {ci(*n)};
    bi.strides = {ci(1)};
    bi.size = ci(*n);
    const uint64_t bytes = static_cast<uint64_t>(std::max<int64_t>(*n, 1)) * 8;
    bi.base = entry_alloca(llvm::ArrayType::get(i64, bytes / 8), nullptr, buf->name, 8);
    b.CreateMemSet(bi.base, b.getInt8(0), bytes, llvm::MaybeAlign(8));
    bufs[buf.get()] = bi;
    stmt(a.body);
}

void Emitter::barrier_op(const ir::BarrierOpNode& op) {
    if (op.barrier_kind == ir::BarrierKind::ExpectTx) return;  // async copies complete in program order
    BufInfo& bi = buffer(op.barrier);
    const auto& counts = bi.node->arrive_counts;
    Value* i = convert(expr(op.index), op.index->dtype, DataType::int64());
    Value* at = flat_index(bi, {i});
    // The arrive counts, one constant table per barrier buffer.
    const std::string name = "tp_arrive_counts." + bi.node->name;
    llvm::GlobalVariable* table = mod.getNamedGlobal(name);
    auto* ty = llvm::ArrayType::get(i64, std::max<size_t>(counts.size(), 1));
    if (!table) {
        std::vector<llvm::Constant*> vals;
        for (int64_t c : counts) vals.push_back(llvm::ConstantInt::get(i64, static_cast<uint64_t>(std::max<int64_t>(c, 1))));
        if (vals.empty()) vals.push_back(llvm::ConstantInt::get(i64, 1));
        table = new llvm::GlobalVariable(mod, ty, true, llvm::GlobalValue::PrivateLinkage, llvm::ConstantArray::get(ty, vals), name);
    }
    Value* word_ptr = b.CreateInBoundsGEP(i64, bi.base, at);
    Value* word = b.CreateLoad(i64, word_ptr);
    Value* phases = b.CreateSDiv(word, ci(kPhaseUnit));
    Value* arrived = b.CreateSRem(word, ci(kPhaseUnit));
    if (op.barrier_kind == ir::BarrierKind::Wait) {
        Value* parity = b.CreateAnd(convert(expr(op.value), op.value->dtype, DataType::int64()), ci(1));
        fault_if(b.CreateICmpEQ(b.CreateAnd(phases, ci(1)), parity));
        return;
    }
    // Arrivals past the count complete the phase and count towards the next one.
    Value* count = b.CreateLoad(i64, b.CreateInBoundsGEP(ty, table, {ci(0), at}));
    arrived = b.CreateAdd(arrived, ci(role_threads ? role_threads : block_threads));
    phases = b.CreateAdd(phases, b.CreateSDiv(arrived, count));
    arrived = b.CreateSRem(arrived, count);
    b.CreateStore(b.CreateAdd(b.CreateMul(phases, ci(kPhaseUnit)), arrived), word_ptr);
}

void Emitter::role_block(const ir::RoleBlockNode& r) {
    const int64_t saved = role_threads;
    role_threads = r.num_threads();
    stmt(r.body);
    role_threads = saved;
}

}  // namespace tp::jit
