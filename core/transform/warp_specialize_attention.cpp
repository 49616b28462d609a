// warp_specialize_attention (see warp_specialize_attention.h): the entry point, which gates on
// the target and the kernel's shape, runs the matcher (warp_specialize_attention_match.cpp) and
// either records why it did not apply or rewrites the kernel into one tp::WsAttention call.
#include "transform/warp_specialize_attention.h"

#include <algorithm>
#include <string>

#include "ir/functor.h"
#include "transform/tile_lowering.h"
#include "transform/warp_specialize_attention_internal.h"

namespace tp::transform {

using namespace ir;
using namespace ws_attention;

namespace {

// The template instance chosen (tests/gpu_kernels/wgmma_fa_test.cu's fastest checked one).
constexpr int64_t kBM = 128, kBN = 128, kConsumers = 2, kStages = 2, kThreads = 128 * (kConsumers + 1);

// A pipelined loop with two gemms: worth a remark when the rest does not match.
bool looks_like_attention(const Stmt& body) {
    struct V : IRVisitor {
        int gemms_in_pipelined = 0, depth = 0;
        void visit_For(const ForNode& n, const Stmt& s) override {
            const bool p = n.for_kind == ForKind::Pipelined;
            depth += p;
            IRVisitor::visit_For(n, s);
            depth -= p;
        }
        void visit_GemmOp(const GemmOpNode&, const Stmt&) override { gemms_in_pipelined += depth > 0; }
    } v;
    v.visit(body);
    return v.gemms_in_pipelined >= 2;
}

const KernelLaunchNode* the_launch(const Stmt& body) {
    Stmt cur = body;
    while (auto* q = cur->as<SeqStmtNode>()) {
        if (q->seq.size() != 1) return nullptr;
        cur = q->seq[0];
    }
    return cur->as<KernelLaunchNode>();
}

}  // namespace

PrimFuncPtr warp_specialize_attention(const PrimFuncPtr& func, const Target& target) {
    if (!target.has_wgmma() || !func || !func->body || !looks_like_attention(func->body)) return func;
    auto out = std::make_shared<PrimFunc>(*func);
    auto skip = [&](const std::string& why) {
        out->attrs["tp.ws_attention"] = "not applied: " + why;
        return out;
    };
    const KernelLaunchNode* kl = the_launch(func->body);
    if (!kl) return skip("the kernel body is not one T.Kernel");
    Matcher m(*func, *kl);
    if (std::string why = m.run(); !why.empty()) return skip(why);
    const Plan& p = m.plan;
    const int64_t bytes = kBM * p.dim * 2 + 2 * kStages * kBN * p.dim * 2 + (2 + 4 * kStages) * 8;
    const int64_t limit = target.max_smem_per_block > 0 ? target.max_smem_per_block : 227 * 1024;
    if (bytes + 1024 > limit) return skip("the template's shared memory exceeds the target's limit");
    const int64_t bh = p.batch * p.heads;
    if (p.seq * p.dim * 2 * bh >= (int64_t(1) << 40) || bh >= (int64_t(1) << 31)) return skip("the tensors exceed TMA's extents");

    // Persistent grid: units are query tiles (causal: pairs of equal cost), at most one block
    // per SM; any count is correct, the SM count only balances the deal. The grid says one
    // block per unit and the launcher caps it at the device's SM count (tp.persistent).
    const int64_t nq = (p.seq + kBM - 1) / kBM, units = (p.causal ? (nq + 1) / 2 : nq) * bh;
    const int64_t programs = units;
    const Span sp = kl->span;
    const std::string causal = cuda_bool(p.causal), T = p.q->dtype.cuda_name();
    const std::string A = "tp::WsAttention<" + T + ", " + std::to_string(p.dim) + ", " + std::to_string(kBN) + ", " +
                          std::to_string(kConsumers) + ", " + std::to_string(kStages) + ", " + causal + ", true, true>";
    const std::string run = "tp::WsAttentionKernel<" + A + ", " + T + ", " + causal + ", true>::run";
    Buffer smem = std::make_shared<BufferNode>("tp_fa_smem", DataType(DataType::UInt, 8), std::vector<Expr>{int_imm(bytes)},
                                               Scope::Shared, sp);
    auto tma = [&](int i) { return make_call("tp.tma_desc", {int_imm(i)}, DataType(DataType::Handle, 64), sp); };
    Stmt call = device_call(run, {buffer_addr(smem, {int_imm(0)}, true, sp), tma(0), tma(1), tma(2),
                                  buffer_addr(p.out, {int_imm(0), int_imm(0), int_imm(0), int_imm(0)}, true, sp),
                                  int_imm(p.seq), int_imm(bh), float_imm(p.scale)},
                            sp);
    Var pid = std::make_shared<VarNode>("tp_pid", DataType::int32(), VarKind::BlockIdx, sp);
    out->body = std::make_shared<KernelLaunchNode>(std::vector<Expr>{int_imm(programs)}, std::vector<Var>{pid},
                                                   std::vector<int64_t>{kThreads}, kl->thread_vars,
                                                   std::make_shared<AllocateNode>(smem, nullptr, call, sp), sp);
    // Q, K, V as [batch * heads, seq, dim] maps; boxes {64, BM or BN, 1} in 128B-swizzle rows.
    auto param = [&](const Buffer& b) {
        for (const auto& pr : func->params)
            if (pr.buffer == b) return pr.name;
        return std::string();
    };
    const std::string view = ":" + std::to_string(bh) + "x" + std::to_string(p.seq) + "x" + std::to_string(p.dim);
    out->attrs["tp.ws"] = "1";
    out->attrs["tp.persistent"] = "1";
    out->attrs["tp.tma_maps"] = param(p.q) + ":64x" + std::to_string(kBM) + "x1:128" + view + ";" + param(p.k) + ":64x" +
                                std::to_string(kBN) + "x1:128" + view + ";" + param(p.v) + ":64x" + std::to_string(kBN) + "x1:128" + view;
    out->attrs["tp.ws_attention"] = A + (p.causal ? " causal" : " full") + ", persistent grid of " + std::to_string(programs) + " units" +
                                    ", scale " + std::to_string(p.scale);
    return out;
}

}  // namespace tp::transform
