// CUDA C++ for Tile IR expressions: literals, operators with Python semantics (floor division
// only where index math can be negative), casts through float for half types, intrinsic
// calls mapped through ir/intrinsics.h, and row-major buffer offsets (64-bit only where a
// buffer can exceed 2^31 elements).
#include <cmath>
#include <cstdio>

#include "codegen/cuda/codegen_cuda_impl.h"
#include "codegen/cuda/smem_swizzle.h"
#include "ir/intrinsics.h"

namespace tp::codegen::detail {

using namespace ir;

std::string CudaEmitter::name_of(const void* key, const std::string& hint) {
    auto it = names.find(key);
    if (it != names.end()) return it->second;
    std::string base;
    for (char c : hint) base += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
    // Avoid CUDA/C++ names the generated code or the runtime headers use.
    static const std::set<std::string> reserved = {
        "int",      "float",     "double",  "half",   "char",       "long",  "short",    "void",     "bool",   "auto",     "if",     "else",
        "for",      "while",     "do",      "return", "break",      "const", "static",   "unsigned", "signed", "register", "tp",     "threadIdx",
        "blockIdx", "blockDim",  "gridDim", "half_t", "bfloat16_t", "main",  "new",      "delete",   "this",   "class",    "struct", "template",
        "typename", "namespace", "default", "switch", "case",       "union", "volatile", "extern",   "inline", "operator"};
    std::string n = reserved.count(base) ? base + "_" : base;
    for (int k = 1; used_names.count(n); ++k) n = base + "_" + std::to_string(k);
    used_names.insert(n);
    names[key] = n;
    return n;
}

void CudaEmitter::not_lowered(const std::string& what, Span span) {
    diags.report(DiagKind::NotYetLowered, span, {what, "CUDA"});
    failed = true;
}

std::string CudaEmitter::cuda_type(DataType t) {
    if (t.code == DataType::BFloat || (t.code == DataType::Float && t.bits == 16) || t.code == DataType::Float8E4M3 || t.code == DataType::Float8E5M2)
        uses_half = true;  // tp_half.cuh also defines the fp8 types
    return t.cuda_name();
}

bool CudaEmitter::provably_non_negative(const Expr& e) const {
    if (auto c = as_const_int(e)) return *c >= 0;
    if (auto* v = e->as<VarNode>()) return non_negative_vars.count(v) > 0;
    if (auto* b = e->as<BinaryNode>()) {
        switch (b->op) {
            case BinaryOp::Add:
            case BinaryOp::Mul:
            case BinaryOp::Div:
            case BinaryOp::Mod:
            case BinaryOp::FloorDiv:
            case BinaryOp::FloorMod:
            case BinaryOp::Min:
            case BinaryOp::Max:
                return provably_non_negative(b->a) && provably_non_negative(b->b);
            default:
                return false;
        }
    }
    if (auto* c = e->as<CastNode>())
        return c->dtype.is_int() && c->value->dtype.is_int() && c->dtype.bits >= c->value->dtype.bits && provably_non_negative(c->value);
    return false;
}

std::string CudaEmitter::literal(const Expr& e) {
    if (auto* i = e->as<IntImmNode>()) {
        DataType t = i->dtype;
        if (t.is_bool()) return i->value ? "true" : "false";
        if (t.bits == 64) return std::to_string(i->value) + (t.code == DataType::UInt ? "ULL" : "LL");
        if (t.code == DataType::UInt) return std::to_string(i->value) + "u";
        if (t.bits < 32) return "(" + cuda_type(t) + ")" + std::to_string(i->value);
        if (i->value == INT32_MIN) return "(-2147483647 - 1)";
        return std::to_string(i->value);
    }
    auto* f = e->as<FloatImmNode>();
    DataType t = f->dtype;
    double v = f->value;
    std::string ty = cuda_type(t);
    if (std::isinf(v)) {
        std::string inf = "tp::infinity<" + ty + ">()";
        return v < 0 ? "(-" + inf + ")" : inf;
    }
    if (std::isnan(v)) return t.bits == 64 ? "__longlong_as_double(0x7ff8000000000000LL)" : "__int_as_float(0x7fffffff)";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    std::string s = buf;
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    if (t == DataType::float64()) {
        std::snprintf(buf, sizeof buf, "%.17g", v);
        s = buf;
        if (s.find_first_of(".eE") == std::string::npos) s += ".0";
        return s;
    }
    if (t == DataType::float32()) return s + "f";
    return ty + "(" + s + "f)";
}

namespace {
bool is_half_like(DataType t) {
    return t.code == DataType::BFloat || (t.code == DataType::Float && t.bits == 16) || t.code == DataType::Float8E4M3 ||
           t.code == DataType::Float8E5M2;
}
}  // namespace

std::string CudaEmitter::expr(const Expr& e) {
    switch (e->kind) {
        case NodeKind::IntImm:
        case NodeKind::FloatImm:
            return literal(e);
        case NodeKind::StringImm: {
            std::string s = "\"";
            for (char c : static_cast<const StringImmNode&>(*e).value) {
                if (c == '"' || c == '\\') s += '\\';
                s += c;
            }
            return s + "\"";
        }
        case NodeKind::Var:
            return var_name(std::static_pointer_cast<const VarNode>(e));
        case NodeKind::Binary: {
            auto& b = static_cast<const BinaryNode&>(*e);
            std::string x = expr(b.a), y = expr(b.b);
            DataType t = b.a->dtype;
            bool ints = t.is_int();
            switch (b.op) {
                // 64-bit index math may pair a block index (declared `int`) with a 64-bit
                // value: name the type, or the template cannot deduce one.
                case BinaryOp::Min:
                    return (ints && t.bits == 64 ? "tp::min<" + cuda_type(t) + ">(" : std::string("tp::min(")) + x + ", " + y + ")";
                case BinaryOp::Max:
                    return (ints && t.bits == 64 ? "tp::max<" + cuda_type(t) + ">(" : std::string("tp::max(")) + x + ", " + y + ")";
                case BinaryOp::FloorDiv:
                    if (!ints) return "tp::floor(" + x + " / " + y + ")";
                    if (provably_non_negative(b.a) && provably_non_negative(b.b)) return "(" + x + " / " + y + ")";
                    return "tp::floordiv(" + x + ", " + y + ")";
                case BinaryOp::FloorMod:
                    if (!ints) return "(" + x + " - tp::floor(" + x + " / " + y + ") * " + y + ")";
                    if (provably_non_negative(b.a) && provably_non_negative(b.b)) return "(" + x + " % " + y + ")";
                    return "tp::floormod(" + x + ", " + y + ")";
                case BinaryOp::Mod:
                    if (!ints) return "tp::fmod(" + x + ", " + y + ")";
                    break;
                default:
                    break;
            }
            const char* op = binary_op_name(b.op);
            // 16-bit float arithmetic rounds each result to its type, as TileLang's (__hmul,
            // __hadd) and the interpreter's do: half_t operands would otherwise compute in float
            // through their conversion and keep the float result (O * dO of attention's backward
            // preprocess was 2e-4 off the interpreter).
            const bool arith = b.op == BinaryOp::Add || b.op == BinaryOp::Sub || b.op == BinaryOp::Mul || b.op == BinaryOp::Div;
            if (arith && is_half_like(b.dtype)) return cuda_type(b.dtype) + "(" + x + " " + op + " " + y + ")";
            return "(" + x + " " + op + " " + y + ")";
        }
        case NodeKind::Unary: {
            auto& u = static_cast<const UnaryNode&>(*e);
            const char* op = u.op == UnaryOp::Neg ? "-" : u.op == UnaryOp::Not ? "!" : "~";
            return "(" + std::string(op) + expr(u.a) + ")";
        }
        case NodeKind::Cast: {
            auto& c = static_cast<const CastNode&>(*e);
            std::string v = expr(c.value);
            DataType from = c.value->dtype, to = c.dtype;
            // Half types convert reliably only to and from float.
            if ((is_half_like(from) || is_half_like(to)) && from != DataType::float32() && to != DataType::float32())
                v = "static_cast<float>(" + v + ")";
            return "static_cast<" + cuda_type(to) + ">(" + v + ")";
        }
        case NodeKind::Select: {
            auto& s = static_cast<const SelectNode&>(*e);
            return "(" + expr(s.cond) + " ? " + expr(s.true_value) + " : " + expr(s.false_value) + ")";
        }
        case NodeKind::BufferLoad: {
            auto& l = static_cast<const BufferLoadNode&>(*e);
            return load(l.buffer, l.indices);
        }
        case NodeKind::Call: {
            auto& c = static_cast<const CallNode&>(*e);
            if (c.op.rfind("tp.", 0) == 0) return device_call(c);
            if (c.op == "__syncthreads") return block_sync();
            if (c.op == "address_of") {  // a T.call_extern pointer operand
                auto* at = c.args[0]->as<BufferLoadNode>();
                return "(&" + load(at->buffer, at->indices) + ")";
            }
            if (c.op == "call_extern") {  // T.call_extern: the name is checked as a C++ name when staged
                std::string s = static_cast<const StringImmNode&>(*c.args[0]).value + "(";
                for (size_t i = 1; i < c.args.size(); ++i) s += (i > 1 ? ", " : "") + expr(c.args[i]);
                return s + ")";
            }
            const IntrinsicInfo* info = find_intrinsic(c.op);
            if (!info) {
                not_lowered("T." + c.op, e->span);
                return "0";
            }
            if (c.op == "fence_proxy_async") headers.insert("tp_mbarrier.cuh");
            if (c.op == "rng_init" || c.op == "rng_rand") {  // the thread's generator, declared at the kernel's top
                uses_rng = true;
                headers.insert("tp_rand.cuh");
                if (c.op == "rng_rand") return "tp_rng.next()";
                return "tp_rng.init(static_cast<unsigned long long>(" + expr(c.args[0]) + "), static_cast<unsigned long long>(" + expr(c.args[1]) +
                       "), static_cast<unsigned long long>(" + expr(c.args[2]) + "))";
            }
            if (c.op == "iket_event") {  // the id is an immediate of pmevent.mask: a template argument
                headers.insert("tp_iket.cuh");
                std::string s = std::string(info->cuda) + "<" + expr(c.args[0]) + ">(";
                if (c.args.size() == 3) s += expr(c.args[2]);
                return s + ")";
            }
            if (c.op == "reinterpret")  // From explicit: C++ promotes 16-bit integer arithmetic to int
                return "tp::reinterpret<" + cuda_type(c.dtype) + ", " + cuda_type(c.args[0]->dtype) + ">(" + expr(c.args[0]) + ")";
            if (info->result == IntrinsicResult::Given) return std::string(info->cuda) + "<" + cuda_type(c.dtype) + ">()";
            if (c.op == "atomic_add" || c.op == "atomic_add_prev") {
                auto* target = c.args[0]->as<BufferLoadNode>();
                if (!target) {
                    not_lowered("T.atomic_add on a non-buffer operand", e->span);
                    return "0";
                }
                return std::string(info->cuda) + "(&" + load(target->buffer, target->indices) + ", " + expr(c.args[1]) + ")";
            }
            std::string fn = (fast_math && info->fast_cuda) ? info->fast_cuda : info->cuda;
            std::string s = fn + "(";
            for (size_t i = 0; i < c.args.size(); ++i) s += (i ? ", " : "") + expr(c.args[i]);
            return s + ")";
        }
        default:
            break;
    }
    throw InternalError(std::string("statement node in expression: ") + node_kind_name(e->kind), __FILE__, __LINE__, "codegen");
}

// tp::gemm_wgmma_*<BM, BN, BK, WARPS_M, WARPS_N, ...>: the header defining its warpgroups'
// m64nNk16, N = BN / WARPS_N. Each N has its own header, so NVRTC parses only the shapes the
// kernel issues (every shape is about 60 long lines of inline assembly).
namespace {
std::string wgmma_shape_header(const std::string& fn) {
    size_t lt = fn.find('<');
    std::vector<long> v;
    for (size_t i = lt + 1; lt != std::string::npos && i < fn.size() && v.size() < 5;) {
        size_t used = 0;
        try {
            v.push_back(std::stol(fn.substr(i), &used));
        } catch (const std::exception&) {
            return "";
        }
        i = fn.find(',', i + used);
        if (i == std::string::npos) break;
        ++i;
    }
    if (v.size() < 5 || v[4] <= 0) return "";
    long n = v[1] / v[4];
    if (n % 8 != 0 || n < 8 || n > 256) return "";  // tp::wgmma_ss's static_assert says why
    return "tp_wgmma_n" + std::to_string(n) + ".cuh";
}
}  // namespace

// Calls into the runtime templates made by the lowering passes (transform/tile_lowering.h).
std::string CudaEmitter::device_call(const CallNode& c) {
    if (c.op == "tp.null") return "nullptr";
    // A persistent grid's size is the device's SM count, known only at launch.
    if (c.op == "tp.num_programs") return "static_cast<int>(gridDim.x)";
    if (c.op == "tp.proxy_fence") return as_const_int(c.args.at(0)).value_or(1) ? "true" : "false";
    if (c.op == "tp.tma_desc") return "&tp_tma_" + std::to_string(as_const_int(c.args.at(0)).value_or(0));
    if (c.op == "tp.addr_r" || c.op == "tp.addr_w") {
        auto* l = c.args.empty() ? nullptr : c.args[0]->as<BufferLoadNode>();
        if (!l) throw InternalError("tp.addr of a non-buffer operand", __FILE__, __LINE__, "codegen");
        return "&" + load(l->buffer, l->indices);
    }
    if (c.op == "tp.async_wait") return async_wait(c);
    auto* name = c.args.empty() ? nullptr : c.args[0]->as<StringImmNode>();
    if ((c.op != "tp.call" && c.op != "tp.call_async" && c.op != "tp.sync_call" && c.op != "tp.async_call") || !name)
        throw InternalError("unknown device call " + c.op, __FILE__, __LINE__, "codegen");
    const std::string& fn = name->value;
    static const std::pair<const char*, const char*> owners[] = {{"tp::gemm_wgmma", "tp_gemm_wgmma.cuh"},
                                                                 {"tp::gemm_", "tp_gemm.cuh"},
                                                                 {"tp::reduce_striped", "tp_reduce_striped.cuh"},
                                                                 {"tp::striped_", "tp_copy_striped.cuh"},
                                                                 {"tp::reduce_", "tp_reduce.cuh"},
                                                                 {"tp::copy_", "tp_copy.cuh"},
                                                                 {"tp::cp_async", "tp_copy.cuh"},
                                                                 {"tp::frag_pack_pairs", "tp_gemm_wgmma.cuh"},
                                                                 {"tp::frag_pack_operand", "tp_gemm_wgmma.cuh"},
                                                                 {"tp::frag_store_tma", "tp_store_tma.cuh"},
                                                                 {"tp::tile_store_tma", "tp_store_tma.cuh"},
                                                                 {"tp::fence_proxy_async", "tp_tma.cuh"},
                                                                 {"tp::frag_", "tp_copy.cuh"},
                                                                 {"tp::rasterize", "tp_layout.cuh"},
                                                                 {"tp::tile_coord", "tp_layout.cuh"},
                                                                 {"tp::setmaxnreg", "tp_tma.cuh"},
                                                                 {"tp::named_barrier", "tp_cluster.cuh"},
                                                                 {"tp::mbar_", "tp_ws.cuh"},
                                                                 {"tp::ring_", "tp_ws.cuh"},
                                                                 {"tp::tma_", "tp_ws.cuh"},
                                                                 {"tp::consumer_sync", "tp_ws.cuh"},
                                                                 {"tp::tl_", "tp_timeline.cuh"}};
    const bool wgmma = fn.rfind("tp::gemm_wgmma", 0) == 0;
    for (const auto& [prefix, header] : owners)
        if (fn.rfind(prefix, 0) == 0 && !(wgmma && std::string(prefix) == "tp::gemm_")) headers.insert(header);
    if (wgmma)
        if (std::string h = wgmma_shape_header(fn); !h.empty()) headers.insert(h);
    if (fn.find("half_t") != std::string::npos || fn.find("bfloat16_t") != std::string::npos) uses_half = true;
    std::string s = fn + "(";
    for (size_t i = 1; i < c.args.size(); ++i) s += (i > 1 ? ", " : "") + expr(c.args[i]);
    return s + ")";
}

// tp.async_wait(pending, in-flight operands...): wait until at most `pending` wgmma groups of
// the warpgroup still run, then fence the registers the finished groups wrote or read so the
// compiler keeps them in place up to here (shared operands need no fence: the wait is a
// memory clobber).
std::string CudaEmitter::async_wait(const CallNode& c) {
    headers.insert("tp_wgmma.cuh");
    std::string s = "tp::wgmma_wait<" + std::to_string(as_const_int(c.args.at(0)).value_or(0)) + ">()";
    for (size_t i = 1; i < c.args.size(); ++i) {
        auto* a = c.args[i]->as<CallNode>();
        auto* l = a && !a->args.empty() ? a->args[0]->as<BufferLoadNode>() : nullptr;
        if (!l || l->buffer->scope != Scope::Local || l->buffer->shape.size() != 1) continue;
        int64_t n = as_const_int(l->buffer->shape[0]).value_or(0);
        std::string fence = l->buffer->dtype == DataType::float32() ? "tp::wgmma_fence_operands<" : "tp::wgmma_fence_packed<";
        s += ", " + fence + std::to_string(n) + ">(&" + buffer_name(l->buffer) + "[0])";
    }
    return s;
}

std::string CudaEmitter::offset(const Buffer& b, const std::vector<Expr>& indices) {
    if ((b->layout == "swizzle" || b->layout == "panels") && indices.size() >= 2) return expr(swizzled_smem_offset(b, indices));
    // 64-bit offsets only where the buffer may exceed 2^31 elements: a symbolic dim or a
    // constant size that large.
    bool wide = false;
    int64_t total = 1;
    for (const auto& d : b->shape) {
        auto c = as_const_int(d);
        if (!c) {
            wide = true;
            break;
        }
        total *= *c;
        if (total >= (int64_t(1) << 31)) wide = true;
    }
    if (indices.empty()) return "0";
    // Built as IR so constant parts fold (row 0 of a tile adds nothing).
    Expr off = wide ? make_cast(DataType::int64(), indices[0]) : indices[0];
    for (size_t i = 1; i < indices.size(); ++i) {
        Expr dim = wide ? make_cast(DataType::int64(), b->shape[i]) : b->shape[i];
        off = make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, off, dim), indices[i]);
    }
    return expr(off);
}

std::string CudaEmitter::load(const Buffer& b, const std::vector<Expr>& indices) {
    if (b->scope == Scope::Var) return buffer_name(b);
    return buffer_name(b) + "[" + offset(b, indices) + "]";
}

}  // namespace tp::codegen::detail
