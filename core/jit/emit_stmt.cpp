// Statements of the JIT: the function frame (parameters, variables, block-local buffers), loops
// of every kind in program order as the interpreter runs them (core/interp/compile_stmt.cpp),
// branches, stores and the launch. Block-local buffers live in the block function's frame and
// are zeroed (or filled with T.alloc_var's init) each time the block reaches them; in a
// thread-level kernel the shared and fragment ones live in the block's area (emit_threads.cpp).
#include <cstddef>

#include "jit/emit.h"

namespace tp::jit {

using ir::DataType;
using llvm::Value;

namespace {
constexpr int64_t kMaxLocalBytes = int64_t{4} << 20;  // per block; threads have 8 MiB stacks
}

Emitter::Emitter(llvm::LLVMContext& c, llvm::Module& m, const ir::PrimFunc& f, bool chk, bool track)
    : ctx(c), mod(m), func(f), checked(chk), track_written(track), b(c) {
    i1 = b.getInt1Ty(), i8 = b.getInt8Ty(), i64 = b.getInt64Ty(), f32 = b.getFloatTy(), f64 = b.getDoubleTy();
    ptr = llvm::PointerType::get(c, 0);
}

llvm::BasicBlock* Emitter::new_block(const char* name) { return llvm::BasicBlock::Create(ctx, name, fn); }

llvm::AllocaInst* Emitter::entry_alloca(llvm::Type* t, Value* n, const std::string& name, uint64_t align) {
    llvm::IRBuilder<> eb(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    llvm::AllocaInst* a = eb.CreateAlloca(t, n, name);
    a->setAlignment(llvm::Align(align));
    return a;
}

void Emitter::fault_if(Value* cond) {
    Value* old = b.CreateLoad(i1, fault_slot);
    b.CreateStore(b.CreateOr(old, cond), fault_slot);
}

llvm::AllocaInst* Emitter::var_slot(const ir::Var& v) {
    auto it = vars.find(v.get());
    if (it != vars.end()) return it->second;
    llvm::AllocaInst* a = entry_alloca(value_type(v->dtype), nullptr, v->name, 8);
    vars.emplace(v.get(), a);
    return a;
}

Value* Emitter::var(const ir::VarNode* v) {
    auto it = vars.find(v);
    if (it == vars.end()) throw Reject{"variable `" + v->name + "` has no value where it is read"};
    return b.CreateLoad(it->second->getAllocatedType(), it->second);
}

void Emitter::begin_function(const char* name, bool block) {
    std::vector<llvm::Type*> args{ptr, ptr};
    if (block) args.insert(args.end(), {i64, i64, i64});
    fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), args, false), llvm::Function::ExternalLinkage, name, mod);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
    exit_bb = nullptr;
    vars.clear();
    bufs.clear();
    break_targets.clear();
    b.SetInsertPoint(entry);
    ctx_arg = fn->getArg(0);
    state_arg = fn->getArg(1);
    fault_slot = b.CreateAlloca(i1, nullptr, "fault");
    b.CreateStore(b.getFalse(), fault_slot);
    stop_ptr = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(i8, state_arg, 8), "stop");
    for (int d = 0; d < 3; ++d) block_idx[d] = block ? fn->getArg(2 + d) : ci(0);
    if (block && thread_mode) {
        rank_val = b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(i8, state_arg, offsetof(State, rank)), "rank");
        shared_base = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(i8, state_arg, offsetof(State, shared)), "shared");
    }
    exit_bb = llvm::BasicBlock::Create(ctx, "exit", fn);
    bind_params();
}

// Parameters: tensors from ctx->data / shapes (constant dims stay constants), scalars from
// ctx->scalars, symbolic dims from the first tensor dimension that names them.
void Emitter::bind_params() {
    Value* data = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(i8, ctx_arg, 0));
    Value* shapes = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(i8, ctx_arg, 8));
    Value* scalars = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(i8, ctx_arg, 16));
    Value* written = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(i8, ctx_arg, 24));
    for (size_t i = 0; i < func.params.size(); ++i) {
        const auto& p = func.params[i];
        const auto k = static_cast<int64_t>(i);
        if (p.var) {
            Value* v = b.CreateLoad(f64, b.CreateConstInBoundsGEP1_64(f64, scalars, k));
            // The interpreter binds an int scalar as static_cast<int64_t>(value).
            Value* bound = p.var->dtype.is_float() ? round_to(v, p.var->dtype) : b.CreateFPToSI(v, i64);
            b.CreateStore(bound, var_slot(p.var));
            continue;
        }
        if (!p.buffer) continue;
        value_type(p.buffer->dtype);
        BufInfo bi;
        bi.node = p.buffer.get();
        bi.global = true;
        bi.base = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, data, k), p.name);
        Value* wr = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, written, k));
        bi.written = track_written ? wr : nullptr;
        for (size_t d = 0; d < p.buffer->shape.size(); ++d) {
            const ir::Expr& dim = p.buffer->shape[d];
            Value* s = nullptr;
            if (auto c = ir::as_const_int(dim))
                s = ci(*c);
            else
                s = b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(i64, shapes, k * 8 + static_cast<int64_t>(d)));
            if (auto* v = dim->as<ir::VarNode>(); v && !vars.count(v)) b.CreateStore(s, var_slot(std::static_pointer_cast<const ir::VarNode>(dim)));
            bi.shape.push_back(s);
        }
        bi.strides.assign(bi.shape.size(), ci(1));
        for (size_t d = bi.shape.size(); d-- > 1;) bi.strides[d - 1] = b.CreateMul(bi.strides[d], bi.shape[d]);
        bi.size = bi.shape.empty() ? ci(1) : b.CreateMul(bi.strides[0], bi.shape[0]);
        bufs.emplace(bi.node, bi);
    }
}

BufInfo& Emitter::buffer(const ir::Buffer& buf) {
    auto it = bufs.find(buf.get());
    if (it == bufs.end()) throw Reject{"buffer `" + buf->name + "` is used where it is not allocated"};
    return it->second;
}

void Emitter::poll(int site) {
    llvm::BasicBlock* go = new_block("poll.go");
    llvm::BasicBlock* stop_bb = new_block("poll.stop");
    auto* stop = b.CreateLoad(i8, stop_ptr);
    stop->setAtomic(llvm::AtomicOrdering::Monotonic);
    b.CreateCondBr(b.CreateICmpNE(stop, b.getInt8(0)), stop_bb, go);
    b.SetInsertPoint(stop_bb);
    b.CreateStore(b.getInt32(site), b.CreateConstInBoundsGEP1_64(i8, state_arg, 16));
    b.CreateBr(exit_bb);
    b.SetInsertPoint(go);
}

void Emitter::loop(Value* lo, Value* n, const std::function<void(Value*)>& body, int site) {
    llvm::BasicBlock* pre = b.GetInsertBlock();
    Value* end = b.CreateAdd(lo, n);
    llvm::BasicBlock* header = new_block("loop");
    llvm::BasicBlock* body_bb = new_block("loop.body");
    llvm::BasicBlock* latch = new_block("loop.latch");
    llvm::BasicBlock* exit = new_block("loop.exit");
    b.CreateBr(header);
    b.SetInsertPoint(header);
    llvm::PHINode* i = b.CreatePHI(i64, 2, "i");
    i->addIncoming(lo, pre);
    b.CreateCondBr(b.CreateICmpSLT(i, end), body_bb, exit);
    b.SetInsertPoint(body_bb);
    break_targets.push_back(exit);
    body(i);
    break_targets.pop_back();
    b.CreateBr(latch);
    b.SetInsertPoint(latch);
    Value* next = b.CreateAdd(i, ci(1), "", false, true);
    if (site >= 0) poll(site);
    i->addIncoming(next, b.GetInsertBlock());
    b.CreateBr(header);
    b.SetInsertPoint(exit);
}

void Emitter::if_then(Value* cond, const std::function<void()>& then_fn, const std::function<void()>& else_fn) {
    llvm::BasicBlock* t = new_block("then");
    llvm::BasicBlock* e = else_fn ? new_block("else") : nullptr;
    llvm::BasicBlock* done = new_block("endif");
    b.CreateCondBr(cond, t, e ? e : done);
    b.SetInsertPoint(t);
    then_fn();
    b.CreateBr(done);
    if (e) {
        b.SetInsertPoint(e);
        else_fn();
        b.CreateBr(done);
    }
    b.SetInsertPoint(done);
}

bool has_inner_work(const ir::Stmt& s) {
    if (!s) return false;
    switch (s->kind) {
        case ir::NodeKind::For:
        case ir::NodeKind::While:
        case ir::NodeKind::CopyOp:
        case ir::NodeKind::GemmOp:
        case ir::NodeKind::FillOp:
        case ir::NodeKind::ReduceOp:
        case ir::NodeKind::AtomicAddOp:
        case ir::NodeKind::PrintOp:
            return true;
        case ir::NodeKind::SeqStmt:
            for (const auto& c : s->as<ir::SeqStmtNode>()->seq)
                if (has_inner_work(c)) return true;
            return false;
        case ir::NodeKind::IfThenElse: {
            auto* i = s->as<ir::IfThenElseNode>();
            return has_inner_work(i->then_case) || has_inner_work(i->else_case);
        }
        case ir::NodeKind::LetStmt:
            return has_inner_work(s->as<ir::LetStmtNode>()->body);
        case ir::NodeKind::Allocate:
            return has_inner_work(s->as<ir::AllocateNode>()->body);
        case ir::NodeKind::RoleBlock:
            return has_inner_work(s->as<ir::RoleBlockNode>()->body);
        default:
            return false;
    }
}

namespace {

constexpr int64_t kChunk = 1 << 16;  // iterations of an inner loop between two polls

bool has_break(const ir::Stmt& s) {
    if (!s) return false;
    switch (s->kind) {
        case ir::NodeKind::Break:
            return true;
        case ir::NodeKind::SeqStmt:
            for (const auto& c : s->as<ir::SeqStmtNode>()->seq)
                if (has_break(c)) return true;
            return false;
        case ir::NodeKind::IfThenElse: {
            auto* i = s->as<ir::IfThenElseNode>();
            return has_break(i->then_case) || has_break(i->else_case);
        }
        case ir::NodeKind::LetStmt:
            return has_break(s->as<ir::LetStmtNode>()->body);
        case ir::NodeKind::Allocate:
            return has_break(s->as<ir::AllocateNode>()->body);
        case ir::NodeKind::RoleBlock:
            return has_break(s->as<ir::RoleBlockNode>()->body);
        default:
            return false;
    }
}

}  // namespace

// An outer loop polls the stop flag each iteration. An inner loop of a small constant trip
// count does not (the vectoriser wants one exit); a longer one runs in chunks of kChunk
// iterations with a poll between chunks, or polls each iteration when its body can break.
void Emitter::for_stmt(const ir::ForNode& f) {
    llvm::AllocaInst* slot = var_slot(f.loop_var);
    Value* lo = expr(f.min);
    Value* n = expr(f.extent);
    if (f.min->dtype.is_float()) lo = convert(lo, f.min->dtype, DataType::int64());
    if (f.extent->dtype.is_float()) n = convert(n, f.extent->dtype, DataType::int64());
    auto body = [&](Value* i) {
        b.CreateStore(slot->getAllocatedType() == i64 ? i : b.CreateSIToFP(i, slot->getAllocatedType()), slot);
        stmt(f.body);
    };
    const int site = static_cast<int>(sites.size());
    sites.push_back(f.span);
    auto c = ir::as_const_int(f.extent);
    if (has_inner_work(f.body) || has_break(f.body)) return loop(lo, n, body, site);
    if (c && *c <= kChunk) return loop(lo, n, body);
    Value* chunks = b.CreateSDiv(b.CreateAdd(n, ci(kChunk - 1)), ci(kChunk));
    loop(
        ci(0), chunks,
        [&](Value* k) {
            Value* start = b.CreateMul(k, ci(kChunk));
            Value* left = b.CreateSub(n, start);
            Value* cnt = b.CreateSelect(b.CreateICmpSLT(left, ci(kChunk)), left, ci(kChunk));
            loop(b.CreateAdd(lo, start), cnt, body);
        },
        site);
}

void Emitter::while_stmt(const ir::WhileNode& w) {
    llvm::BasicBlock* header = new_block("while");
    llvm::BasicBlock* body = new_block("while.body");
    llvm::BasicBlock* exit = new_block("while.exit");
    b.CreateBr(header);
    b.SetInsertPoint(header);
    b.CreateCondBr(truthy(w.cond), body, exit);
    b.SetInsertPoint(body);
    break_targets.push_back(exit);
    stmt(w.body);
    break_targets.pop_back();
    poll(static_cast<int>(sites.size()));
    sites.push_back(w.span);
    b.CreateBr(header);
    b.SetInsertPoint(exit);
}

void Emitter::allocate(const ir::AllocateNode& a) {
    const ir::Buffer& buf = a.buffer;
    if (buf->scope == ir::Scope::Barrier) return allocate_barrier(a);
    value_type(buf->dtype);
    BufInfo bi;
    bi.node = buf.get();
    int64_t n = 1;
    for (const auto& d : buf->shape) {
        auto c = ir::as_const_int(d);
        if (!c) throw Reject{"block-local buffer `" + buf->name + "` with a shape that is not constant"};
        const int64_t e = std::max<int64_t>(*c, 0);
        bi.shape.push_back(ci(e));
        n *= e;
    }
    bi.strides.assign(bi.shape.size(), ci(1));
    for (size_t d = bi.shape.size(); d-- > 1;)
        bi.strides[d - 1] =
            ci(llvm::cast<llvm::ConstantInt>(bi.strides[d])->getSExtValue() * llvm::cast<llvm::ConstantInt>(bi.shape[d])->getSExtValue());
    bi.size = ci(n);
    const int64_t bytes = n * buf->dtype.bytes();
    auto init = [&](Value* base) {
        BufInfo at = bi;
        at.base = base;
        if (a.init) {
            Value* v = expr(a.init);
            if (!buf->dtype.is_float() && a.init->dtype.is_float())
                v = convert(v, a.init->dtype, DataType::int64()), v = convert(v, DataType::int64(), buf->dtype);
            else
                v = convert(v, a.init->dtype, buf->dtype);
            loop(ci(0), ci(n), [&](Value* i) { store_elem(at, i, v); });
        } else if (bytes > 0) {
            b.CreateMemSet(base, b.getInt8(0), static_cast<uint64_t>(bytes), llvm::MaybeAlign(64));
        }
    };
    // Thread mode: a shared or fragment buffer is the block's; a local one each thread's.
    if (thread_mode && buf->scope != ir::Scope::Local && buf->scope != ir::Scope::Var) {
        bi.base = block_area(*buf, bytes, init);
    } else {
        local_bytes += bytes;
        if (local_bytes > kMaxLocalBytes) throw Reject{"block-local buffers over " + std::to_string(kMaxLocalBytes >> 20) + " MiB"};
        bi.base = entry_alloca(llvm::ArrayType::get(i8, static_cast<uint64_t>(std::max<int64_t>(bytes, 1))), nullptr, buf->name);
        init(bi.base);
    }
    bufs[buf.get()] = bi;
    stmt(a.body);
}

void Emitter::launch(const ir::KernelLaunchNode& k) {
    if (in_launch) throw Reject{"a `T.Kernel` inside another"};
    in_launch = true;
    block_threads = k.num_threads();
    for (size_t d = 0; d < k.block_vars.size() && d < 3; ++d) b.CreateStore(block_idx[d], var_slot(k.block_vars[d]));
    if (thread_mode)
        bind_thread_vars(k);
    else
        for (const auto& t : k.thread_vars) b.CreateStore(ci(0), var_slot(t));
    stmt(k.body);
    in_launch = false;
}

void Emitter::store_stmt(const ir::BufferStoreNode& s) {
    BufInfo& bi = buffer(s.buffer);
    std::vector<Value*> idx;
    for (const auto& i : s.indices) idx.push_back(convert(expr(i), i->dtype, DataType::int64()));
    Value* flat = flat_index(bi, idx);
    Value* v = expr(s.value);
    // The interpreter stores value->i() into a non-float buffer: to_int first, then the wrap.
    if (!bi.node->dtype.is_float() && s.value->dtype.is_float())
        v = convert(convert(v, s.value->dtype, DataType::int64()), DataType::int64(), bi.node->dtype);
    else
        v = convert(v, s.value->dtype, bi.node->dtype);
    store_elem(bi, flat, v);
}

void Emitter::stmt(const ir::Stmt& s) {
    if (!s || collective(s)) return;
    switch (s->kind) {
        case ir::NodeKind::SeqStmt:
            for (const auto& c : s->as<ir::SeqStmtNode>()->seq) stmt(c);
            return;
        case ir::NodeKind::For:
            return for_stmt(*s->as<ir::ForNode>());
        case ir::NodeKind::While:
            return while_stmt(*s->as<ir::WhileNode>());
        case ir::NodeKind::IfThenElse: {
            auto* i = s->as<ir::IfThenElseNode>();
            Value* c = truthy(i->cond);
            if (i->else_case)
                if_then(
                    c, [&] { stmt(i->then_case); }, [&] { stmt(i->else_case); });
            else
                if_then(c, [&] { stmt(i->then_case); });
            return;
        }
        case ir::NodeKind::LetStmt: {
            auto* l = s->as<ir::LetStmtNode>();
            llvm::AllocaInst* slot = var_slot(l->var);
            Value* v = expr(l->value);
            if (l->var->dtype.is_float())
                v = convert(v, l->value->dtype, l->var->dtype);
            else
                v = l->value->dtype.is_float() ? convert(v, l->value->dtype, DataType::int64()) : v;
            b.CreateStore(v, slot);
            return stmt(l->body);
        }
        case ir::NodeKind::BufferStore:
            return store_stmt(*s->as<ir::BufferStoreNode>());
        case ir::NodeKind::Evaluate:
            expr(s->as<ir::EvaluateNode>()->value);
            return;
        case ir::NodeKind::Break: {
            b.CreateBr(break_targets.empty() ? exit_bb : break_targets.back());
            b.SetInsertPoint(new_block("after.break"));
            return;
        }
        case ir::NodeKind::Allocate:
            return allocate(*s->as<ir::AllocateNode>());
        case ir::NodeKind::KernelLaunch:
            return launch(*s->as<ir::KernelLaunchNode>());
        case ir::NodeKind::CopyOp:
            return tile_copy(*s->as<ir::CopyOpNode>());
        case ir::NodeKind::FillOp:
            return tile_fill(*s->as<ir::FillOpNode>());
        case ir::NodeKind::ReduceOp:
            return tile_reduce(*s->as<ir::ReduceOpNode>());
        case ir::NodeKind::GemmOp:
            return tile_gemm(*s->as<ir::GemmOpNode>());
        case ir::NodeKind::AssertOp:
            fault_if(b.CreateNot(truthy(s->as<ir::AssertOpNode>()->cond)));
            return;
        case ir::NodeKind::BarrierOp:
            return barrier_op(*s->as<ir::BarrierOpNode>());
        case ir::NodeKind::RoleBlock:
            return role_block(*s->as<ir::RoleBlockNode>());
        case ir::NodeKind::SwizzleOp:  // block order only; results are the same
        case ir::NodeKind::LayoutAnnotationOp:
            return;
        case ir::NodeKind::PrintOp:
            return print_op(*s->as<ir::PrintOpNode>());
        case ir::NodeKind::AtomicAddOp:
            return atomic_add_op(*s->as<ir::AtomicAddOpNode>());
        default:
            throw Reject{std::string("`") + ir::node_kind_name(s->kind) + "` statements"};
    }
}

void Emitter::emit_block_function() {
    begin_function("tp_block", true);
    stmt(func.body);
    b.CreateBr(exit_bb);
    b.SetInsertPoint(exit_bb);
    Value* f = b.CreateZExt(b.CreateLoad(i1, fault_slot), i8);
    Value* old = b.CreateLoad(i8, state_arg);
    b.CreateStore(b.CreateOr(old, f), state_arg);
    b.CreateRetVoid();
}

// tp_grid(ctx, state, i64* grid): the launch's grid from the parameters (and any LetStmt around
// the launch), as the interpreter's discovery pass finds it.
void Emitter::emit_grid_function() {
    std::vector<llvm::Type*> args{ptr, ptr};
    fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr}, false), llvm::Function::ExternalLinkage, "tp_grid", mod);
    llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
    b.SetInsertPoint(entry);
    vars.clear();
    bufs.clear();
    ctx_arg = fn->getArg(0);
    state_arg = fn->getArg(1);
    fault_slot = b.CreateAlloca(i1, nullptr, "fault");
    b.CreateStore(b.getFalse(), fault_slot);
    stop_ptr = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(i8, state_arg, 8), "stop");
    exit_bb = llvm::BasicBlock::Create(ctx, "exit", fn);
    bind_params();
    Value* out = fn->getArg(2);
    ir::Stmt s = func.body;
    while (s) {
        if (auto* k = s->as<ir::KernelLaunchNode>()) {
            for (size_t d = 0; d < 3; ++d) {
                Value* g = d < k->grid.size() ? convert(expr(k->grid[d]), k->grid[d]->dtype, DataType::int64()) : ci(1);
                b.CreateStore(g, b.CreateConstInBoundsGEP1_64(i64, out, static_cast<int64_t>(d)));
            }
            break;
        }
        if (auto* l = s->as<ir::LetStmtNode>()) {
            Value* v = expr(l->value);
            if (l->var->dtype.is_float()) v = convert(v, l->value->dtype, l->var->dtype);
            b.CreateStore(v, var_slot(l->var));
            s = l->body;
        } else if (auto* a = s->as<ir::AllocateNode>()) {
            s = a->body;
        } else if (auto* q = s->as<ir::SeqStmtNode>(); q && q->seq.size() == 1) {
            s = q->seq[0];
        } else {
            throw Reject{"statements before the `T.Kernel` launch"};
        }
    }
    if (!s) throw Reject{"a function without a `T.Kernel` launch"};
    b.CreateBr(exit_bb);
    b.SetInsertPoint(exit_bb);
    Value* f = b.CreateZExt(b.CreateLoad(i1, fault_slot), i8);
    b.CreateStore(f, state_arg);
    b.CreateRetVoid();
}

}  // namespace tp::jit
