// T.gemm in the JIT: C[M, N] (+)= A[M, K] @ B[K, N] on the last two dims of each region, either
// operand transposed (core/interp/gemm_op.cpp is the reference). A and B are first converted
// to f32 tiles (A row-major M x K, B row-major K x N) so the inner loop reads contiguous floats;
// a 4 x 16 register tile of f32 accumulators (two <8 x float> per row) then runs k-outer with
// fused multiply-adds, and its sum is added to C once and rounded to C's dtype, as the
// interpreter adds its double sum once. The f32 accumulation order differs from the
// interpreter's double sum, so results agree within the dtype's tolerance, not bit for bit.
#include "jit/emit.h"

namespace tp::jit {

using ir::DataType;
using llvm::Value;

namespace {

constexpr int64_t kRows = 4, kLanes = 8, kVecs = 2, kCols = kLanes * kVecs;

struct Operand {
    BufInfo* bi = nullptr;
    std::vector<int64_t> ext;
    std::vector<Value*> mins;
    Value* base = nullptr;  // flat index of the region's first element
    Value* ld = nullptr;    // row stride: the buffer's last dim
    int64_t rows = 0, cols = 0;
};

// One T.gemm's emission, step by step.
struct GemmEmitter {
    Emitter& e;
    llvm::IRBuilder<>& b;
    const ir::GemmOpNode& g;
    Operand A, B, C;
    int64_t M = 0, N = 0, K = 0;
    llvm::AllocaInst *ap = nullptr, *bp = nullptr;  // A as f32 M x K, B as f32 K x N
    llvm::Type* vt = nullptr;                       // <kLanes x float>

    Operand operand(const ir::BufferRegion& r) {
        Operand o;
        o.bi = &e.buffer(r.buffer);
        o.ext = e.const_extents(r, "T.gemm");
        if (o.ext.size() < 2 || o.ext.size() != o.bi->shape.size()) throw Reject{"`T.gemm` operand `" + r.buffer->name + "` that is not a 2-D tile"};
        for (size_t d = 0; d + 2 < o.ext.size(); ++d)
            if (o.ext[d] != 1) throw Reject{"`T.gemm` operand `" + r.buffer->name + "` with a leading extent above 1"};
        o.mins = e.region_mins(r);
        o.base = e.ci(0);
        for (size_t d = 0; d < o.mins.size(); ++d) o.base = b.CreateAdd(o.base, b.CreateMul(o.mins[d], o.bi->strides[d]));
        o.ld = o.bi->shape.back();
        o.rows = o.ext[o.ext.size() - 2];
        o.cols = o.ext.back();
        return o;
    }

    Value* fptr(llvm::AllocaInst* a, Value* i) { return b.CreateInBoundsGEP(e.f32, a, i); }
    Value* to_f32(Value* v, DataType t) { return v->getType() == e.f32 ? v : b.CreateFPTrunc(e.to_double(v, t), e.f32); }

    // A and B as f32 tiles, whatever their dtype and transposition.
    void pack() {
        e.loop(e.ci(0), e.ci(M), [&](Value* i) {
            e.loop(e.ci(0), e.ci(K), [&](Value* k) {
                Value* src = g.transpose_A ? b.CreateAdd(b.CreateMul(k, A.ld), i) : b.CreateAdd(b.CreateMul(i, A.ld), k);
                Value* v = to_f32(e.load_elem(*A.bi, b.CreateAdd(A.base, src)), A.bi->node->dtype);
                b.CreateStore(v, fptr(ap, b.CreateAdd(b.CreateMul(i, e.ci(K)), k)));
            });
        });
        e.loop(e.ci(0), e.ci(K), [&](Value* k) {
            e.loop(e.ci(0), e.ci(N), [&](Value* j) {
                Value* src = g.transpose_B ? b.CreateAdd(b.CreateMul(j, B.ld), k) : b.CreateAdd(b.CreateMul(k, B.ld), j);
                Value* v = to_f32(e.load_elem(*B.bi, b.CreateAdd(B.base, src)), B.bi->node->dtype);
                b.CreateStore(v, fptr(bp, b.CreateAdd(b.CreateMul(k, e.ci(N)), j)));
            });
        });
    }

    // C = round(C + sum), or round(sum) with clear_accum: the interpreter's one rounding.
    void update_c(Value* i, Value* j, Value* sum) {
        Value* cf = b.CreateAdd(C.base, b.CreateAdd(b.CreateMul(i, C.ld), j));
        Value* s = b.CreateFPExt(sum, e.f64);
        if (!g.clear_accum) s = b.CreateFAdd(e.to_double(e.load_elem(*C.bi, cf), C.bi->node->dtype), s);
        e.store_elem(*C.bi, cf, e.convert(s, DataType::float64(), C.bi->node->dtype));
    }

    // The kRows x kCols tile at (i0, j0): k-outer fused multiply-adds into registers, then C.
    void register_tile(Value* i0, Value* j0) {
        llvm::Function* fma = llvm::Intrinsic::getDeclaration(&e.mod, llvm::Intrinsic::fmuladd, {vt});
        std::vector<llvm::AllocaInst*> acc;
        for (int64_t r = 0; r < kRows * kVecs; ++r) {
            acc.push_back(e.entry_alloca(vt, nullptr, "acc", 32));
            b.CreateStore(llvm::Constant::getNullValue(vt), acc.back());
        }
        e.loop(e.ci(0), e.ci(K), [&](Value* k) {
            Value* brow = b.CreateAdd(b.CreateMul(k, e.ci(N)), j0);
            Value* bv[kVecs];
            for (int64_t v = 0; v < kVecs; ++v) bv[v] = b.CreateAlignedLoad(vt, fptr(bp, b.CreateAdd(brow, e.ci(v * kLanes))), llvm::Align(4));
            for (int64_t r = 0; r < kRows; ++r) {
                Value* a = b.CreateLoad(e.f32, fptr(ap, b.CreateAdd(b.CreateMul(b.CreateAdd(i0, e.ci(r)), e.ci(K)), k)));
                Value* av = b.CreateVectorSplat(kLanes, a);
                for (int64_t v = 0; v < kVecs; ++v) {
                    llvm::AllocaInst* s = acc[static_cast<size_t>(r * kVecs + v)];
                    b.CreateStore(b.CreateCall(fma, {av, bv[v], b.CreateLoad(vt, s)}), s);
                }
            }
        });
        if (C.bi->node->dtype == DataType::float32() && !C.bi->written) {
            // An f32 C takes the sum as vectors: f32 + f32 rounded once is the double sum rounded once.
            for (int64_t r = 0; r < kRows; ++r) {
                Value* row = b.CreateAdd(C.base, b.CreateAdd(b.CreateMul(b.CreateAdd(i0, e.ci(r)), C.ld), j0));
                for (int64_t v = 0; v < kVecs; ++v) {
                    Value* p = e.elem_ptr(*C.bi, b.CreateAdd(row, e.ci(v * kLanes)));
                    Value* s = b.CreateLoad(vt, acc[static_cast<size_t>(r * kVecs + v)]);
                    if (!g.clear_accum) s = b.CreateFAdd(b.CreateAlignedLoad(vt, p, llvm::Align(4)), s);
                    b.CreateAlignedStore(s, p, llvm::Align(4));
                }
            }
            return;
        }
        llvm::AllocaInst* tile = e.entry_alloca(llvm::ArrayType::get(e.f32, static_cast<uint64_t>(kRows * kCols)), nullptr, "gemm.tile");
        for (int64_t r = 0; r < kRows; ++r)
            for (int64_t v = 0; v < kVecs; ++v)
                b.CreateAlignedStore(b.CreateLoad(vt, acc[static_cast<size_t>(r * kVecs + v)]), fptr(tile, e.ci(r * kCols + v * kLanes)),
                                     llvm::Align(4));
        e.nest({kRows, kCols}, [&](const std::vector<Value*>& rc) {
            Value* sum = b.CreateLoad(e.f32, fptr(tile, b.CreateAdd(b.CreateMul(rc[0], e.ci(kCols)), rc[1])));
            update_c(b.CreateAdd(i0, rc[0]), b.CreateAdd(j0, rc[1]), sum);
        });
    }

    // One element of C by a scalar k loop: the rows and columns the register tiles leave.
    void scalar_element(Value* i, Value* j) {
        llvm::AllocaInst* acc = e.entry_alloca(e.f32, nullptr, "acc1", 4);
        b.CreateStore(llvm::ConstantFP::get(e.f32, 0.0), acc);
        e.loop(e.ci(0), e.ci(K), [&](Value* k) {
            Value* a = b.CreateLoad(e.f32, fptr(ap, b.CreateAdd(b.CreateMul(i, e.ci(K)), k)));
            Value* bb = b.CreateLoad(e.f32, fptr(bp, b.CreateAdd(b.CreateMul(k, e.ci(N)), j)));
            b.CreateStore(b.CreateFAdd(b.CreateLoad(e.f32, acc), b.CreateFMul(a, bb)), acc);
        });
        update_c(i, j, b.CreateLoad(e.f32, acc));
    }

    void emit() {
        A = operand(g.A), B = operand(g.B), C = operand(g.C);
        M = g.transpose_A ? A.cols : A.rows, K = g.transpose_A ? A.rows : A.cols;
        const int64_t KB = g.transpose_B ? B.cols : B.rows;
        N = g.transpose_B ? B.rows : B.cols;
        if (K != KB || M != C.rows || N != C.cols) throw Reject{"`T.gemm` with shapes that disagree"};
        for (const Operand* o : {&A, &B})
            if (!o->bi->node->dtype.is_float() || o->bi->node->dtype.bits > 32) throw Reject{"`T.gemm` on operands that are not fp16, bf16 or fp32"};
        if (M <= 0 || N <= 0 || K <= 0) return;
        // The interpreter reports an operand outside its buffer: a fault here, and nothing computed.
        Value* ok =
            b.CreateAnd(b.CreateAnd(e.box_inside(*A.bi, A.mins, A.ext), e.box_inside(*B.bi, B.mins, B.ext)), e.box_inside(*C.bi, C.mins, C.ext));
        e.fault_if(b.CreateNot(ok));
        ap = e.entry_alloca(llvm::ArrayType::get(e.f32, static_cast<uint64_t>(M * K)), nullptr, "gemm.a");
        bp = e.entry_alloca(llvm::ArrayType::get(e.f32, static_cast<uint64_t>(K * N)), nullptr, "gemm.b");
        vt = llvm::FixedVectorType::get(e.f32, kLanes);
        e.if_then(ok, [&] {
            pack();
            const int64_t M4 = M - M % kRows, N16 = N - N % kCols;
            if (M4 > 0 && N16 > 0)
                e.loop(e.ci(0), e.ci(M4 / kRows), [&](Value* ib) {
                    e.loop(e.ci(0), e.ci(N16 / kCols), [&](Value* jb) { register_tile(b.CreateMul(ib, e.ci(kRows)), b.CreateMul(jb, e.ci(kCols))); });
                });
            if (N16 < N) e.loop(e.ci(0), e.ci(M4), [&](Value* i) { e.loop(e.ci(N16), e.ci(N - N16), [&](Value* j) { scalar_element(i, j); }); });
            if (M4 < M) e.loop(e.ci(M4), e.ci(M - M4), [&](Value* i) { e.loop(e.ci(0), e.ci(N), [&](Value* j) { scalar_element(i, j); }); });
        });
    }
};

}  // namespace

void Emitter::tile_gemm(const ir::GemmOpNode& g) {
    GemmEmitter ge{*this, b, g};
    ge.emit();
}

}  // namespace tp::jit
