// The T.copy op object: its access and the TMA plans of its tile loads and stores; see copy.h.
#include "ops/copy.h"

#include <sstream>

namespace tp::ops {

using namespace ir;

namespace {

// The shared tile's (rows, cols): a whole 2-D buffer, or a 1-D one as one row.
bool tile_shape(const BufferRegion& dst, int64_t& rows, int64_t& cols) {
    const Buffer& b = dst.buffer;
    if (b->shape.empty() || b->shape.size() > 2 || dst.region.size() != b->shape.size()) return false;
    std::vector<int64_t> s;
    for (size_t i = 0; i < b->shape.size(); ++i) {
        auto d = as_const_int(b->shape[i]), mn = as_const_int(dst.region[i].min), ext = as_const_int(dst.region[i].extent);
        if (!d || !mn || *mn != 0 || !ext || *ext != *d) return false;
        s.push_back(*d);
    }
    rows = s.size() == 2 ? s[0] : 1;
    cols = s.back();
    return true;
}

// TMA writes the layouts whose rows it can swizzle: tp::SmemTile's swizzled rows of 32, 64
// or 128 bytes, its 128-byte panels, or plain rows.
bool layout_swizzle(const Buffer& tile, int64_t cols, TmaLoadPlan& p) {
    const int64_t bytes = tile->dtype.bytes(), row_bytes = cols * bytes;
    if (tile->layout == "panels" && row_bytes > 128) {
        if (row_bytes % 128 != 0) return false;
        p.swizzle_bytes = 128;
        p.box_cols = 128 / bytes;
    } else if (tile->layout == "swizzle" || tile->layout == "panels") {
        // SmemTile swizzles rows of 2, 4 or 8 chunks as TMA does; one chunk is not swizzled.
        if (row_bytes != 16 && row_bytes != 32 && row_bytes != 64 && row_bytes != 128) return false;
        p.swizzle_bytes = row_bytes == 16 ? 0 : static_cast<int>(row_bytes);
        p.box_cols = cols;
    } else if (tile->layout.empty()) {
        p.swizzle_bytes = 0;
        p.box_cols = cols;
    } else {
        return false;
    }
    p.boxes = cols / p.box_cols;
    return true;
}

// The global region's non-unit extents paired with a rows x cols tile, columns innermost:
// the region's dimension the rows run along (rank when the tile is one row), or why not.
bool pair_region(const BufferRegion& g, int64_t rows, int64_t cols, size_t& row_dim, std::string& why) {
    const size_t rank = g.buffer->shape.size();
    std::vector<int64_t> ext(rank);
    std::vector<size_t> non_unit;
    for (size_t i = 0; i < rank; ++i) {
        auto e = as_const_int(g.region[i].extent);
        if (!e) {
            why = "the global region's extents are not constant";
            return false;
        }
        ext[i] = *e;
        if (*e != 1) non_unit.push_back(i);
    }
    row_dim = rank;
    if (cols < 2 || non_unit.empty() || non_unit.back() != rank - 1 || ext[rank - 1] != cols) {
        why = "the tile's columns are not the tensor's contiguous dimension";
        return false;
    }
    if (rows > 1) {
        if (non_unit.size() != 2 || ext[non_unit[0]] != rows) {
            why = "the region does not pair with the tile's rows and columns";
            return false;
        }
        row_dim = non_unit[0];
    } else if (non_unit.size() != 1) {
        why = "the region does not pair with the tile's row";
        return false;
    }
    return true;
}

// What TMA asks of the global tensor: rank 1-5, rows of whole 16-byte units, dims below 2^31.
std::string tensor_why(const Buffer& g, size_t region_rank) {
    const size_t rank = g->shape.size();
    if (rank == 0 || rank > 5 || region_rank != rank) return "TMA describes tensors of rank 1 to 5";
    auto last = as_const_int(g->shape.back());
    if (rank > 1 && (!last || (*last * g->dtype.bytes()) % 16 != 0))
        return "the rows of `" + g->name + "` are not known to be whole 16-byte units";
    for (const auto& d : g->shape)
        if (auto k = as_const_int(d); k && *k >= (int64_t(1) << 31)) return "a dimension of `" + g->name + "` exceeds 2^31";
    return "";
}

}  // namespace

OpAccess access(const CopyOpNode& c) {
    OpAccess a;
    a.reads.push_back(c.src);
    a.writes.push_back(c.dst);
    // Only loads run stages ahead: the pipelines (cp.async rings, TMA channels) multi-buffer
    // global -> shared copies, and TileLang keeps one copy of a tile the loop body fills from
    // registers (attention's P tile), written and read in the same stage.
    a.stage_producer = c.src.buffer->scope == ir::Scope::Global;
    return a;
}

TmaStorePlan plan_tma_store(const CopyOpNode& c, const Target& target, int64_t rows, int64_t cols) {
    TmaStorePlan p;
    auto fail = [&](std::string why) {
        p.ok = false;
        p.why = std::move(why);
        return p;
    };
    if (!target.has_tma()) return fail("TMA needs sm_90; the target is " + target.name);
    const Buffer& g = c.dst.buffer;
    if (g->scope != Scope::Global) return fail("TMA stores write global tensors");
    const int64_t eb = g->dtype.bytes();
    if (eb != 2 && eb != 4) return fail("the TMA store here writes 16- or 32-bit elements; `" + g->name + "` is " + g->dtype.name());
    if (std::string why = tensor_why(g, c.dst.region.size()); !why.empty()) return fail(why);
    size_t row_dim = 0;
    std::string why;
    if (!pair_region(c.dst, rows, cols, row_dim, why)) return fail(why);
    p.panel_cols = 128 / eb;
    if (rows % 64 != 0 || cols % p.panel_cols != 0)
        return fail("the tile is not whole 64-row, " + std::to_string(p.panel_cols) + "-column (128-byte) panels");
    const size_t rank = g->shape.size();
    p.box.assign(rank, 1);
    p.box[0] = p.panel_cols;
    if (row_dim < rank) p.box[rank - 1 - row_dim] = 64;
    p.row_coord = static_cast<int>(rank - 1 - row_dim);
    for (size_t i = rank; i-- > 0;) p.coords.push_back(make_cast(DataType::int32(), c.dst.region[i].min));
    p.ok = true;
    return p;
}

TmaLoadPlan plan_tma_load(const CopyOpNode& c, const Target& target) {
    TmaLoadPlan p;
    auto fail = [&](std::string why) {
        p.ok = false;
        p.why = std::move(why);
        return p;
    };
    if (!target.has_tma()) return fail("TMA needs sm_90; the target is " + target.name);
    if (c.disable_tma) return fail("the copy asks for disable_tma");
    const Buffer &g = c.src.buffer, &s = c.dst.buffer;
    if (g->scope != Scope::Global || s->scope != Scope::Shared) return fail("TMA copies global tensors into shared memory");
    if (g->dtype != s->dtype) return fail("TMA does not convert " + g->dtype.name() + " to " + s->dtype.name());
    const int64_t eb = g->dtype.bytes();
    if (eb != 1 && eb != 2 && eb != 4 && eb != 8) return fail("TMA moves elements of 1, 2, 4 or 8 bytes");
    if (!tile_shape(c.dst, p.rows, p.cols)) return fail("the destination is not a whole shared tile of constant shape");
    if (std::string why = tensor_why(g, c.src.region.size()); !why.empty()) return fail(why);
    const size_t rank = g->shape.size();
    size_t row_dim = rank;
    std::string why;
    if (!pair_region(c.src, p.rows, p.cols, row_dim, why)) return fail(why);
    if (p.rows > 256) return fail("a TMA box holds at most 256 rows; the tile has " + std::to_string(p.rows));
    if (!layout_swizzle(s, p.cols, p)) return fail("TMA cannot write the layout `" + s->layout + "` of `" + s->name + "`");
    if ((p.box_cols * eb) % 16 != 0 || p.box_cols > 256) return fail("a TMA box row must be 16 to 256 elements of whole 16-byte units");
    p.box.assign(rank, 1);
    p.box[0] = p.box_cols;
    if (row_dim < rank) p.box[rank - 1 - row_dim] = p.rows;
    for (size_t i = rank; i-- > 0;) p.coords.push_back(make_cast(DataType::int32(), c.src.region[i].min));
    p.bytes = p.rows * p.cols * eb;
    p.ok = true;
    return p;
}

std::string tensor_map_key(const std::string& param, const std::vector<int64_t>& box, int swizzle_bytes) {
    std::ostringstream k;
    k << param << ":";
    for (size_t i = 0; i < box.size(); ++i) k << (i ? "x" : "") << box[i];
    k << ":" << swizzle_bytes;
    return k.str();
}

std::string tensor_map_key(const std::string& param, const TmaLoadPlan& p) { return tensor_map_key(param, p.box, p.swizzle_bytes); }

}  // namespace tp::ops
