// T.reduce_* in CUDA (see lower_op.h), from a fragment: a striped source reduces through
// tp::reduce_striped into a result every thread holds; an accumulator's rows (dim=1) or
// columns (dim=0) through tp::reduce_rows / reduce_cols, warp shuffles first and a shared
// scratch where the rows or columns span several warps.
#include <algorithm>

#include "codegen/cuda/ops/lower_op.h"
#include "transform/tile_lowering.h"

namespace tp::codegen::cuda {

using namespace ir;
using namespace transform;

namespace {

const char* reduce_op_name(ReduceKind k) {
    switch (k) {
        case ReduceKind::Max:
            return "tp::ReduceOp::Max";
        case ReduceKind::Sum:
            return "tp::ReduceOp::Sum";
        case ReduceKind::Min:
            return "tp::ReduceOp::Min";
        case ReduceKind::AbsSum:
            return "tp::ReduceOp::AbsSum";
        case ReduceKind::AbsMax:
            return "tp::ReduceOp::AbsMax";
    }
    return "tp::ReduceOp::Sum";
}

// Element types tp_reduce*.cuh reduce from and into: fp32/fp16/bf16/fp8 (fp32 partials; fp8
// through tp_copy.cuh's conversions, present wherever a kernel has fp8 buffers) and integers up
// to 32 bits (int / unsigned partials, tp::ReduceAccum).
bool reduce_dtype(DataType t) {
    if (t.lanes != 1) return false;
    return t == DataType::float32() || t == DataType::float16() || t == DataType::bfloat16() || t.code == DataType::Float8E4M3 ||
           t.code == DataType::Float8E5M2 || (t.is_int() && t.bits <= 32);
}

}  // namespace

Stmt lower_reduce(const ReduceOpNode& n, const Stmt& s, FragmentLowering& cx) {
    const FragLayout* sl = cx.layout_of(n.src);
    const FragLayout* dl = cx.layout_of(n.dst);
    bool types_ok = reduce_dtype(n.src->dtype) && reduce_dtype(n.dst->dtype);
    const size_t rank = n.src->shape.size();
    if (sl && sl->kind == FragLayout::Striped && dl && dl->kind == FragLayout::StripedRow && types_ok && rank == 2 && n.dim == 1) {
        // Each row's threads combine it among themselves (striped_rows.cpp chose the layout).
        std::string fn = "tp::reduce_striped_rows<" + std::to_string(dl->elems) + ", " + std::to_string(dl->row_len) + ", " +
                         std::to_string(dl->threads) + ", " + std::to_string(dl->vec) + ", " + reduce_op_name(n.reduce_kind) + ", " +
                         cuda_bool(n.clear) + ">";
        return device_call(fn, {buffer_addr(cx.local_of(n.src), {int_imm(0)}, false, n.span), buffer_addr(cx.local_of(n.dst), {int_imm(0)}, true, n.span)},
                           n.span);
    }
    if (sl && sl->kind == FragLayout::Striped && dl && dl->kind == FragLayout::Replicated && types_ok && (rank == 2 || rank == 1) &&
        cx.one_dim_block && cx.threads % 32 == 0) {
        // A 1-D source is one row of its elements (the striped order is the same), reduced along it.
        const int64_t rows = rank == 2 ? *as_const_int(n.src->shape[0]) : 1, cols = *as_const_int(n.src->shape[rank - 1]);
        const int dim = rank == 2 ? n.dim : 1;
        std::string fn = "tp::reduce_striped<" + std::to_string(rows) + ", " + std::to_string(cols) + ", " + std::to_string(cx.threads) + ", " +
                         std::to_string(dim) + ", " + reduce_op_name(n.reduce_kind) + ", " + cuda_bool(n.clear) +
                         (sl->vec > 1 ? ", " + std::to_string(sl->vec) : std::string()) + ">";
        return device_call(fn,
                           {buffer_addr(cx.local_of(n.src), {int_imm(0)}, false, n.span), buffer_addr(cx.local_of(n.dst), {int_imm(0)}, true, n.span),
                            buffer_addr(cx.scratch, {int_imm(0)}, true, n.span), cx.tid},
                           n.span);
    }
    if (sl && sl->kind == FragLayout::Col && rank == 1 && dl && dl->kind == FragLayout::Replicated && types_ok && cx.one_dim_block) {
        // A column vector (the result of a dim=0 reduction) reduced to one value.
        Expr scr = sl->warps_m * sl->warps_n > 1 ? buffer_addr(cx.scratch, {int_imm(0)}, true, n.span)
                                                 : make_call("tp.null", {}, DataType(DataType::Handle, 64), n.span);
        std::string fn = "tp::reduce_col_vector<" + sl->acc_type() + ", " + reduce_op_name(n.reduce_kind) + ", " + cuda_bool(n.clear) + ">";
        return device_call(
            fn,
            {buffer_addr(cx.local_of(n.src), {int_imm(0)}, false, n.span), buffer_addr(cx.local_of(n.dst), {int_imm(0)}, true, n.span), scr, cx.tid},
            n.span);
    }
    FragLayout::Kind want = n.dim == 1 ? FragLayout::Row : FragLayout::Col;
    if (!sl || sl->kind != FragLayout::Acc || !dl || dl->kind != want || !types_ok || n.src->shape.size() != 2 || !cx.one_dim_block) {
        cx.fail(std::string("T.reduce_") + reduce_kind_name(n.reduce_kind) + " from a " + n.src->dtype.name() + " " +
                    (sl ? sl->describe() : "non-fragment") + " buffer into a " + n.dst->dtype.name() + " " + (dl ? dl->describe() : "non-fragment") +
                    " buffer",
                n.span);
        return s;
    }
    bool cross = n.dim == 1 ? sl->warps_n > 1 : sl->warps_m > 1;
    Expr scr = cross ? buffer_addr(cx.scratch, {int_imm(0)}, true, n.span) : make_call("tp.null", {}, DataType(DataType::Handle, 64), n.span);
    std::string fn = std::string(n.dim == 1 ? "tp::reduce_rows<" : "tp::reduce_cols<") + sl->acc_type() + ", " + reduce_op_name(n.reduce_kind) +
                     ", " + cuda_bool(n.clear) + ">";
    return device_call(
        fn, {buffer_addr(cx.local_of(n.src), {int_imm(0)}, false, n.span), buffer_addr(cx.local_of(n.dst), {int_imm(0)}, true, n.span), scr, cx.tid},
        n.span);
}

int64_t reduce_scratch(const ReduceOpNode& r, const FragLayout& fl, const FragLayout* dst) {
    if (dst && dst->kind == FragLayout::StripedRow) return 0;  // shuffles only
    if (fl.kind == FragLayout::Striped && r.src->shape.size() == 1) return std::max<int64_t>(1, fl.threads / 32);
    if (fl.kind == FragLayout::Striped && r.src->shape.size() == 2 && r.dim >= 0 && r.dim < 2) {
        int64_t out = *as_const_int(r.src->shape[r.dim == 1 ? 0 : 1]);
        return out * std::max<int64_t>(1, fl.threads / 32);
    }
    if (fl.kind == FragLayout::Col && r.src->shape.size() == 1) return fl.warps_m * fl.warps_n > 1 ? int64_t(fl.warps_m) * fl.warps_n : 0;
    if (fl.kind != FragLayout::Acc) return 0;
    if (r.dim == 1 && fl.warps_n > 1) return int64_t(fl.warps_n) * fl.bm;
    if (r.dim == 0 && fl.warps_m > 1) return int64_t(fl.warps_m) * fl.bn;
    return 0;
}

}  // namespace tp::codegen::cuda
