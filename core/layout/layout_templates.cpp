// The tile templates' shared-memory access patterns, from the formulas the templates run
// (runtime/tp_layout.cuh, included here for the host as the unit tests do): tp::copy_g2s's
// 16-byte chunks (tp::g2s_chunk), tp::GemmSS's ldmatrix row addresses (tp::ldsm_a_coord /
// ldsm_b_coord) with ldmatrix's own delivery rule, and the accumulator stores / loads
// (tp::AccLayout, as transform::FragLayout's IR). Also the evaluator and the access builder.
#include <algorithm>
#include <cstdlib>

#include "layout/layout_internal.h"
#include "transform/fragment_layout.h"

#define TP_HD inline
#include "codegen/cuda/runtime/tp_layout.cuh"

namespace tp::layout {

using namespace ir;

namespace {
int64_t floordiv(int64_t a, int64_t b) { return b == 0 ? 0 : (a / b - ((a % b != 0) && ((a < 0) != (b < 0)))); }
int64_t floormod(int64_t a, int64_t b) { return b == 0 ? 0 : a - floordiv(a, b) * b; }
}  // namespace

int64_t Evaluator::value(const Expr& e, const Env& env) {
    if (!e) return 0;
    if (auto* i = e->as<IntImmNode>()) return i->value;
    if (auto* f = e->as<FloatImmNode>()) return int64_t(f->value);
    if (auto* v = e->as<VarNode>()) {
        auto it = env.find(v);
        if (it != env.end()) return it->second;
        assumed.insert(v->name);
        return 0;
    }
    if (auto* c = e->as<CastNode>()) return value(c->value, env);
    if (auto* s = e->as<SelectNode>()) return value(s->cond, env) ? value(s->true_value, env) : value(s->false_value, env);
    if (auto* u = e->as<UnaryNode>()) {
        int64_t a = value(u->a, env);
        return u->op == UnaryOp::Neg ? -a : (u->op == UnaryOp::Not ? !a : ~a);
    }
    if (auto* l = e->as<BufferLoadNode>()) {  // a T.alloc_var counter: its value is not known here
        assumed.insert(l->buffer->name);
        return 0;
    }
    if (auto* c = e->as<CallNode>()) {
        if (c->op == "if_then_else" && c->args.size() == 3) return value(c->args[0], env) ? value(c->args[1], env) : value(c->args[2], env);
        assumed.insert(c->op + "(...)");
        return 0;
    }
    auto* b = e->as<BinaryNode>();
    if (!b) return 0;
    int64_t x = value(b->a, env), y = value(b->b, env);
    switch (b->op) {
        case BinaryOp::Add:
            return x + y;
        case BinaryOp::Sub:
            return x - y;
        case BinaryOp::Mul:
            return x * y;
        case BinaryOp::Div:
            return y ? x / y : 0;
        case BinaryOp::Mod:
            return y ? x % y : 0;
        case BinaryOp::FloorDiv:
            return floordiv(x, y);
        case BinaryOp::FloorMod:
            return floormod(x, y);
        case BinaryOp::Min:
            return std::min(x, y);
        case BinaryOp::Max:
            return std::max(x, y);
        case BinaryOp::EQ:
            return x == y;
        case BinaryOp::NE:
            return x != y;
        case BinaryOp::LT:
            return x < y;
        case BinaryOp::LE:
            return x <= y;
        case BinaryOp::GT:
            return x > y;
        case BinaryOp::GE:
            return x >= y;
        case BinaryOp::And:
            return x && y;
        case BinaryOp::Or:
            return x || y;
        case BinaryOp::BitAnd:
            return x & y;
        case BinaryOp::BitOr:
            return x | y;
        case BinaryOp::BitXor:
            return x ^ y;
        case BinaryOp::Shl:
            return x << y;
        case BinaryOp::Shr:
            return x >> y;
    }
    return 0;
}

int64_t SharedGeometry::byte(int64_t stage, int64_t row, int64_t col) const {
    stage += floordiv(row, bl->rows);
    row = floormod(row, bl->rows);
    return stage * stage_bytes + bl->byte_offset[size_t(row * bl->cols + col)];
}

AccessBuilder::AccessBuilder(const BufferLayout& bl) {
    a.touch.assign(size_t(bl.rows * bl.cols), LayoutOwner{});
    a.touched.assign(size_t(bl.rows * bl.cols), 0);
}

void AccessBuilder::request(const std::vector<LaneAddress>& lanes) {
    RequestCost c = request_cost(lanes, a.bytes);
    if (c.ideal == 0) return;
    a.degree = std::max(a.degree, c.degree);
    a.requests += 1;
    a.wavefronts += c.wavefronts;
    a.ideal_wavefronts += c.ideal;
}

void AccessBuilder::touch(int64_t row, int64_t col, int thread, int reg, const BufferLayout& bl) {
    row = floormod(row, bl.rows);
    if (col < 0 || col >= bl.cols) return;
    size_t e = size_t(row * bl.cols + col);
    if (a.touched[e]) return;
    a.touched[e] = 1;
    a.touch[e] = LayoutOwner{thread, reg};
}

void AccessBuilder::touch_all() { std::fill(a.touched.begin(), a.touched.end(), uint8_t(1)); }

// "tp::gemm_ss<128, 128, 32, 2, 2, false, false, half_t, true>" -> name and top-level arguments.
std::optional<TemplateCall> parse_template(const std::string& text) {
    TemplateCall t;
    t.text = text;
    size_t lt = text.find('<');
    t.name = text.substr(0, lt);
    if (lt == std::string::npos) return t;
    int depth = 0;
    std::string cur;
    for (size_t i = lt + 1; i < text.size(); ++i) {
        char ch = text[i];
        if (ch == '<') ++depth;
        if (ch == '>' && depth-- == 0) break;
        if (ch == ',' && depth == 0) {
            t.targs.push_back(cur);
            cur.clear();
            continue;
        }
        if (ch != ' ' || !cur.empty()) cur += ch;
    }
    if (!cur.empty()) t.targs.push_back(cur);
    return t;
}

namespace {

int64_t targ(const TemplateCall& c, size_t i, int64_t fallback = 0) {
    if (i >= c.targs.size()) return fallback;
    const std::string& s = c.targs[i];
    if (s == "true") return 1;
    if (s == "false") return 0;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    return end && end != s.c_str() ? v : fallback;
}

int64_t origin_row(const TemplateCall& c) { return c.origin.size() >= 2 ? c.origin[c.origin.size() - 2] : 0; }
int64_t origin_col(const TemplateCall& c) { return c.origin.empty() ? 0 : c.origin.back(); }
// The flattened stage index of the leading dims (one leading dim in every staged tile).
int64_t origin_stage(const TemplateCall& c, const BufferLayout&) { return c.origin.size() >= 3 ? c.origin[c.origin.size() - 3] : 0; }

// tp::copy_g2s / copy_g2s_async / copy_r2s / copy_s2g <ROWS, COLS, THREADS, T, SWIZZLE, ...>:
// chunk idx = tid + it * THREADS is row / chunk column tp::g2s_chunk(idx, COLS / V) of the tile.
enum class ChunkCopy { CpAsync, RegisterStaged, ToGlobal };
LayoutAccess chunk_copy(const TemplateCall& c, const BufferLayout& bl, const SharedGeometry& g, ChunkCopy kind) {
    AccessBuilder b(bl);
    const bool cp_async = kind == ChunkCopy::CpAsync;
    b.a.bytes = 16;
    b.a.write = kind != ChunkCopy::ToGlobal;
    b.a.what = cp_async                            ? "cp.async 16 B store (global -> shared)"
               : kind == ChunkCopy::RegisterStaged ? "st.shared 16 B (register-staged copy)"
                                                   : "ld.shared 16 B (shared -> global copy)";
    const int64_t rows = targ(c, 0), cols = targ(c, 1), threads = targ(c, 2, c.threads);
    const int64_t vec = 16 / bl.elem_bytes, chunks = std::max<int64_t>(1, cols / vec), total = rows * chunks;
    const int64_t iters = threads > 0 ? (total + threads - 1) / threads : 0;
    const int64_t s0 = origin_stage(c, bl), r0 = origin_row(c), c0 = origin_col(c);
    for (int64_t it = 0; it < iters; ++it)
        for (int64_t w = 0; w * 32 < threads; ++w) {
            std::vector<LaneAddress> lanes;
            for (int lane = 0; lane < 32 && w * 32 + lane < threads; ++lane) {
                const int64_t tid = w * 32 + lane, idx = tid + it * threads;
                if (idx >= total) break;
                const RowCol rc = g2s_chunk(int(idx), int(chunks));
                const int64_t row = r0 + rc.row, col = c0 + int64_t(rc.col) * vec;
                if (!g.inside(floormod(row, bl.rows), col)) continue;
                lanes.push_back({lane, g.byte(s0, row, col)});
                for (int64_t k = 0; k < vec; ++k) b.touch(row, col + k, int(tid), -1, bl);
            }
            b.request(lanes);
        }
    if ((cp_async && !targ(c, 5)) || kind == ChunkCopy::ToGlobal)
        b.a.note = "assumes the 16-byte path (rows 16-byte aligned; otherwise element copies run)";
    return b.a;
}

// One ldmatrix.x4 (or .x2: lanes 0-15) whose lane l gives the 16-byte row at `rows[l]`; lane l's
// register m receives row l / 4, elements 2 (l % 4), +1 of matrix m (transposed with .trans:
// column l / 4, rows 2 (l % 4), +1). `reg_of(m, half)` names the operand element a register
// half holds (the PTX ISA's a_i / b_i numbering).
void ldmatrix(AccessBuilder& b, const BufferLayout& bl, const SharedGeometry& g, int64_t stage, int warp, int lanes_used,
              const std::vector<RowCol>& rows, bool trans, const std::function<int(int m, int half)>& reg_of) {
    std::vector<LaneAddress> lanes;
    for (int l = 0; l < lanes_used; ++l) {
        const RowCol p = rows[size_t(l)];
        if (!g.inside(floormod(p.row, bl.rows), p.col)) continue;
        lanes.push_back({l, g.byte(stage, p.row, p.col)});
        const int m = l / 8, sr = l % 8;  // matrix, its stored row
        for (int j = 0; j < 8; ++j) {     // element j of the stored row
            const int dst = trans ? j * 4 + sr / 2 : sr * 4 + j / 2;
            const int half = trans ? sr % 2 : j % 2;
            b.touch(p.row, p.col + j, warp * 32 + dst, reg_of(m, half), bl);
        }
    }
    b.request(lanes);
}

// tp::gemm_ss<BM, BN, BK, WARPS_M, WARPS_N, TRANS_A, TRANS_B, T, SWIZZLE, LDA, COL_A, LDB, COL_B>
// (operand 0: A, 1: B) and tp::gemm_rs<BM, BN, BK, WARPS_M, WARPS_N, TRANS_B, T, FragT,
// SWIZZLE, LDB, COL_B> (B only), as tp::GemmSS::load_a / load_b issue them.
LayoutAccess gemm_operand(const TemplateCall& c, const BufferLayout& bl, const SharedGeometry& g) {
    const bool rs = c.name == "tp::gemm_rs";
    const bool is_a = !rs && c.operand == 0;
    const int bm = int(targ(c, 0)), bn = int(targ(c, 1)), bk = int(targ(c, 2)), wm_n = int(targ(c, 3)), wn_n = int(targ(c, 4));
    const bool trans_a = !rs && targ(c, 5), trans_b = rs ? targ(c, 5) : targ(c, 6);
    const int col_a = rs ? 0 : int(targ(c, 10)), col_b = int(rs ? targ(c, 10) : targ(c, 12));
    AccessBuilder b(bl);
    b.a.bytes = 16;
    const bool trans = is_a ? trans_a : !trans_b;  // B [BK][BN] is read with .trans
    b.a.what = std::string(trans ? "ldmatrix.trans" : "ldmatrix") + " (T.gemm operand " + (is_a ? "A" : "B") + ")";
    if (wm_n <= 0 || wn_n <= 0 || bm % (16 * wm_n) || bn % (8 * wn_n) || bk % 16) {
        b.a.note = "unexpected tile arguments";
        return b.a;
    }
    const int WM = bm / wm_n, WN = bn / wn_n, MT = WM / 16, NT = WN / 8, KT = bk / 16;
    const int64_t stage = origin_stage(c, bl), orow = origin_row(c);
    for (int w = 0; w < wm_n * wn_n; ++w) {
        const int wm = w % wm_n, wn = w / wm_n;
        for (int kk = 0; kk < KT; ++kk) {
            if (is_a) {
                for (int mt = 0; mt < MT; ++mt) {
                    std::vector<RowCol> rows(32);
                    for (int l = 0; l < 32; ++l) {
                        RowCol p = ldsm_a_coord(l, wm * WM, col_a, trans_a ? mt : kk, trans_a);
                        rows[size_t(l)] = RowCol{int(orow) + p.row + 16 * (trans_a ? kk : mt), p.col};
                    }
                    ldmatrix(b, bl, g, stage, w, 32, rows, trans_a, [](int m, int half) { return 2 * m + half; });
                }
                continue;
            }
            for (int np = 0; np < (NT + 1) / 2; ++np) {
                const bool tail = 2 * np + 1 == NT;  // one 8-column tile: .x2, lanes 0-15
                std::vector<RowCol> rows(32);
                for (int l = 0; l < 32; ++l) {
                    RowCol p = ldsm_b_coord(l, wn * WN, col_b, trans_b ? kk : np, NT, trans_b);
                    rows[size_t(l)] = RowCol{int(orow) + p.row + 16 * (trans_b ? np : kk), p.col};
                }
                ldmatrix(b, bl, g, stage, w, tail ? 16 : 32, rows, !trans_b, [](int m, int half) { return 2 * (m % 2) + half; });
            }
        }
    }
    b.a.note = "registers: the PTX ISA's a_i / b_i element index of the mma.m16n8k16 operand fragment";
    return b.a;
}

// tp::frag_store_smem / frag_load_smem(_packed) <tp::AccLayout<BM, BN, WM, WN[, true]>, COLS,
// SWIZZLE>: thread tid moves accumulator element i at (AccLayout::row, col) (pairs of 16-bit
// elements as one 32-bit access), the formulas of transform::FragLayout.
LayoutAccess fragment_copy(const TemplateCall& c, const BufferLayout& bl, const SharedGeometry& g) {
    AccessBuilder b(bl);
    const bool store = c.name == "tp::frag_store_smem", packed = c.name == "tp::frag_load_smem_packed";
    auto acc = c.targs.empty() ? std::nullopt : parse_template(c.targs[0]);
    transform::FragLayout l;
    l.kind = transform::FragLayout::Acc;
    if (acc)
        l.bm = int(targ(*acc, 0)), l.bn = int(targ(*acc, 1)), l.warps_m = int(targ(*acc, 2)), l.warps_n = int(targ(*acc, 3)),
        l.interleave = targ(*acc, 4);
    const bool pairs = (store || packed) && bl.elem_bytes == 2;
    b.a.write = store;
    b.a.bytes = pairs ? 4 : bl.elem_bytes;
    b.a.what =
        std::string(store ? "st.shared " : "ld.shared ") + std::to_string(b.a.bytes) + " B (accumulator " + (store ? "-> shared)" : "<- shared)");
    if (l.bm <= 0 || l.bn <= 0 || l.warps_m <= 0 || l.warps_n <= 0) return b.a;
    auto tid = std::make_shared<VarNode>("tid", DataType::int32()), i = std::make_shared<VarNode>("i", DataType::int32());
    Expr row_e = l.acc_row(tid, i), col_e = l.acc_col(tid, i);
    Evaluator ev;
    const int64_t stage = origin_stage(c, bl), step = pairs ? 2 : 1;
    for (int64_t k = 0; k < l.local_size(); k += step)
        for (int w = 0; w < l.warps_m * l.warps_n; ++w) {
            std::vector<LaneAddress> lanes;
            for (int lane = 0; lane < 32; ++lane) {
                Env env{{tid.get(), w * 32 + lane}, {i.get(), k}};
                int64_t r = ev.value(row_e, env), col = ev.value(col_e, env);
                if (!g.inside(r, col)) continue;
                lanes.push_back({lane, g.byte(stage, r, col)});
                for (int64_t e = 0; e < step; ++e) b.touch(r, col + e, w * 32 + lane, int(k + e), bl);
            }
            b.request(lanes);
        }
    return b.a;
}

}  // namespace

// The template's own SWIZZLE argument against the buffer's layout, which the model addresses
// by (they agree by construction; a disagreement would be a code generator bug worth seeing).
LayoutAccess check_swizzle(LayoutAccess a, const TemplateCall& c, size_t arg, const BufferLayout& bl) {
    if (arg >= c.targs.size()) return a;
    const int64_t templ = targ(c, arg), layout = bl.swizzle.layout == "panels" ? 2 : bl.swizzle.layout == "swizzle" ? 1 : 0;
    if (templ != layout) {
        a.note += std::string(a.note.empty() ? "" : "; ") + "the template's SWIZZLE argument (" + c.targs[arg] +
                  ") disagrees with the buffer's layout (" + (layout ? bl.swizzle.layout : std::string("row-major")) +
                  "), which the addresses here follow";
    }
    return a;
}

std::optional<LayoutAccess> template_access(const TemplateCall& c, const BufferLayout& bl, const SharedGeometry& g) {
    const std::string& n = c.name;
    if (n == "tp::copy_g2s" || n == "tp::copy_g2s_async") return check_swizzle(chunk_copy(c, bl, g, ChunkCopy::CpAsync), c, 4, bl);
    if (n == "tp::copy_r2s") return check_swizzle(chunk_copy(c, bl, g, ChunkCopy::RegisterStaged), c, 4, bl);
    if (n == "tp::copy_s2g") return check_swizzle(chunk_copy(c, bl, g, ChunkCopy::ToGlobal), c, 4, bl);
    if (n == "tp::gemm_ss" && c.operand <= 1) return check_swizzle(gemm_operand(c, bl, g), c, 8, bl);
    if (n == "tp::gemm_rs" && c.operand == 1) return check_swizzle(gemm_operand(c, bl, g), c, 8, bl);
    if (n == "tp::frag_store_smem" || n == "tp::frag_load_smem" || n == "tp::frag_load_smem_packed") return fragment_copy(c, bl, g);
    LayoutAccess a;
    a.touch.assign(size_t(bl.rows * bl.cols), LayoutOwner{});
    a.touched.assign(size_t(bl.rows * bl.cols), 1);
    if (n.rfind("tp::gemm_wgmma", 0) == 0) {
        a.what = "wgmma operand (shared-memory matrix descriptor)";
        a.note =
            "read by the Tensor Cores through the async proxy in the swizzle mode of its descriptor: no per-thread "
            "addresses, no bank conflicts counted";
        return a;
    }
    if (n == "tp::tma_load" || n == "tp::tile_store_tma") {
        a.what = n == "tp::tma_load" ? "TMA load (global -> shared)" : "TMA store (shared -> global)";
        a.write = n == "tp::tma_load";
        a.note = "the TMA unit moves the box in the tensor map's swizzle mode (async proxy): no bank conflicts counted";
        return a;
    }
    return std::nullopt;
}

}  // namespace tp::layout
