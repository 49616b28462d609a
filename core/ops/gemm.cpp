// The T.gemm op object: access, shapes and the wgmma plan; see gemm.h.
#include "ops/gemm.h"

namespace tp::ops {

using namespace ir;

namespace {

std::optional<std::pair<int64_t, int64_t>> const_2d(const Buffer& b) {
    if (b->shape.size() != 2) return std::nullopt;
    auto r = as_const_int(b->shape[0]), c = as_const_int(b->shape[1]);
    if (!r || !c) return std::nullopt;
    return std::make_pair(*r, *c);
}

bool whole(const BufferRegion& r) {
    if (r.region.size() != r.buffer->shape.size()) return false;
    for (size_t i = 0; i < r.region.size(); ++i) {
        auto mn = as_const_int(r.region[i].min), ext = as_const_int(r.region[i].extent), dim = as_const_int(r.buffer->shape[i]);
        if (!mn || *mn != 0 || !ext || !dim || *ext != *dim) return false;
    }
    return true;
}

bool is_16bit_mma(DataType t) { return t == DataType::float16() || t == DataType::bfloat16(); }
bool is_fp8(DataType t) { return t.code == DataType::Float8E4M3 || t.code == DataType::Float8E5M2; }

// What a shared operand tile with rows of `row_bytes` contiguous bytes needs: the 32B, 64B or
// 128B swizzle of SmemTile rows (code 1), or 128-byte panels for wider tiles (code 2).
int operand_layout(int64_t rows, int64_t row_bytes, std::string& why, const char* name) {
    if (rows % 8 != 0) {
        why = std::string("wgmma reads ") + name + " in 8-row atoms; its tile has " + std::to_string(rows) + " rows";
        return 0;
    }
    if (row_bytes == 32 || row_bytes == 64 || row_bytes == 128) return 1;
    if (row_bytes % 128 == 0) return 2;
    why = std::string("wgmma needs ") + name + "'s rows to be 32, 64 or a multiple of 128 bytes; they are " + std::to_string(row_bytes);
    return 0;
}

// The operand types wgmma takes: f16 x f16 or bf16 x bf16, or any pair of e4m3 / e5m2, into f32.
std::string operand_types_why(const GemmOpNode& g) {
    DataType a = g.A.buffer->dtype, b = g.B.buffer->dtype;
    bool ok = g.C.buffer->dtype == DataType::float32() && ((is_16bit_mma(a) && b == a) || (is_fp8(a) && is_fp8(b)));
    if (ok) return "";
    return "wgmma here takes float16 or bfloat16 operands, or float8 (e4m3, e5m2) ones, with a float32 accumulator; this is " +
           a.name() + " x " + b.name() + " -> " + g.C.buffer->dtype.name();
}

}  // namespace

OpAccess access(const GemmOpNode& g) {
    OpAccess a;
    a.reads = {g.A, g.B};
    if (!g.clear_accum) a.reads.push_back(g.C);
    a.writes.push_back(g.C);
    return a;
}

std::optional<GemmShape> gemm_shape(const GemmOpNode& g, std::string& why) {
    auto a = const_2d(g.A.buffer), b = const_2d(g.B.buffer), c = const_2d(g.C.buffer);
    if (!a || !b || !c || !whole(g.A) || !whole(g.B) || !whole(g.C)) {
        why = "its operands are not whole 2-D tiles of constant shape";
        return std::nullopt;
    }
    GemmShape s;
    s.m = c->first;
    s.n = c->second;
    s.k = g.transpose_A ? a->first : a->second;
    s.a_rows = a->first, s.a_cols = a->second;
    s.b_rows = b->first, s.b_cols = b->second;
    int64_t am = g.transpose_A ? a->second : a->first;
    int64_t bk = g.transpose_B ? b->second : b->first, bn = g.transpose_B ? b->first : b->second;
    if (am != s.m || bk != s.k || bn != s.n) {
        why = "A, B and C do not form a matrix product";
        return std::nullopt;
    }
    return s;
}

WgmmaPlan plan_wgmma(const GemmOpNode& g, const Target& target, int64_t threads) {
    WgmmaPlan p;
    auto fail = [&](std::string why) {
        p.ok = false;
        p.why = std::move(why);
        return p;
    };
    if (!target.has_wgmma()) return fail("wgmma needs sm_90a; the target is " + target.name);
    if (std::string why = operand_types_why(g); !why.empty()) return fail(why);
    const bool fp8 = is_fp8(g.A.buffer->dtype);
    const int64_t eb = g.A.buffer->dtype.bytes();
    if (g.B.buffer->scope != Scope::Shared || g.C.buffer->scope != Scope::Fragment)
        return fail("wgmma reads B from shared memory into a fragment accumulator");
    p.rs = g.A.buffer->scope == Scope::Fragment;
    if (!p.rs && g.A.buffer->scope != Scope::Shared) return fail("A is neither in shared memory nor a fragment");
    if (p.rs && g.transpose_A) return fail("A in registers cannot be transposed");
    if (fp8 && p.rs) return fail("fp8 wgmma here reads A from shared memory, not registers");
    if (fp8 && (g.transpose_A || !g.transpose_B))
        return fail("fp8 wgmma reads both operands K-major: A as [M][K] and B as [N][K] (transpose_B=True)");
    std::string why;
    auto s = gemm_shape(g, why);
    if (!s) return fail(why);
    if ((s->k * eb) % 32 != 0) return fail("wgmma steps K by 32 bytes (" + std::to_string(32 / eb) + " elements); K is " + std::to_string(s->k));
    if (threads % 128 != 0) return fail("wgmma runs on whole warpgroups of 128 threads; the block has " + std::to_string(threads));
    // Warpgroups along M first (wgmma's 64-row granularity makes M the natural split), each
    // with as many 64-row blocks as it takes; then along N, at most 256 columns each.
    const int64_t groups = threads / 128;
    int64_t wg_m = 0;
    for (int64_t m = groups; m >= 1 && !wg_m; --m) {
        if (groups % m != 0 || s->m % (64 * m) != 0) continue;
        int64_t wg_n = groups / m;
        if (p.rs && wg_n != 1) continue;
        if (s->n % wg_n == 0 && (s->n / wg_n) % 8 == 0 && s->n / wg_n <= 256) wg_m = m;
    }
    if (!wg_m) {
        if (s->m % 64 != 0) return fail("each warpgroup multiplies blocks of 64 rows; block M is " + std::to_string(s->m));
        return fail("no split of " + std::to_string(groups) + " warpgroup(s) gives each a multiple of 64 rows and 8 to 256 columns of the " +
                    std::to_string(s->m) + "x" + std::to_string(s->n) + " tile" + (p.rs ? " with whole rows of A in registers" : ""));
    }
    p.warps_m = static_cast<int>(4 * wg_m);
    p.warps_n = static_cast<int>(groups / wg_m);
    p.m_blocks = static_cast<int>(s->m / (64 * wg_m));
    p.wn = s->n / p.warps_n;
    if (p.rs && p.warps_n != 1) return fail("A in registers needs every warp to own whole rows of C (one warpgroup column)");
    if (!p.rs) {
        p.a_swizzle = operand_layout(s->a_rows, s->a_cols * eb, why, "A");
        if (!p.a_swizzle) return fail(why);
    }
    p.b_swizzle = operand_layout(s->b_rows, s->b_cols * eb, why, "B");
    if (!p.b_swizzle) return fail(why);
    // N-major B: each warpgroup starts its columns at a panel (or the tile's only one).
    if (!g.transpose_B && p.warps_n > 1 && (s->b_cols < 64 || p.wn % 64 != 0))
        return fail("warpgroups split B's columns at " + std::to_string(p.wn) + ", not at its 64-element panels");
    p.ok = true;
    return p;
}

int smem_layout_code(const Buffer& b) { return b->layout == "panels" ? 2 : b->layout == "swizzle" ? 1 : 0; }

std::string smem_layout_arg(const Buffer& b) {
    int c = smem_layout_code(b);
    return c == 2 ? "2" : c == 1 ? "true" : "false";
}

}  // namespace tp::ops
