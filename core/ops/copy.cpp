// The T.copy op object: the TMA plan of a global -> shared tile copy; see copy.h.
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

}  // namespace

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
    const size_t rank = g->shape.size();
    if (rank == 0 || rank > 5 || c.src.region.size() != rank) return fail("TMA describes tensors of rank 1 to 5");
    auto last = as_const_int(g->shape.back());
    if (rank > 1 && (!last || (*last * eb) % 16 != 0))
        return fail("the rows of `" + g->name + "` are not known to be whole 16-byte units");
    for (const auto& d : g->shape)
        if (auto k = as_const_int(d); k && *k >= (int64_t(1) << 31)) return fail("a dimension of `" + g->name + "` exceeds 2^31");
    // The region's non-unit extents pair with the tile's rows and columns, columns innermost.
    std::vector<int64_t> ext(rank);
    std::vector<size_t> non_unit;
    for (size_t i = 0; i < rank; ++i) {
        auto e = as_const_int(c.src.region[i].extent);
        if (!e) return fail("the source region's extents are not constant");
        ext[i] = *e;
        if (*e != 1) non_unit.push_back(i);
    }
    size_t row_dim = rank;
    if (p.cols < 2 || non_unit.empty() || non_unit.back() != rank - 1 || ext[rank - 1] != p.cols)
        return fail("the tile's columns are not the tensor's contiguous dimension");
    if (p.rows > 1) {
        if (non_unit.size() != 2 || ext[non_unit[0]] != p.rows) return fail("the region does not pair with the tile's rows and columns");
        row_dim = non_unit[0];
    } else if (non_unit.size() != 1) {
        return fail("the region does not pair with the tile's row");
    }
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

std::string tensor_map_key(const std::string& param, const TmaLoadPlan& p) {
    std::ostringstream k;
    k << param << ":";
    for (size_t i = 0; i < p.box.size(); ++i) k << (i ? "x" : "") << p.box[i];
    k << ":" << p.swizzle_bytes;
    return k.str();
}

}  // namespace tp::ops
