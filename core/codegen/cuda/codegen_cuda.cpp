// CUDA C++ for lowered Tile IR: the kernel signature, statements, buffer declarations
// (__shared__ arrays, register arrays), and `#line` directives that keep every generated
// line attributed to its DSL line. Tile ops must have been lowered by the pipeline; any that
// reach this point get NotYetLowered at their line.
#include "codegen/cuda/codegen_cuda.h"

#include <cstdlib>
#include <sstream>

#include "codegen/cuda/codegen_cuda_impl.h"
#include "ir/functor.h"
#include "transform/producer_consumer.h"
#include "transform/shared_budget.h"
#include "transform/shared_reuse.h"

namespace tp::codegen {

using namespace ir;

namespace detail {

namespace {

// Kernels whose shared tiles feed TMA or wgmma: their swizzle atoms need 1024-byte alignment
// (the rule transform/shared_budget lays the shared memory out by).
bool aligned_tiles(const PrimFunc& func) { return transform::aligned_shared_tiles(func); }


// Global buffers stored to anywhere (the rest become `const T* __restrict__`, letting the
// compiler use the read-only data path).
class StoreCollector : public IRVisitor {
public:
    std::set<const BufferNode*>& out;
    explicit StoreCollector(std::set<const BufferNode*>& o) : out(o) {}
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        out.insert(n.buffer.get());
        IRVisitor::visit_BufferStore(n, s);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        if ((n.op == "atomic_add" || n.op == "tp.addr_w") && !n.args.empty())
            if (auto* l = n.args[0]->as<BufferLoadNode>()) out.insert(l->buffer.get());
        IRVisitor::visit_Call(n, e);
    }
};

std::string printf_format(DataType t) {
    if (t.is_bool()) return "%s";
    if (t.is_int() && t.bits <= 32) return "%d";
    if (t.is_int()) return "%lld";
    return "%f";
}
std::string printf_arg(CudaEmitter& em, const std::string& v, DataType t) {
    if (t.is_bool()) return "((" + v + ") ? \"true\" : \"false\")";
    if (t.is_int() && t.bits <= 32) return "static_cast<int>(" + v + ")";
    if (t.is_int()) return "static_cast<long long>(" + v + ")";
    return "static_cast<double>(static_cast<float>(" + v + "))";
}

}  // namespace

void CudaEmitter::open_consumer_group(const WarpRolesNode& w) {
    consumer_groups = true;
    static const char* axes[] = {"x", "y", "z"};
    const std::string t = std::to_string(w.consumer_threads), g = var_name(w.group_var);
    non_negative_vars.insert(w.group_var.get());
    emit("const int " + g + " = threadIdx.x / " + t + ";");
    // Computed before the block opens: inside it the launch's names mean the group's.
    const Var& bv = launch->block_vars.at(static_cast<size_t>(w.group_axis));
    const Var& tv = launch->thread_vars.at(0);
    emit("const int tp_group_block = " + var_name(bv) + " * " + std::to_string(w.consumer_groups) + " + " + g + ";");
    emit("const int tp_group_thread = threadIdx." + std::string(axes[0]) + " % " + t + ";");
    emit("{");
    ++indent;
    emit("const int " + var_name(bv) + " = tp_group_block;");
    emit("const int " + var_name(tv) + " = tp_group_thread;");
}

void CudaEmitter::stmt(const Stmt& s) {
    if (!s || failed) return;
    uint32_t saved_line = current_dsl_line;
    if (s->span.valid()) current_dsl_line = s->span.begin.line;
    switch (s->kind) {
        case NodeKind::SeqStmt:
            for (const auto& c : static_cast<const SeqStmtNode&>(*s).seq) stmt(c);
            break;
        case NodeKind::For: {
            auto& f = static_cast<const ForNode&>(*s);
            std::string v = var_name(f.loop_var);
            if (provably_non_negative(f.min)) non_negative_vars.insert(f.loop_var.get());
            std::string end = expr(make_binary(BinaryOp::Add, f.min, f.extent));
            if (f.for_kind == ForKind::Unrolled || f.for_kind == ForKind::Vectorized) emit("#pragma unroll");
            emit("for (" + cuda_type(f.loop_var->dtype) + " " + v + " = " + expr(f.min) + "; " + v + " < " + end + "; ++" + v + ") {");
            ++indent;
            stmt(f.body);
            --indent;
            emit("}");
            break;
        }
        case NodeKind::While: {
            auto& w = static_cast<const WhileNode&>(*s);
            emit("while (" + expr(w.cond) + ") {");
            ++indent;
            stmt(w.body);
            --indent;
            emit("}");
            break;
        }
        case NodeKind::IfThenElse: {
            auto& n = static_cast<const IfThenElseNode&>(*s);
            emit("if (" + expr(n.cond) + ") {");
            ++indent;
            stmt(n.then_case);
            --indent;
            if (n.else_case) {
                emit("} else {");
                ++indent;
                stmt(n.else_case);
                --indent;
            }
            emit("}");
            break;
        }
        case NodeKind::LetStmt: {
            auto& n = static_cast<const LetStmtNode&>(*s);
            if (provably_non_negative(n.value)) non_negative_vars.insert(n.var.get());
            emit("const " + cuda_type(n.var->dtype) + " " + var_name(n.var) + " = " + expr(n.value) + ";");
            stmt(n.body);
            break;
        }
        case NodeKind::BufferStore: {
            auto& n = static_cast<const BufferStoreNode&>(*s);
            emit(load(n.buffer, n.indices) + " = " + expr(n.value) + ";");
            break;
        }
        case NodeKind::Evaluate: {
            auto& n = static_cast<const EvaluateNode&>(*s);
            emit(expr(n.value) + ";");
            break;
        }
        case NodeKind::Break: emit("break;"); break;
        case NodeKind::Allocate: {
            auto& n = static_cast<const AllocateNode&>(*s);
            const Buffer& b = n.buffer;
            std::string ty = cuda_type(b->dtype), name = buffer_name(b);
            if (b->scope == Scope::Var) {
                emit(ty + " " + name + (n.init ? " = " + expr(n.init) : "") + ";");
            } else {
                int64_t elems = 1;
                for (const auto& d : b->shape) {
                    auto c = as_const_int(d);
                    if (!c) {
                        not_lowered("a " + std::string(scope_name(b->scope)) + " buffer with a symbolic shape", b->span);
                        return;
                    }
                    elems *= *c;
                }
                if (b->scope == Scope::Local) {
                    emit(ty + " " + name + "[" + std::to_string(elems) + "];");
                } else {
                    // Shared tiles (fragments became register arrays in layout_inference); the
                    // pipeline placed the barriers they need. Offsets stay 16-byte aligned for
                    // cp.async and ldmatrix.
                    int64_t bytes = elems * b->dtype.bytes();
                    // TMA's and wgmma's swizzle atoms need 1024-byte aligned tiles (warp-specialized
                    // and wgmma kernels); 1-D buffers (mbarriers, epilogue vectors) need only 16.
                    int64_t align = aligned_tiles(func) && b->shape.size() > 1 ? 1024 : 16;
                    int64_t off = (dynamic_smem_bytes + align - 1) / align * align;
                    // Buffers whose lifetimes do not overlap may share bytes (transform/shared_reuse).
                    if (auto planned = transform::planned_shared_offset(func, *b)) off = *planned;
                    // A dtype view (T.view(tile, dtype=...)) lies over its tile's bytes.
                    if (auto alias = func.attrs.find("tp.alias." + b->name); alias != func.attrs.end()) {
                        auto at = alias_offset(alias->second);
                        if (!at) {
                            not_lowered("a dtype view of `" + alias->second.substr(0, alias->second.find(':')) +
                                            "` after the pipeline multi-buffered that tile",
                                        b->span);
                            return;
                        }
                        off = *at;
                    }
                    dynamic_smem_offsets.emplace_back(b.get(), off);
                    dynamic_smem_bytes = std::max(dynamic_smem_bytes, off + bytes);
                    emit(ty + "* " + name + " = reinterpret_cast<" + ty + "*>(tp_smem + " + std::to_string(off) + ");");
                    if (b->scope == Scope::Barrier) barrier_init(b);
                }
            }
            stmt(n.body);
            break;
        }
        case NodeKind::KernelLaunch: {
            auto& k = static_cast<const KernelLaunchNode&>(*s);
            static const char* axes[] = {"x", "y", "z"};
            // T.use_swizzle: blocks are dealt out panel by panel (tp::rasterize) for L2 reuse.
            struct FindSwizzle : IRVisitor {
                const SwizzleOpNode* op = nullptr;
                void visit_SwizzleOp(const SwizzleOpNode& n, const Stmt&) override {
                    if (n.enable && !op) op = &n;
                }
            } fs;
            fs.visit(k.body);
            bool raster = fs.op && k.block_vars.size() >= 2;
            std::string bid[3] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"}, dim[3] = {"gridDim.x", "gridDim.y", "gridDim.z"};
            if (k.linear_grid()) {  // launched as one x dimension: take the block's indices apart
                emit("const int tp_lin = blockIdx.x;");
                std::string stride = "1";
                for (size_t i = 0; i < k.grid.size() && i < 3; ++i) {
                    dim[i] = expr(k.grid[i]);
                    bid[i] = std::string("tp_bid_") + axes[i];
                    std::string q = stride == "1" ? "tp_lin" : "(tp_lin / " + stride + ")";
                    emit("const int " + bid[i] + " = " + (i + 1 < k.grid.size() ? q + " % " + dim[i] : q) + ";");
                    stride = stride == "1" ? dim[i] : stride + " * " + dim[i];
                }
            }
            block_index_text = bid[0] + ", " + bid[1] + ", " + bid[2];
            if (raster) {
                headers.insert("tp_layout.cuh");
                emit("const tp::BlockXY tp_block = tp::rasterize(" + bid[0] + ", " + bid[1] + ", " + dim[0] + ", " + dim[1] + ", " +
                     std::to_string(fs.op->panel_size) + ", " + (fs.op->row_order ? "false" : "true") + ");");
            }
            for (size_t i = 0; i < k.block_vars.size() && i < 3; ++i) {
                non_negative_vars.insert(k.block_vars[i].get());
                std::string src = raster && i < 2 ? std::string("tp_block.") + axes[i] : bid[i];
                emit("const int " + var_name(k.block_vars[i]) + " = " + src + ";");
            }
            for (size_t i = 0; i < k.thread_vars.size() && i < 3; ++i) {
                non_negative_vars.insert(k.thread_vars[i].get());
                emit("const int " + var_name(k.thread_vars[i]) + " = threadIdx." + axes[i] + ";");
                // NVVM only knows threadIdx < 1024. The launch's own extent lets it prove that a
                // striped access of an early round is in range for every thread, so a row with a
                // tail (softmax's N = 8000) keeps its loads unguarded and issued together.
                emit("__builtin_assume(" + var_name(k.thread_vars[i]) + " < " + std::to_string(k.threads[i]) + ");");
            }
            const KernelLaunchNode* saved_launch = launch;
            launch = &k;
            stmt(k.body);
            launch = saved_launch;
            break;
        }
        case NodeKind::PrintOp: {
            auto& p = static_cast<const PrintOpNode&>(*s);
            std::string msg;
            for (char c : p.msg) msg += (c == '"' || c == '\\') ? std::string("\\") + c : (c == '%' ? "%%" : std::string(1, c));
            if (auto* e = std::get_if<Expr>(&p.value)) {
                DataType t = (*e)->dtype;
                // One thread prints, in the CPU interpreter's format (it runs a block as one thread).
                emit("if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) printf(\"msg='" + msg +
                     "' BlockIdx=(%d, %d, %d), ThreadIdx=(0, 0, 0): dtype=" + t.print_name() + " value=" + printf_format(t) +
                     "\\n\", " + block_index_text + ", " + printf_arg(*this, expr(*e), t) + ");");
            } else {
                const Buffer& b = std::get<Buffer>(p.value);
                int64_t elems = 1;
                for (const auto& d : b->shape) elems = as_const_int(d) ? elems * *as_const_int(d) : -1;
                if (elems < 0 || b->scope == Scope::Global || b->scope == Scope::Local || b->scope == Scope::Var) {
                    not_lowered("T.print of a " + std::string(scope_name(b->scope)) + " buffer", s->span);
                    break;
                }
                // One thread per block prints the whole block-shared tile, after a barrier.
                std::string name = buffer_name(b);
                emit(block_sync() + ";");
                emit("if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {");
                emit("    for (int tp_e = 0; tp_e < " + std::to_string(elems) + "; ++tp_e) printf(\"msg='" + msg +
                     "' BlockIdx=(%d, %d, %d), ThreadIdx=(0, 0, 0): buffer=" + b->name + ", index=%d, dtype=" +
                     b->dtype.print_name() + " value=" + printf_format(b->dtype) + "\\n\", " + block_index_text + ", tp_e, " +
                     printf_arg(*this, name + "[tp_e]", b->dtype) + ");");
                emit("}");
                emit(block_sync() + ";");
            }
            break;
        }
        case NodeKind::AssertOp: {
            auto& a = static_cast<const AssertOpNode&>(*s);
            std::string msg;
            for (char c : a.msg) msg += (c == '"' || c == '\\') ? std::string("\\") + c : (c == '%' ? "%%" : std::string(1, c));
            emit("if (!(" + expr(a.cond) + ")) {");
            emit("    printf(\"device assertion failed at line " + std::to_string(current_dsl_line) + ": " + msg +
                 " block=(%d,%d,%d) thread=(%d,%d,%d)\\n\", " + block_index_text + ", threadIdx.x, threadIdx.y, threadIdx.z);");
            emit("    __trap();");
            emit("}");
            break;
        }
        case NodeKind::WarpRoles: {
            // One if/else on the thread index with setmaxnreg first in each branch: the form
            // ptxas needs to give each warpgroup role its own register budget.
            auto& w = static_cast<const WarpRolesNode&>(*s);
            headers.insert("tp_tma.cuh");
            emit("if (threadIdx.x >= " + std::to_string(w.all_consumer_threads()) + ") {");
            ++indent;
            if (w.producer_regs) emit("tp::setmaxnreg_dec<" + std::to_string(w.producer_regs) + ">();");
            stmt(w.producer);
            --indent;
            emit("} else {");
            ++indent;
            if (w.consumer_regs) emit("tp::setmaxnreg_inc<" + std::to_string(w.consumer_regs) + ">();");
            int64_t saved = consumer_threads;
            consumer_threads = w.consumer_threads;
            const bool groups = w.consumer_groups > 1;
            if (groups) open_consumer_group(w);
            stmt(w.consumer);
            if (groups) {
                --indent;
                emit("}");
            }
            consumer_threads = saved;
            --indent;
            emit("}");
            break;
        }
        // Performance hints with no effect on results in this lowering (blocks are independent
        // and shared tiles keep a plain row-major layout).
        case NodeKind::SwizzleOp:
        case NodeKind::LayoutAnnotationOp: break;
        case NodeKind::BarrierOp:
            barrier_op(static_cast<const BarrierOpNode&>(*s));
            break;
        case NodeKind::CopyOp: not_lowered("T.copy", s->span); break;
        case NodeKind::GemmOp: not_lowered("T.gemm", s->span); break;
        case NodeKind::FillOp: not_lowered("T.fill", s->span); break;
        case NodeKind::ReduceOp: not_lowered("T.reduce", s->span); break;
        case NodeKind::AtomicAddOp: not_lowered("T.atomic_add", s->span); break;
        default: throw InternalError(std::string("expression node in statement: ") + node_kind_name(s->kind), __FILE__, __LINE__, "codegen");
    }
    current_dsl_line = saved_line;
}

KernelCode emit_kernel(const ir::PrimFunc& func, const Target& target, DiagnosticEngine& diags, const std::string& name) {
    KernelCode k;
    detail::CudaEmitter em(func, target, diags);
    auto fm = func.attrs.find("fast_math");
    em.fast_math = fm != func.attrs.end() && fm->second == "true";
    detail::StoreCollector(em.stored_buffers).visit(func.body);
    // Tensors a TMA store writes (through their tensor map, not a pointer) are outputs too.
    if (auto ts = func.attrs.find("tp.tma_store_params"); ts != func.attrs.end())
        for (const auto& p : func.params)
            if (p.buffer && ("," + ts->second + ",").find("," + p.name + ",") != std::string::npos) em.stored_buffers.insert(p.buffer.get());

    k.name = em.name_of(&func, name);
    std::vector<std::string> params;
    for (const auto& p : func.params) {
        if (p.buffer) {
            bool is_const = !em.stored_buffers.count(p.buffer.get());
            params.push_back((is_const ? "const " : "") + em.cuda_type(p.buffer->dtype) + "* __restrict__ " + em.buffer_name(p.buffer));
        } else if (p.var) {
            params.push_back(em.cuda_type(p.var->dtype) + " " + em.var_name(p.var));
        }
    }
    // sm_90a warp-specialized GEMM: tensor maps by value, after the ordinary parameters.
    const bool ws = transform::is_warp_specialized(func);
    const size_t maps = transform::tensor_maps_of(func).size();
    for (size_t i = 0; i < maps; ++i) params.push_back("const __grid_constant__ tp::TmaDesc tp_tma_" + std::to_string(i));
    int64_t threads = 1;
    const StmtNode* cur = func.body.get();
    while (cur) {  // find the launch to read its block size
        if (auto* kl = cur->as<KernelLaunchNode>()) {
            threads = kl->num_threads();
            break;
        }
        if (auto* a = cur->as<AllocateNode>()) cur = a->body.get();
        else if (auto* l = cur->as<LetStmtNode>()) cur = l->body.get();
        else if (auto* q = cur->as<SeqStmtNode>(); q && q->seq.size() == 1) cur = q->seq[0].get();
        else cur = nullptr;
    }
    em.current_dsl_line = func.span.valid() ? func.span.begin.line : 0;
    em.dynamic_smem_bytes = transform::planned_shared_bytes(func);  // unplanned buffers go after the plan
    em.stmt(func.body);
    k.failed = em.failed || diags.has_errors();
    if (k.failed) return k;
    k.headers = em.headers;
    k.uses_half = em.uses_half;
    k.consumer_groups = em.consumer_groups;

    // The second bound (minimum blocks per SM) caps ptxas's registers per thread: the split
    // kernel's register plan, or compile()'s occupancy retry for a memory-bound kernel.
    int min_blocks = ws ? transform::ws_blocks_per_sm(func) : 0;
    if (auto it = func.attrs.find("tp.min_blocks_per_sm"); !ws && it != func.attrs.end()) min_blocks = std::max(0, std::atoi(it->second.c_str()));
    std::string sig = "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(threads) +
                      (min_blocks > 0 ? ", " + std::to_string(min_blocks) : "") + ") " + k.name + "(";
    for (size_t i = 0; i < params.size(); ++i) sig += (i ? ", " : "") + params[i];
    uint32_t fline = func.span.valid() ? func.span.begin.line : 0;
    auto& out = k.lines;
    out.push_back({sig + ") {", fline});
    if (!em.dynamic_smem_offsets.empty()) {
        // Up to 48 KiB fits a static array; beyond needs dynamic shared memory (the launcher
        // passes CudaModule::dynamic_shared_bytes and raises the per-kernel limit).
        if (ws || detail::aligned_tiles(func)) {
            // The tiles need 1024-byte alignment, which a dynamic allocation only promises to
            // 16 bytes: align by hand (and setmaxnreg the register cap of __launch_bounds__(T, 1)).
            out.push_back({"    extern __shared__ __align__(1024) unsigned char tp_smem_raw[];", fline});
            out.push_back({"    unsigned char* tp_smem = tp_smem_raw + ((1024u - (static_cast<unsigned>(__cvta_generic_to_shared(tp_smem_raw)) & 1023u)) & 1023u);", fline});
            k.dynamic_shared_bytes = em.dynamic_smem_bytes + 1024;
        } else if (em.dynamic_smem_bytes <= 48 * 1024) {
            out.push_back({"    __shared__ __align__(16) unsigned char tp_smem[" + std::to_string(em.dynamic_smem_bytes) + "];", fline});
        } else {
            out.push_back({"    extern __shared__ __align__(16) unsigned char tp_smem[];", fline});
            k.dynamic_shared_bytes = em.dynamic_smem_bytes;
        }
    }
    if (em.uses_rng) out.push_back({"    tp::Philox4x32 tp_rng{};", fline});
    for (auto& l : em.lines) out.push_back({std::move(l.text), l.dsl_line});
    out.push_back({"}", 0});
    return k;
}

}  // namespace detail

}  // namespace tp::codegen
