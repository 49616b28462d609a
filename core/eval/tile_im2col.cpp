// T.im2col (and its deprecated name T.c2d_im2col): the column tile of a 2-D convolution read
// from an NHWC image. It is staged as TileLang lowers it wherever it does not use a TMA im2col
// descriptor (src/op/copy.cc, LowerIm2ColSIMT): a T.Parallel nest over the tile's last two dims
// in which element (i, j) is pixel m = nhw_step * rows + i of the output and k = c_step * cols + j
// of the (kh, kw, c) reduction, read from the image where that tap lies inside it and 0 in the
// padding. Every later pass and the interpreter see an ordinary element loop.
#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

ir::Expr bin(ir::BinaryOp op, const ir::Expr& a, const ir::Expr& b) { return ir::make_binary(op, a, b); }

Value im2col(Evaluator& ev, CallArgs& a, const char* fname) {
    take_keyword(a, "eviction_policy");  // a cache hint of the TMA form; an element copy has none
    take_keyword(a, "annotations");
    ArgReader rd(ev, a, fname, {"img", "col", "nhw_step", "c_step", "kernel", "stride", "dilation", "pad"});
    require_kernel(ev, fname, a.span);
    ir::Buffer img = ev.as_buffer(rd.require(0), rd.span(0), fname);
    if (img->shape.size() != 4)
        ev.fail(
            DiagKind::ShapeMismatch, rd.span(0),
            {"`" + std::string(fname) + "` reads an NHWC image of rank 4, and `" + img->name + "` has rank " + std::to_string(img->shape.size())});
    ir::BufferRegion col = complete_region(ev, as_region(ev, rd.require(1), rd.span(1), fname), nullptr, rd.span(1));
    if (col.region.size() < 2)
        ev.fail(DiagKind::ShapeMismatch, rd.span(1),
                {"`" + std::string(fname) + "` writes a tile of rank 2 or more, and `" + col.buffer->name + "` has rank 1"});
    if (!(col.buffer->dtype == img->dtype))
        ev.fail(DiagKind::TypeMismatch, rd.span(1),
                {"`" + std::string(fname) + "` copies `" + img->name + "` (" + img->dtype.name() + ") into `" + col.buffer->name + "` (" +
                 col.buffer->dtype.name() + "); the two need the same dtype"});
    ir::Expr nhw_step = ev.to_expr(rd.require(2), rd.span(2), "nhw_step"), c_step = ev.to_expr(rd.require(3), rd.span(3), "c_step");
    ir::Expr kernel = ev.to_expr(rd.require(4), rd.span(4), "kernel"), stride = ev.to_expr(rd.require(5), rd.span(5), "stride");
    ir::Expr dilation = ev.to_expr(rd.require(6), rd.span(6), "dilation"), pad = ev.to_expr(rd.require(7), rd.span(7), "pad");
    using Op = ir::BinaryOp;
    const Span sp = a.span;
    const size_t nd = col.region.size();
    const ir::Expr rows = col.region[nd - 2].extent, cols = col.region[nd - 1].extent;
    const ir::Expr h = img->shape[1], w = img->shape[2], c = img->shape[3];
    const ir::Expr one = ir::int_imm(1), two = ir::int_imm(2);
    // The output's height and width: (H + 2 pad - (kernel - 1) dilation - 1) / stride + 1.
    auto out_dim = [&](const ir::Expr& in) {
        ir::Expr span_k = bin(Op::Add, bin(Op::Mul, bin(Op::Sub, kernel, one), dilation), one);
        return bin(Op::Add, bin(Op::FloorDiv, bin(Op::Sub, bin(Op::Add, in, bin(Op::Mul, two, pad)), span_k), stride), one);
    };
    const ir::Expr out_h = out_dim(h), out_w = out_dim(w), out_hw = bin(Op::Mul, out_h, out_w);
    auto i = std::make_shared<ir::VarNode>("tp_i", ir::DataType::int32(), ir::VarKind::Loop, sp);
    auto j = std::make_shared<ir::VarNode>("tp_j", ir::DataType::int32(), ir::VarKind::Loop, sp);
    const ir::Expr m = bin(Op::Add, bin(Op::Mul, nhw_step, rows), i), k = bin(Op::Add, bin(Op::Mul, c_step, cols), j);
    const ir::Expr ih = bin(Op::Sub,
                            bin(Op::Add, bin(Op::Mul, bin(Op::FloorDiv, bin(Op::FloorMod, m, out_hw), out_w), stride),
                                bin(Op::Mul, bin(Op::FloorDiv, k, bin(Op::Mul, kernel, c)), dilation)),
                            pad);
    const ir::Expr iw = bin(
        Op::Sub,
        bin(Op::Add, bin(Op::Mul, bin(Op::FloorMod, m, out_w), stride), bin(Op::Mul, bin(Op::FloorMod, bin(Op::FloorDiv, k, c), kernel), dilation)),
        pad);
    const ir::Expr zero = ir::int_imm(0);
    const ir::Expr inside =
        bin(Op::And, bin(Op::And, bin(Op::GE, ih, zero), bin(Op::GE, iw, zero)), bin(Op::And, bin(Op::LT, ih, h), bin(Op::LT, iw, w)));
    ir::Buffer src = img;
    std::vector<ir::Expr> at = {bin(Op::FloorDiv, m, out_hw), ih, iw, bin(Op::FloorMod, k, c)};
    view_element(ev, src, at);
    const ir::DataType t = img->dtype;
    ir::Expr pad_value = t.is_float() ? ir::float_imm(0, t, sp) : ir::int_imm(0, t, sp);
    ir::Expr value = ir::make_select(inside, std::make_shared<ir::BufferLoadNode>(src, at, sp), pad_value, sp);
    std::vector<ir::Expr> to;
    for (size_t d = 0; d < nd; ++d)
        to.push_back(d == nd - 2 ? bin(Op::Add, col.region[d].min, i) : d == nd - 1 ? bin(Op::Add, col.region[d].min, j) : col.region[d].min);
    ir::Buffer dst = col.buffer;
    view_element(ev, dst, to);
    ir::Stmt body = std::make_shared<ir::BufferStoreNode>(dst, to, value, sp);
    body = std::make_shared<ir::ForNode>(j, ir::int_imm(0), cols, ir::ForKind::Parallel, body, sp);
    body = std::make_shared<ir::ForNode>(i, ir::int_imm(0), rows, ir::ForKind::Parallel, body, sp);
    ev.stager.emit(body);
    return Value::none();
}

}  // namespace

void register_tile_im2col(std::vector<TileBuiltin>& r) {
    const std::string args = "(img, col, nhw_step, c_step, kernel, stride, dilation, pad)";
    const char* doc = "the im2col tile of a 2-D convolution (NHWC image, zero padding) written into col";
    r.push_back({{"im2col", "T.im2col" + args, doc, "memory"}, [](Evaluator& ev, CallArgs& a) { return im2col(ev, a, "T.im2col"); }});
    r.push_back({{"c2d_im2col", "T.c2d_im2col" + args, "deprecated name of T.im2col", "memory"},
                 [](Evaluator& ev, CallArgs& a) { return im2col(ev, a, "T.c2d_im2col"); }});
}

}  // namespace tp::eval
