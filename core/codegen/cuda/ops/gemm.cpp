// T.gemm in CUDA (see lower_op.h), on a fragment accumulator: on sm_90a the wgmma issue and
// wait of a gemm ops::plan_wgmma accepted; fp8 operands on mma.sync m16n8k32 (sm_89+); else
// mma.sync over shared A and B (tp::gemm_ss, swizzled tiles where both are) or A in registers
// (tp::gemm_rs). The warp partition is the accumulator's layout, which layout_inference chose.
#include "codegen/cuda/ops/lower_op.h"
#include "transform/tile_lowering.h"

namespace tp::codegen::cuda {

using namespace ir;
using namespace transform;

namespace {

bool mma_dtype(DataType t) { return t == DataType::float16() || t == DataType::bfloat16(); }
bool fp8_dtype(DataType t) { return t.code == DataType::Float8E4M3 || t.code == DataType::Float8E5M2; }

// sm_90a: one warpgroup-wide wgmma per warpgroup, 64-row block and k16 step (tp::gemm_wgmma_ss
// / _rs), on the partition and tile layouts ops::plan_wgmma chose and layout_inference applied.
// Two statements: the issue (tp.async_call), which commits one wgmma group, and its wait
// (tp.async_wait), which names everything the group still reads or writes: the accumulator,
// the packed A registers (RS) or the A tile (SS), and the B tile. wgmma_waits moves the wait
// as late as those allow.
Stmt wgmma_gemm(const GemmOpNode& n, const ops::WgmmaPlan& p, const FragLayout& cl, FragmentLowering& cx) {
    if (cl.warps_m != p.warps_m || cl.warps_n != p.warps_n || cl.interleave != (p.m_blocks > 1)) {
        cx.fail("T.gemm whose accumulator has another layout than its wgmma plan (" + cl.describe() + ")", n.span);
        return nullptr;
    }
    std::string why;
    auto shape = ops::gemm_shape(n, why);
    std::string T = n.A.buffer->dtype.cuda_name();
    Buffer b = cx.local_of(n.B.buffer), c = cx.local_of(n.C.buffer);
    std::string dims = std::to_string(shape->m) + ", " + std::to_string(shape->n) + ", " + std::to_string(shape->k) + ", " +
                       std::to_string(p.warps_m) + ", " + std::to_string(p.warps_n) + ", ";
    std::vector<Stmt> out;
    // clear_accum: the first k step overwrites the accumulator (scale-d = 0).
    const std::string zero = n.clear_accum ? ", true>" : ">";
    Expr caddr = buffer_addr(c, {int_imm(0)}, true, n.span), baddr = buffer_addr(b, {int_imm(0), int_imm(0)}, false, n.span);
    std::vector<Expr> args, in_flight = {caddr, baddr};
    std::string fn;
    if (p.rs && cx.packed.count(n.A.buffer.get())) {
        fn = "tp::gemm_wgmma_rs_packed<" + dims + cuda_bool(n.transpose_B) + ", " + T + zero;
        Expr aaddr = buffer_addr(cx.local_of(n.A.buffer), {int_imm(0)}, false, n.span);
        args = {aaddr, baddr, caddr, cx.tid};
        in_flight.push_back(aaddr);
    } else if (p.rs) {
        // A packed into operand registers by a statement of its own before the issue: a group
        // still in flight reads the registers the previous packing left there, so the passes
        // that move waits (wgmma-waits, the producer/consumer loop tail) must see this write
        // and wait before it. Packed inside the issue, it was invisible to them, and a loop
        // that repacked A every iteration overwrote the operand of the group still running.
        auto packed = std::make_shared<BufferNode>("tp_packed", DataType(DataType::UInt, 32),
                                                   std::vector<Expr>{int_imm(p.m_blocks * shape->k / 4)}, Scope::Local, n.span);
        cx.packed_operands.push_back(packed);
        out.push_back(device_call(
            "tp::frag_pack_operand<" + std::to_string(p.m_blocks * shape->k / 2) + ", " + T + ">",
            {buffer_addr(cx.local_of(n.A.buffer), {int_imm(0)}, false, n.span), buffer_addr(packed, {int_imm(0)}, true, n.span)}, n.span));
        fn = "tp::gemm_wgmma_rs_packed<" + dims + cuda_bool(n.transpose_B) + ", " + T + zero;
        Expr paddr = buffer_addr(packed, {int_imm(0)}, false, n.span);
        args = {paddr, baddr, caddr, cx.tid};
        in_flight.push_back(paddr);
    } else {
        // fp8 operands of two formats name B's type after ZERO.
        const std::string TB = n.B.buffer->dtype.cuda_name();
        const std::string tail = TB == T ? zero : std::string(", ") + cuda_bool(n.clear_accum) + ", " + TB + ">";
        fn = "tp::gemm_wgmma_ss<" + dims + cuda_bool(n.transpose_A) + ", " + cuda_bool(n.transpose_B) + ", " + T + tail;
        Expr aaddr = buffer_addr(cx.local_of(n.A.buffer), {int_imm(0), int_imm(0)}, false, n.span);
        args = {aaddr, baddr, caddr, cx.tid};
        in_flight.push_back(aaddr);
    }
    args.insert(args.begin(), std::make_shared<StringImmNode>(fn, n.span));
    // Whether the issue fences the shared operands' generic-proxy writes: yes until a pass that
    // knows only TMA writes them (producer_consumer) says otherwise.
    args.push_back(make_call("tp.proxy_fence", {int_imm(1)}, DataType::int32(), n.span));
    out.push_back(std::make_shared<EvaluateNode>(make_call("tp.async_call", args, DataType::void_(), n.span), n.span));
    in_flight.insert(in_flight.begin(), int_imm(0));
    out.push_back(std::make_shared<EvaluateNode>(make_call("tp.async_wait", in_flight, DataType::void_(), n.span), n.span));
    return make_seq(out, n.span);
}

// fp8 on mma.sync (sm_89+; check_resources rejects older targets): m16n8k32 on the 16-bit
// view of K-major tiles (tp::gemm_ss_fp8), so A must be [M][K] in shared memory and B [N][K].
Stmt fp8_gemm(const GemmOpNode& n, const FragLayout& cl, const Stmt& s, FragmentLowering& cx) {
    if (n.A.buffer->scope != Scope::Shared || n.B.buffer->scope != Scope::Shared || n.transpose_A || !n.transpose_B) {
        cx.fail("fp8 T.gemm other than A [M][K] and B [N][K] (transpose_B=True) in shared memory: fp8 Tensor Cores read both "
             "operands K-major",
             n.span);
        return s;
    }
    std::string why;
    auto shape = ops::gemm_shape(n, why);
    if (!shape || shape->k % 32 != 0 || !cx.one_dim_block) {
        cx.fail(shape ? "fp8 T.gemm with K = " + std::to_string(shape->k) + ", not a multiple of 32" : "fp8 T.gemm: " + why, n.span);
        return s;
    }
    Buffer a = cx.local_of(n.A.buffer), b = cx.local_of(n.B.buffer), c = cx.local_of(n.C.buffer);
    const bool sw = a->layout == "swizzle" && b->layout == "swizzle";
    std::string fn = "tp::gemm_ss_fp8<" + std::to_string(cl.bm) + ", " + std::to_string(cl.bn) + ", " + std::to_string(shape->k) + ", " +
                     std::to_string(cl.warps_m) + ", " + std::to_string(cl.warps_n) + ", " + n.A.buffer->dtype.cuda_name() + ", " +
                     n.B.buffer->dtype.cuda_name() + ", " + cuda_bool(sw) + ">";
    std::vector<Stmt> out;
    if (n.clear_accum)
        out.push_back(cx.local_loop(cl.local_size(), "tp_f", [&](const Expr& i) -> Stmt {
            return std::make_shared<BufferStoreNode>(c, std::vector<Expr>{i}, float_imm(0.0), n.span);
        }, n.span));
    out.push_back(device_call(fn, {buffer_addr(a, {int_imm(0), int_imm(0)}, false, n.span), buffer_addr(b, {int_imm(0), int_imm(0)}, false, n.span),
                                   buffer_addr(c, {int_imm(0)}, true, n.span)},
                              n.span));
    return make_seq(out, n.span);
}

// A shared operand tile: the buffer itself, one stage of a staged buffer (`A_s[k % stages, :, :]`:
// leading dims indexed, whose rows are laid out as a 2-D tile's: tp::SmemTile swizzles the last
// two dims only), or a column slice of either (`Q_s[:, 0:D]`: whole rows, columns [col, col + n)
// of each). `origin` indexes the first element of the tile's rows; `pitch` is the stored row
// length. A slice starts at a multiple of 8 columns, as ldmatrix reads 16-byte row pieces.
struct SharedTile {
    std::vector<Expr> origin;
    int64_t pitch = 0, col = 0, cols = 0;
    bool sliced() const { return col != 0 || cols != pitch; }
};

std::optional<SharedTile> shared_tile(const BufferRegion& r) {
    const size_t rank = r.buffer->shape.size();
    if (rank < 2 || r.region.size() != rank) return std::nullopt;
    SharedTile t;
    for (size_t i = 0; i + 2 < rank; ++i) {
        if (as_const_int(r.region[i].extent) != 1) return std::nullopt;
        t.origin.push_back(r.region[i].min);
    }
    auto rows = as_const_int(r.region[rank - 2].extent), row_dim = as_const_int(r.buffer->shape[rank - 2]);
    if (as_const_int(r.region[rank - 2].min) != 0 || !rows || !row_dim || *rows != *row_dim) return std::nullopt;
    auto col = as_const_int(r.region[rank - 1].min), cols = as_const_int(r.region[rank - 1].extent);
    auto pitch = as_const_int(r.buffer->shape[rank - 1]);
    if (!col || !cols || !pitch || *col < 0 || *col + *cols > *pitch) return std::nullopt;
    t.pitch = *pitch, t.col = *col, t.cols = *cols;
    if (t.sliced() && t.col % 8 != 0) return std::nullopt;
    t.origin.push_back(int_imm(0));
    t.origin.push_back(int_imm(0));
    return t;
}

// The template arguments that place a sliced tile in its buffer (tp::MmaTile's LD and COL), or
// nothing for a whole tile.
std::string slice_args(const SharedTile& t) { return t.sliced() ? std::to_string(t.pitch) + ", " + std::to_string(t.col) : "0, 0"; }

}  // namespace

Stmt lower_gemm(const GemmOpNode& n, const Stmt& s, FragmentLowering& cx) {
    const FragLayout* cl = n.C.buffer->scope == Scope::Fragment ? cx.layout_of(n.C.buffer) : nullptr;
    if (!cl || cl->kind != FragLayout::Acc) {
        cx.fail("T.gemm into a " + std::string(scope_name(n.C.buffer->scope)) + " buffer", n.span);
        return s;
    }
    if (auto w = cx.wgmma.find(&n); w != cx.wgmma.end()) {
        Stmt st = wgmma_gemm(n, w->second, *cl, cx);
        return st ? st : s;
    }
    DataType t = n.A.buffer->dtype;
    if (fp8_dtype(t) && fp8_dtype(n.B.buffer->dtype) && n.C.buffer->dtype == DataType::float32()) return fp8_gemm(n, *cl, s, cx);
    if (!mma_dtype(t) || n.B.buffer->dtype != t || n.C.buffer->dtype != DataType::float32()) {
        cx.fail("T.gemm on " + t.name() + " x " + n.B.buffer->dtype.name() + " -> " + n.C.buffer->dtype.name(), n.span);
        return s;
    }
    if (!cx.one_dim_block) {
        cx.fail("T.gemm in a kernel with a multi-dimensional thread block", n.span);
        return s;
    }
    const bool a_shared = n.A.buffer->scope == Scope::Shared;
    auto a_tile = a_shared ? shared_tile(n.A) : std::nullopt;
    auto b_tile = n.B.buffer->scope == Scope::Shared ? shared_tile(n.B) : std::nullopt;
    if (n.B.buffer->scope != Scope::Shared) {
        cx.fail("T.gemm with B in " + std::string(scope_name(n.B.buffer->scope)) + " memory (mma.sync reads B from shared memory)", n.span);
        return s;
    }
    if (!b_tile || (a_shared ? !a_tile : !whole_buffer(n.A) || n.A.buffer->shape.size() != 2) || !whole_buffer(n.C)) {
        cx.fail("T.gemm on parts of buffers other than whole rows and a column range starting at a multiple of 8", n.span);
        return s;
    }
    const size_t a_rank = n.A.buffer->shape.size(), b_rank = n.B.buffer->shape.size();
    auto tile_dim = [](const BufferRegion& r, const std::optional<SharedTile>& t, size_t d) {
        return d + 1 == r.buffer->shape.size() && t ? t->cols : *as_const_int(r.buffer->shape[d]);
    };
    int64_t bk = tile_dim(n.A, a_tile, a_rank - 2 + (n.transpose_A ? 0 : 1));
    int64_t bk_b = tile_dim(n.B, b_tile, b_rank - 2 + (n.transpose_B ? 1 : 0));
    if (bk != bk_b || bk % 16 != 0) {
        cx.fail("T.gemm with K = " + std::to_string(bk) + " (A) and " + std::to_string(bk_b) + " (B), not equal multiples of 16", n.span);
        return s;
    }
    std::string T = t.cuda_name();
    Buffer a = cx.local_of(n.A.buffer), b = cx.local_of(n.B.buffer), c = cx.local_of(n.C.buffer);
    std::string dims = std::to_string(cl->bm) + ", " + std::to_string(cl->bn) + ", " + std::to_string(bk) + ", " +
                       std::to_string(cl->warps_m) + ", " + std::to_string(cl->warps_n) + ", ";
    std::vector<Stmt> out;
    if (n.clear_accum)
        out.push_back(cx.local_loop(cl->local_size(), "tp_f", [&](const Expr& i) -> Stmt {
            return std::make_shared<BufferStoreNode>(c, std::vector<Expr>{i}, float_imm(0.0), n.span);
        }, n.span));
    Expr caddr = buffer_addr(c, {int_imm(0)}, true, n.span);
    Expr baddr = buffer_addr(b, b_tile->origin, false, n.span);
    if (a_shared) {
        bool sw = a->layout == "swizzle" && b->layout == "swizzle";
        std::string fn = "tp::gemm_ss<" + dims + cuda_bool(n.transpose_A) + ", " + cuda_bool(n.transpose_B) + ", " + T + ", " + cuda_bool(sw);
        if (a_tile->sliced() || b_tile->sliced()) fn += ", " + slice_args(*a_tile) + ", " + slice_args(*b_tile);
        out.push_back(device_call(fn + ">", {buffer_addr(a, a_tile->origin, false, n.span), baddr, caddr}, n.span));
    } else {
        const FragLayout* al = cx.layout_of(n.A.buffer);
        bool ok = al && al->kind == FragLayout::Acc && !n.transpose_A && cl->warps_n == 1 && al->warps_n == 1 &&
                  al->bm == cl->bm && al->warps_m == cl->warps_m && al->bn == bk;
        if (!ok) {
            cx.fail("T.gemm with A in registers and a warp grid that splits columns (use policy=T.GemmWarpPolicy.FullRow)", n.span);
            return s;
        }
        std::string fn = "tp::gemm_rs<" + dims + cuda_bool(n.transpose_B) + ", " + T + ", " + cx.local_of(n.A.buffer)->dtype.cuda_name() + ", " +
                         cuda_bool(b->layout == "swizzle") + (b_tile->sliced() ? ", " + slice_args(*b_tile) : "") + ">";
        out.push_back(device_call(fn, {buffer_addr(cx.local_of(n.A.buffer), {int_imm(0)}, false, n.span), baddr, caddr}, n.span));
    }
    return make_seq(out, n.span);
}

}  // namespace tp::codegen::cuda
