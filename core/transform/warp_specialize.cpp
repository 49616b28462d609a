// warp_specialize (see warp_specialize.h): the rewrite of the lowered main loop into the
// tp::WsGemm ring, and the tensor maps codegen reads back. The plan it carries out is made by
// plan_warp_specialized in warp_specialize_plan.cpp; shared helpers in warp_specialize_internal.h.
#include "transform/warp_specialize.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "ir/functor.h"
#include "transform/tile_lowering.h"
#include "transform/warp_specialize_internal.h"

namespace tp::transform {

using namespace ir;

namespace ws_gemm {

std::optional<std::pair<int64_t, int64_t>> shape_2d(const Buffer& b) {
    if (b->shape.size() != 2) return std::nullopt;
    auto r = as_const_int(b->shape[0]), c = as_const_int(b->shape[1]);
    if (!r || !c) return std::nullopt;
    return std::make_pair(*r, *c);
}

}  // namespace ws_gemm

using namespace ws_gemm;

namespace {

constexpr int kProducerRegs = 40, kConsumerRegs = 232;  // 128*40 + 256*232 <= 64K registers

int attr_int(const PrimFunc& f, const std::string& key, int fallback = 0) {
    auto it = f.attrs.find(key);
    return it == f.attrs.end() ? fallback : std::stoi(it->second);
}

struct CopyCall {
    Buffer tile;         // the shared tile written
    const BufferLoadNode* src = nullptr;  // &global[origin]
};

const CallNode* call_of(const Stmt& s) {
    auto* e = s ? s->as<EvaluateNode>() : nullptr;
    return e ? e->value->as<CallNode>() : nullptr;
}
const BufferLoadNode* addr_load(const Expr& e) {
    auto* c = e->as<CallNode>();
    if (!c || (c->op != "tp.addr_r" && c->op != "tp.addr_w") || c->args.empty()) return nullptr;
    return c->args[0]->as<BufferLoadNode>();
}
bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// The consumers' code outside the main loop must be per-thread: no T.Parallel nests left for
// bind-threads (it would deal elements to the producer threads too), no barriers (the producer
// is not there to arrive), no shared memory, no template calls besides fragment <-> global.
struct ConsumerCheck : IRVisitor {
    bool ok = true;
    void visit_For(const ForNode& n, const Stmt& s) override {
        ok &= n.for_kind != ForKind::Parallel && n.for_kind != ForKind::Pipelined;
        IRVisitor::visit_For(n, s);
    }
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        ok &= n.buffer->scope != Scope::Shared;
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        ok &= n.buffer->scope != Scope::Shared;
        IRVisitor::visit_BufferStore(n, s);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        if (n.op == "__syncthreads" || n.op == "tp.call_async") ok = false;
        if (n.op == "tp.call") {
            auto* name = n.args.empty() ? nullptr : n.args[0]->as<StringImmNode>();
            ok &= name && (starts_with(name->value, "tp::frag_store_global<") || starts_with(name->value, "tp::frag_load_global<"));
        }
        IRVisitor::visit_Call(n, e);
    }
    void visit_PrintOp(const PrintOpNode&, const Stmt&) override { ok = false; }
};

struct Persist {
    int64_t gx = 0, gy = 0, programs = 0;
    int panel = 0;  // T.use_swizzle panel (row order), 0 = row-major tile order
    Var bx, by, pid;
};

}  // namespace

PrimFuncPtr warp_specialize(const PrimFuncPtr& func, const Target& target) {
    if (!target.has_wgmma() || !func || !func->attrs.count("tp.ws.consumers")) return func;
    const int consumers = attr_int(*func, "tp.ws.consumers"), S = attr_int(*func, "tp.ws.stages");
    const bool trans_b = attr_int(*func, "tp.ws.trans_b") != 0;
    const int64_t consumer_threads = 128 * consumers;
    std::map<const BufferNode*, Buffer> rebind;  // shared tiles -> their staged ring buffers
    std::vector<TensorMapInfo> maps;
    std::string store_param;  // the tensor the staged TMA epilogue writes, if any
    Expr tid;
    // The thread index the lowering used (layout_inference made sure the launch has one).
    struct FindTid : IRVisitor {
        Expr tid;
        const KernelLaunchNode* launch = nullptr;
        const SwizzleOpNode* swizzle = nullptr;
        void visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
            if (!n.thread_vars.empty()) tid = n.thread_vars[0];
            launch = &n;
            IRVisitor::visit_KernelLaunch(n, s);
        }
        void visit_SwizzleOp(const SwizzleOpNode& n, const Stmt&) override {
            if (n.enable && !swizzle) swizzle = &n;
        }
    } ft;
    ft.visit(func->body);
    if (!ft.tid || !ft.launch) return func;
    tid = ft.tid;
    // Persistent grid: one block per multiprocessor walks the tiles (in T.use_swizzle's panel
    // order), so the producer streams the next tile while the consumers store this one.
    const KernelLaunchNode& kl = *ft.launch;
    std::optional<Persist> persist;
    if (kl.grid.size() == 2 && as_const_int(kl.grid[0]) && as_const_int(kl.grid[1])) {
        Persist ps;
        ps.gx = *as_const_int(kl.grid[0]);
        ps.gy = *as_const_int(kl.grid[1]);
        ps.programs = std::min<int64_t>(ps.gx * ps.gy, target.sm_count > 0 ? target.sm_count : 132);
        ps.panel = ft.swizzle && ft.swizzle->row_order ? ft.swizzle->panel_size : 0;
        ps.bx = kl.block_vars[0];
        ps.by = kl.block_vars[1];
        ps.pid = std::make_shared<VarNode>("tp_pid", DataType::int32(), VarKind::BlockIdx, kl.span);
        if (ps.programs > 0 && ps.programs < ps.gx * ps.gy) persist = ps;
    }
    TopRewriter rw;
    rw.top = [&](const Stmt& top) -> Stmt {
        std::vector<Stmt> stmts;
        flatten_seq(top, stmts);
        size_t at = stmts.size();
        for (size_t i = 0; i < stmts.size(); ++i)
            if (auto* f = stmts[i]->as<ForNode>(); f && f->for_kind == ForKind::Pipelined) at = i;
        if (at == stmts.size()) return nullptr;
        const ForNode& loop = *stmts[at]->as<ForNode>();
        std::vector<Stmt> body;
        flatten_seq(loop.body, body);
        // [copy_g2s, commit, wait<0>] x 2, gemm_ss: what lower_tile_ops and layout_inference made.
        if (body.size() != 7) return nullptr;
        std::vector<CopyCall> copies;
        for (size_t i : {size_t(0), size_t(3)}) {
            auto* c = call_of(body[i]);
            if (!c || !starts_with(device_callee(body[i]), "tp::copy_g2s<") || device_callee(body[i + 1]) != "tp::cp_async_commit" ||
                device_callee(body[i + 2]) != "tp::cp_async_wait<0>" || c->args.size() < 3)
                return nullptr;
            auto *dst = addr_load(c->args[1]), *src = addr_load(c->args[2]);
            if (!dst || !src || src->buffer->scope != Scope::Global || src->indices.size() != 2) return nullptr;
            copies.push_back({dst->buffer, src});
        }
        auto* g = call_of(body[6]);
        if (!g || !starts_with(device_callee(body[6]), "tp::gemm_ss<") || g->args.size() != 4) return nullptr;
        auto *ga = addr_load(g->args[1]), *gb = addr_load(g->args[2]), *gc = addr_load(g->args[3]);
        if (!ga || !gb || !gc || gc->buffer->scope != Scope::Local) return nullptr;
        const CopyCall* ca = copies[0].tile == ga->buffer ? &copies[0] : (copies[1].tile == ga->buffer ? &copies[1] : nullptr);
        const CopyCall* cb = copies[0].tile == gb->buffer ? &copies[0] : (copies[1].tile == gb->buffer ? &copies[1] : nullptr);
        if (!ca || !cb || ca == cb) return nullptr;
        ConsumerCheck check;
        for (size_t i = 0; i < stmts.size(); ++i)
            if (i != at) check.visit(stmts[i]);
        if (!check.ok) return nullptr;
        auto as = shape_2d(ca->tile), bs = shape_2d(cb->tile);
        if (!as || !bs) return nullptr;
        const int64_t bm = as->first, bn = trans_b ? bs->first : bs->second;
        auto param_of = [&](const BufferNode* b) -> std::string {
            for (const auto& p : func->params)
                if (p.buffer.get() == b) return p.name;
            return {};
        };
        std::string pa = param_of(ca->src->buffer.get()), pb = param_of(cb->src->buffer.get());
        if (pa.empty() || pb.empty()) return nullptr;
        maps = {{pa, {64, bm}, 128, {}}, {pb, {64, trans_b ? bn : 64}, 128, {}}};

        // The ring: S stages of each tile (1024-byte aligned by codegen) and 2*S mbarriers.
        Span sp = loop.span;
        auto staged = [&](const Buffer& b) {
            auto nb = std::make_shared<BufferNode>(b->name, b->dtype, std::vector<Expr>{int_imm(S * *as_const_int(b->shape[0])), b->shape[1]},
                                                   Scope::Shared, b->span);
            rebind[b.get()] = nb;
            return Buffer(nb);
        };
        Buffer A = staged(ca->tile), B = staged(cb->tile), C = gc->buffer;
        Buffer bars = std::make_shared<BufferNode>("tp_ws_barriers", DataType::int64(), std::vector<Expr>{int_imm(2 * S)}, Scope::Shared, sp);
        std::string G = "tp::WsGemm<" + ca->tile->dtype.cuda_name() + ", " + std::to_string(bm) + ", " + std::to_string(bn) + ", 64, " +
                        std::to_string(S) + ", " + std::to_string(consumers) + ", false, " + cuda_bool(trans_b) + ">";
        auto addr = [&](const Buffer& b, bool w) {
            std::vector<Expr> zero(b->shape.size(), int_imm(0));
            return buffer_addr(b, zero, w, sp);
        };
        auto tma = [&](int i) { return make_call("tp.tma_desc", {int_imm(i)}, DataType(DataType::Handle, 64), sp); };
        Expr it = make_binary(BinaryOp::Sub, loop.loop_var, loop.min);
        const Expr local_it = it;  // use number within the tile: 0 means no slot to release yet
        auto serial = [&](Stmt b) { return std::make_shared<ForNode>(loop.loop_var, loop.min, loop.extent, ForKind::Serial, b, sp); };
        const auto &ai = ca->src->indices, &bi = cb->src->indices;
        // Ring uses run on across the tiles of a persistent block: use = tile round * k tiles + k.
        Expr round_base = int_imm(0);
        Var tile_i;
        if (persist) {
            if (!as_const_int(loop.extent)) return nullptr;
            tile_i = std::make_shared<VarNode>("tp_tile", DataType::int32(), VarKind::Loop, sp);
            round_base = make_binary(BinaryOp::Mul, tile_i, loop.extent);
            it = make_binary(BinaryOp::Add, round_base, it);
        }
        // Tile t of the persistent walk: its (bx, by) in T.use_swizzle's panel order.
        auto tile_xy = [&](const Expr& t) -> std::pair<Expr, Expr> {
            const Persist& ps = *persist;
            if (ps.panel > 0) {  // tp::rasterize with row order, on the linear tile index
                Expr per = int_imm(int64_t(ps.panel) * ps.gx);
                Expr pn = make_binary(BinaryOp::FloorDiv, t, per), o = make_binary(BinaryOp::FloorMod, t, per);
                Expr rows = make_binary(BinaryOp::Min, make_binary(BinaryOp::Sub, int_imm(ps.gy), make_binary(BinaryOp::Mul, pn, int_imm(ps.panel))),
                                        int_imm(ps.panel));
                return {make_binary(BinaryOp::FloorDiv, o, rows),
                        make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, pn, int_imm(ps.panel)), make_binary(BinaryOp::FloorMod, o, rows))};
            }
            return {make_binary(BinaryOp::FloorMod, t, int_imm(ps.gx)), make_binary(BinaryOp::FloorDiv, t, int_imm(ps.gx))};
        };
        // The block's tiles: pid, pid + programs, ... below gx * gy.
        // The grid is sized at launch from the device's SM count (tp.persistent), so the kernel
        // reads its block count rather than assuming the target table's.
        auto tile_at = [&](const Expr& round) {
            return make_binary(BinaryOp::Add, persist->pid, make_binary(BinaryOp::Mul, round, num_programs(sp)));
        };
        auto tile_count = [&] {
            const Persist& ps = *persist;
            Expr p = num_programs(sp);
            return make_binary(BinaryOp::FloorDiv,
                               make_binary(BinaryOp::Sub, make_binary(BinaryOp::Add, int_imm(ps.gx * ps.gy), make_binary(BinaryOp::Sub, p, int_imm(1))), ps.pid),
                               p);
        };
        auto tiles = [&](Stmt work) -> Stmt {
            if (!persist) return work;
            const Persist& ps = *persist;
            Var t = std::make_shared<VarNode>("tp_t", DataType::int32(), VarKind::Plain, sp);
            auto [x, y] = tile_xy(t);
            Stmt body = std::make_shared<LetStmtNode>(ps.bx, x, std::make_shared<LetStmtNode>(ps.by, y, work, sp), sp);
            body = std::make_shared<LetStmtNode>(t, tile_at(tile_i), body, sp);
            return std::make_shared<ForNode>(tile_i, int_imm(0), tile_count(), ForKind::Serial, body, sp);
        };
        Stmt produce = device_call(G + "::produce", {tma(0), tma(1), addr(A, true), addr(B, true), addr(bars, true), it, ai[1], ai[0], bi[1], bi[0]}, sp);
        Stmt producer = make_seq({device_call("tp::setmaxnreg_dec<" + std::to_string(kProducerRegs) + ">", {}, sp),
                                  std::make_shared<IfThenElseNode>(make_binary(BinaryOp::EQ, tid, int_imm(consumer_threads)), tiles(serial(produce)), nullptr, sp)},
                                 sp);
        std::vector<Stmt> cons;
        for (size_t i = 0; i < at; ++i) cons.push_back(stmts[i]);
        Expr first = make_binary(BinaryOp::EQ, local_it, int_imm(0));
        cons.push_back(serial(device_call(G + "::consume", {addr(A, false), addr(B, false), addr(bars, true), it, first, addr(C, true), tid}, sp)));
        Expr last = make_binary(BinaryOp::Add, round_base, make_binary(BinaryOp::Sub, loop.extent, int_imm(1)));
        cons.push_back(std::make_shared<IfThenElseNode>(make_binary(BinaryOp::GT, loop.extent, int_imm(0)),
                                                        device_call(G + "::finish", {addr(bars, true), last, addr(C, true), tid}, sp), nullptr, sp));
        // The tile's store T.copy(C_local, C[r0, c0]), lowered to frag_store_global, becomes
        // the staged TMA store when the plan made room for it (tp.ws.store_tma).
        Buffer cstage;
        if (attr_int(*func, "tp.ws.store_tma") != 0 && stmts.size() > at + 1) {
            auto* st = call_of(stmts.back());
            const BufferLoadNode *acc = st && st->args.size() == 7 ? addr_load(st->args[1]) : nullptr,
                                 *dst = st && st->args.size() == 7 ? addr_load(st->args[2]) : nullptr;
            std::string pc = dst ? param_of(dst->buffer.get()) : std::string();
            if (acc && acc->buffer == C && dst && dst->indices.size() == 2 && !pc.empty() &&
                starts_with(device_callee(stmts.back()), "tp::frag_store_global<tp::AccLayout<")) {
                // Two 64 x 64 panels per consumer warpgroup (one when BN is 64): WsGemm::kStageElems.
                cstage = std::make_shared<BufferNode>("tp_ws_cstage", dst->buffer->dtype,
                                                      std::vector<Expr>{int_imm(bm * ws_store_buffers(bn)), int_imm(64)}, Scope::Shared, sp);
                maps.push_back({pc, {64, 64}, 128, {}});
                store_param = pc;
                stmts.back() = device_call(G + "::store_tma", {addr(C, false), addr(cstage, true), tma(2), dst->indices[1], dst->indices[0], tid},
                                           stmts.back()->span);
            }
        }
        // The epilogue's vector operands come from shared memory, loaded as the tile starts,
        // when they fit beside the ring (codegen aligns 2-D tiles to 1024 bytes, the rest to 16).
        std::vector<Stmt> epi(stmts.begin() + at + 1, stmts.end()), tile(cons);
        tile.insert(tile.end(), epi.begin(), epi.end());
        auto bytes_of = [](const Buffer& b) {
            int64_t n = b->dtype.bytes();
            for (const auto& d : b->shape) n *= as_const_int(d).value_or(0);
            return n;
        };
        auto tile_bytes = [&](const Buffer& b) { return b ? (bytes_of(b) + 1023) / 1024 * 1024 : 0; };
        // Shared buffers the kernel keeps besides the ring's tiles (allocated but unused ones).
        struct OtherShared : IRVisitor {
            std::set<const BufferNode*> skip;
            std::vector<Buffer> bufs;
            void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
                if (n.buffer->scope == Scope::Shared && !skip.count(n.buffer.get())) bufs.push_back(n.buffer);
                IRVisitor::visit_Allocate(n, s);
            }
        } other;
        other.skip = {ca->tile.get(), cb->tile.get()};
        other.visit(func->body);
        const int64_t limit = target.max_smem_per_block > 0 ? target.max_smem_per_block : 227 * 1024;
        int64_t room = limit - 1024 - tile_bytes(A) - tile_bytes(B) - tile_bytes(cstage) - bytes_of(bars);
        for (const auto& b : other.bufs) room -= b->shape.size() > 1 ? tile_bytes(b) : (bytes_of(b) + 15) / 16 * 16;
        // On a persistent grid the bias added first becomes the accumulator's starting value.
        std::optional<BiasFold> fold;
        if (persist) {
            TileWalk walk;
            auto [x0, y0] = tile_xy(tile_at(int_imm(0)));
            auto [x1, y1] = tile_xy(tile_at(make_binary(BinaryOp::Add, tile_i, int_imm(1))));
            walk.first = {{persist->bx.get(), x0}, {persist->by.get(), y0}};
            walk.next = {{persist->bx.get(), x1}, {persist->by.get(), y1}};
            walk.has_next = make_binary(BinaryOp::LT, make_binary(BinaryOp::Add, tile_i, int_imm(1)), tile_count());
            std::vector<Stmt> pre(cons.begin(), cons.begin() + static_cast<std::ptrdiff_t>(at));
            fold = fold_epilogue_bias(*func, tile, pre, C, epi, tid, consumers, walk, room);
            if (fold) {
                std::copy(fold->pre.begin(), fold->pre.end(), cons.begin());
                cons.push_back(fold->park);
                epi = fold->epilogue;
            }
        }
        auto prefetch = prefetch_epilogue_vectors(*func, tile, epi, tid, consumers, room - (fold ? fold->bytes : 0));
        if (prefetch) {
            cons.push_back(prefetch->park);
            epi = prefetch->epilogue;
        }
        cons.insert(cons.end(), epi.begin(), epi.end());
        Stmt tile_body = make_seq(cons, sp);
        std::vector<std::pair<Var, Expr>> loads;
        if (fold) loads = fold->loads;
        if (prefetch) loads.insert(loads.end(), prefetch->loads.begin(), prefetch->loads.end());
        for (auto l = loads.rbegin(); l != loads.rend(); ++l) tile_body = std::make_shared<LetStmtNode>(l->first, l->second, tile_body, sp);
        Stmt consumer = tiles(tile_body);
        if (fold) consumer = make_seq({fold->prologue, consumer}, sp);
        if (cstage) consumer = make_seq({consumer, device_call(G + "::drain_stores", {tid}, sp)}, sp);
        if (consumers > 1)
            consumer = make_seq({device_call("tp::setmaxnreg_inc<" + std::to_string(kConsumerRegs) + ">", {}, sp), consumer}, sp);
        Stmt branch = std::make_shared<IfThenElseNode>(make_binary(BinaryOp::GE, tid, int_imm(consumer_threads)), producer, consumer, sp);
        Stmt init = device_call(G + "::init", {addr(bars, true), tid}, sp);
        Stmt ws = make_seq({init, branch}, sp);
        if (prefetch)
            for (const auto& v : prefetch->buffers) ws = std::make_shared<AllocateNode>(v, nullptr, ws, sp);
        if (fold) ws = std::make_shared<AllocateNode>(fold->vec, nullptr, ws, sp);
        ws = std::make_shared<AllocateNode>(bars, nullptr, ws, sp);
        return cstage ? std::make_shared<AllocateNode>(cstage, nullptr, ws, sp) : ws;
    };
    rw.relaunch = [&](const KernelLaunchNode& n) {
        KernelLaunchNode k = n;
        k.threads = {consumer_threads + 128};
        if (persist) {
            // At most one block per tile; the launcher caps it at the device's SM count.
            k.grid = {int_imm(persist->gx * persist->gy)};
            k.block_vars = {persist->pid};
        }
        return k;
    };
    auto out = std::make_shared<PrimFunc>(*func);
    out->body = rw.mutate(func->body);
    if (!rw.done) return func;
    out->body = rebind_buffers(out->body, rebind);
    std::ostringstream m;
    for (size_t i = 0; i < maps.size(); ++i)
        m << (i ? ";" : "") << maps[i].param << ":" << maps[i].box[0] << "x" << maps[i].box[1] << ":" << maps[i].swizzle_bytes;
    out->attrs["tp.ws"] = "1";
    if (persist) out->attrs["tp.persistent"] = "1";
    out->attrs["tp.tma_maps"] = m.str();
    if (!store_param.empty()) out->attrs["tp.tma_store_params"] = store_param;
    return out;
}

bool is_warp_specialized(const PrimFunc& func) { return func.attrs.count("tp.ws") != 0; }

std::vector<TensorMapInfo> tensor_maps_of(const PrimFunc& func) {
    std::vector<TensorMapInfo> out;
    auto it = func.attrs.find("tp.tma_maps");
    if (it == func.attrs.end()) return out;
    std::stringstream ss(it->second);
    std::string entry;
    // param:box:swizzle[:view], box and view as AxBxC (innermost first / outermost first)
    auto dims = [](const std::string& t) {
        std::vector<int64_t> v;
        std::stringstream ds(t);
        std::string d;
        while (std::getline(ds, d, 'x')) v.push_back(std::stoll(d));
        return v;
    };
    while (std::getline(ss, entry, ';')) {
        std::vector<std::string> f;
        std::stringstream es(entry);
        std::string part;
        while (std::getline(es, part, ':')) f.push_back(part);
        if (f.size() < 3 || f.size() > 4) continue;
        TensorMapInfo t;
        t.param = f[0];
        t.box = dims(f[1]);
        t.swizzle_bytes = std::stoi(f[2]);
        if (f.size() == 4) t.view = dims(f[3]);
        out.push_back(t);
    }
    return out;
}

}  // namespace tp::transform
