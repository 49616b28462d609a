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

}  // namespace

void Emitter::tile_gemm(const ir::GemmOpNode& g) {
    auto operand = [&](const ir::BufferRegion& r) {
        Operand o;
        o.bi = &buffer(r.buffer);
        o.ext = const_extents(r, "T.gemm");
        if (o.ext.size() < 2 || o.ext.size() != o.bi->shape.size()) throw Reject{"`T.gemm` operand `" + r.buffer->name + "` that is not a 2-D tile"};
        for (size_t d = 0; d + 2 < o.ext.size(); ++d)
            if (o.ext[d] != 1) throw Reject{"`T.gemm` operand `" + r.buffer->name + "` with a leading extent above 1"};
        o.mins = region_mins(r);
        o.base = ci(0);
        for (size_t d = 0; d < o.mins.size(); ++d) o.base = b.CreateAdd(o.base, b.CreateMul(o.mins[d], o.bi->strides[d]));
        o.ld = o.bi->shape.back();
        o.rows = o.ext[o.ext.size() - 2];
        o.cols = o.ext.back();
        return o;
    };
    Operand A = operand(g.A), B = operand(g.B), C = operand(g.C);
    const int64_t M = g.transpose_A ? A.cols : A.rows, K = g.transpose_A ? A.rows : A.cols;
    const int64_t KB = g.transpose_B ? B.cols : B.rows, N = g.transpose_B ? B.rows : B.cols;
    if (K != KB || M != C.rows || N != C.cols) throw Reject{"`T.gemm` with shapes that disagree"};
    if (M <= 0 || N <= 0 || K <= 0) return;
    // The interpreter reports an operand outside its buffer: a fault here, and nothing computed.
    Value* ok = b.CreateAnd(b.CreateAnd(box_inside(*A.bi, A.mins, A.ext), box_inside(*B.bi, B.mins, B.ext)), box_inside(*C.bi, C.mins, C.ext));
    fault_if(b.CreateNot(ok));
    llvm::AllocaInst* ap = entry_alloca(llvm::ArrayType::get(f32, static_cast<uint64_t>(M * K)), nullptr, "gemm.a");
    llvm::AllocaInst* bp = entry_alloca(llvm::ArrayType::get(f32, static_cast<uint64_t>(K * N)), nullptr, "gemm.b");
    llvm::AllocaInst* tile = entry_alloca(llvm::ArrayType::get(f32, static_cast<uint64_t>(kRows * kCols)), nullptr, "gemm.tile");
    auto fptr = [&](llvm::AllocaInst* a, Value* i) { return b.CreateInBoundsGEP(f32, a, i); };
    auto to_f32 = [&](Value* v, DataType t) { return v->getType() == f32 ? v : b.CreateFPTrunc(to_double(v, t), f32); };
    if (A.bi->node->dtype.bits > 32 || B.bi->node->dtype.bits > 32 || !A.bi->node->dtype.is_float() || !B.bi->node->dtype.is_float())
        throw Reject{"`T.gemm` on operands that are not fp16, bf16 or fp32"};
    // C's update: C = round(C + sum), or round(sum) with clear_accum.
    auto update_c = [&](Value* i, Value* j, Value* sum) {
        Value* cf = b.CreateAdd(C.base, b.CreateAdd(b.CreateMul(i, C.ld), j));
        Value* s = b.CreateFPExt(sum, f64);
        if (!g.clear_accum) s = b.CreateFAdd(to_double(load_elem(*C.bi, cf), C.bi->node->dtype), s);
        store_elem(*C.bi, cf, convert(s, DataType::float64(), C.bi->node->dtype));
    };
    // An f32 C without written flags takes the sum as vectors straight from the registers.
    const bool vector_c = C.bi->node->dtype == DataType::float32() && !C.bi->written;
    if_then(ok, [&] {
        loop(ci(0), ci(M), [&](Value* i) {
            loop(ci(0), ci(K), [&](Value* k) {
                Value* src = g.transpose_A ? b.CreateAdd(b.CreateMul(k, A.ld), i) : b.CreateAdd(b.CreateMul(i, A.ld), k);
                b.CreateStore(to_f32(load_elem(*A.bi, b.CreateAdd(A.base, src)), A.bi->node->dtype), fptr(ap, b.CreateAdd(b.CreateMul(i, ci(K)), k)));
            });
        });
        loop(ci(0), ci(K), [&](Value* k) {
            loop(ci(0), ci(N), [&](Value* j) {
                Value* src = g.transpose_B ? b.CreateAdd(b.CreateMul(j, B.ld), k) : b.CreateAdd(b.CreateMul(k, B.ld), j);
                b.CreateStore(to_f32(load_elem(*B.bi, b.CreateAdd(B.base, src)), B.bi->node->dtype), fptr(bp, b.CreateAdd(b.CreateMul(k, ci(N)), j)));
            });
        });
        const int64_t M4 = M - M % kRows, N16 = N - N % kCols;
        llvm::Type* vt = llvm::FixedVectorType::get(f32, kLanes);
        llvm::Function* fma = llvm::Intrinsic::getDeclaration(&mod, llvm::Intrinsic::fmuladd, {vt});
        if (M4 > 0 && N16 > 0) {
            loop(ci(0), ci(M4 / kRows), [&](Value* ib) {
                Value* i0 = b.CreateMul(ib, ci(kRows));
                loop(ci(0), ci(N16 / kCols), [&](Value* jb) {
                    Value* j0 = b.CreateMul(jb, ci(kCols));
                    std::vector<llvm::AllocaInst*> acc;
                    for (int64_t r = 0; r < kRows * kVecs; ++r) {
                        acc.push_back(entry_alloca(vt, nullptr, "acc", 32));
                        b.CreateStore(llvm::Constant::getNullValue(vt), acc.back());
                    }
                    loop(ci(0), ci(K), [&](Value* k) {
                        Value* brow = b.CreateAdd(b.CreateMul(k, ci(N)), j0);
                        Value* bv[kVecs];
                        for (int64_t v = 0; v < kVecs; ++v)
                            bv[v] = b.CreateAlignedLoad(vt, fptr(bp, b.CreateAdd(brow, ci(v * kLanes))), llvm::Align(4));
                        for (int64_t r = 0; r < kRows; ++r) {
                            Value* a = b.CreateLoad(f32, fptr(ap, b.CreateAdd(b.CreateMul(b.CreateAdd(i0, ci(r)), ci(K)), k)));
                            Value* av = b.CreateVectorSplat(kLanes, a);
                            for (int64_t v = 0; v < kVecs; ++v) {
                                llvm::AllocaInst* s = acc[static_cast<size_t>(r * kVecs + v)];
                                b.CreateStore(b.CreateCall(fma, {av, bv[v], b.CreateLoad(vt, s)}), s);
                            }
                        }
                    });
                    if (vector_c) {
                        // C += tile: f32 + f32 rounded once is the double sum rounded once.
                        for (int64_t r = 0; r < kRows; ++r) {
                            Value* row = b.CreateAdd(C.base, b.CreateAdd(b.CreateMul(b.CreateAdd(i0, ci(r)), C.ld), j0));
                            for (int64_t v = 0; v < kVecs; ++v) {
                                Value* p = elem_ptr(*C.bi, b.CreateAdd(row, ci(v * kLanes)));
                                Value* s = b.CreateLoad(vt, acc[static_cast<size_t>(r * kVecs + v)]);
                                if (!g.clear_accum) s = b.CreateFAdd(b.CreateAlignedLoad(vt, p, llvm::Align(4)), s);
                                b.CreateAlignedStore(s, p, llvm::Align(4));
                            }
                        }
                        return;
                    }
                    for (int64_t r = 0; r < kRows; ++r)
                        for (int64_t v = 0; v < kVecs; ++v)
                            b.CreateAlignedStore(b.CreateLoad(vt, acc[static_cast<size_t>(r * kVecs + v)]), fptr(tile, ci(r * kCols + v * kLanes)),
                                                 llvm::Align(4));
                    nest({kRows, kCols}, [&](const std::vector<Value*>& rc) {
                        Value* sum = b.CreateLoad(f32, fptr(tile, b.CreateAdd(b.CreateMul(rc[0], ci(kCols)), rc[1])));
                        update_c(b.CreateAdd(i0, rc[0]), b.CreateAdd(j0, rc[1]), sum);
                    });
                });
            });
        }
        // The edges the register tile does not cover: rows past M4 (all columns), columns past N16.
        llvm::AllocaInst* acc = entry_alloca(f32, nullptr, "acc1", 4);
        auto scalar = [&](Value* i, Value* j) {
            b.CreateStore(llvm::ConstantFP::get(f32, 0.0), acc);
            loop(ci(0), ci(K), [&](Value* k) {
                Value* a = b.CreateLoad(f32, fptr(ap, b.CreateAdd(b.CreateMul(i, ci(K)), k)));
                Value* bb = b.CreateLoad(f32, fptr(bp, b.CreateAdd(b.CreateMul(k, ci(N)), j)));
                b.CreateStore(b.CreateFAdd(b.CreateLoad(f32, acc), b.CreateFMul(a, bb)), acc);
            });
            update_c(i, j, b.CreateLoad(f32, acc));
        };
        if (N16 < N) loop(ci(0), ci(M4), [&](Value* i) { loop(ci(N16), ci(N - N16), [&](Value* j) { scalar(i, j); }); });
        if (M4 < M) loop(ci(M4), ci(M - M4), [&](Value* i) { loop(ci(0), ci(N), [&](Value* j) { scalar(i, j); }); });
    });
}

}  // namespace tp::jit
