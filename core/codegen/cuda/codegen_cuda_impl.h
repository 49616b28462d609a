// Internals of the CUDA code generator shared by codegen_cuda.cpp (module, statements) and
// codegen_expr.cpp (expressions): the emitter state, C names for IR variables, and the
// generated lines with the DSL line each one came from.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/cuda/codegen_cuda.h"

namespace tp::codegen::detail {

struct CudaEmitter {
    const ir::PrimFunc& func;
    const Target& target;
    DiagnosticEngine& diags;
    bool fast_math = false;

    // Generated body lines (without #line directives) and the DSL line each came from.
    struct Line {
        std::string text;
        uint32_t dsl_line;
    };
    std::vector<Line> lines;
    int indent = 1;
    uint32_t current_dsl_line = 0;

    std::unordered_map<const void*, std::string> names;  // Var / Buffer -> C identifier
    std::set<std::string> used_names;
    std::set<const ir::BufferNode*> stored_buffers;      // global buffers written somewhere
    std::set<const ir::VarNode*> non_negative_vars;      // block/thread indices, loops from >= 0
    bool uses_half = false;
    bool uses_rng = false;          // T.rng_init / T.rng_rand: the kernel declares the thread's tp_rng
    std::set<std::string> headers;  // Tensor-Core template headers the calls need
    bool failed = false;
    // Inside a warp-specialized kernel's consumer branch: its thread count, so block-wide
    // barriers become a named barrier the producer warpgroup is not part of.
    int64_t consumer_threads = 0;
    std::string block_sync() {
        if (!consumer_threads) return "__syncthreads()";
        headers.insert("tp_ws.cuh");
        return "tp::consumer_sync<" + std::to_string(consumer_threads) + ">()";
    }
    const ir::KernelLaunchNode* launch = nullptr;  // the enclosing T.Kernel
    // The block's (x, y, z) indices for device prints: blockIdx, or a linear grid's own.
    std::string block_index_text = "blockIdx.x, blockIdx.y, blockIdx.z";
    bool consumer_groups = false;                  // a WarpRoles node has groups (TP_CONSUMER_GROUPS)
    // A consumer group's scope: its index, then the launch's block variable on the group axis
    // and its thread variable shadowed by the group's logical block and thread index.
    void open_consumer_group(const ir::WarpRolesNode& w);
    int64_t static_smem_bytes = 0;
    int64_t dynamic_smem_bytes = 0;
    std::vector<std::pair<const ir::BufferNode*, int64_t>> dynamic_smem_offsets;
    // The offset of the tile a dtype view lies over ("base:bytes", tp.alias.<view>), when that
    // tile is laid out already with the bytes it had when the view was taken.
    std::optional<int64_t> alias_offset(const std::string& alias) const {
        const std::string base = alias.substr(0, alias.find(':'));
        const int64_t bytes = std::stoll(alias.substr(alias.find(':') + 1));
        for (const auto& [b, off] : dynamic_smem_offsets) {
            if (b->name != base) continue;
            int64_t n = b->dtype.bytes();
            for (const auto& d : b->shape) n *= ir::as_const_int(d).value_or(0);
            if (n == bytes) return off;
        }
        return std::nullopt;
    }

    CudaEmitter(const ir::PrimFunc& f, const Target& t, DiagnosticEngine& d) : func(f), target(t), diags(d) {}

    void emit(const std::string& text) { lines.push_back({std::string(indent * 4, ' ') + text, current_dsl_line}); }
    std::string name_of(const void* key, const std::string& hint);
    std::string var_name(const ir::Var& v) { return name_of(v.get(), v->name); }
    std::string buffer_name(const ir::Buffer& b) { return name_of(b.get(), b->name); }
    void not_lowered(const std::string& what, Span span);

    // Expressions (codegen_expr.cpp).
    std::string expr(const ir::Expr& e);
    std::string offset(const ir::Buffer& b, const std::vector<ir::Expr>& indices);
    std::string load(const ir::Buffer& b, const std::vector<ir::Expr>& indices);
    std::string cuda_type(ir::DataType t);
    std::string literal(const ir::Expr& e);
    std::string device_call(const ir::CallNode& c);
    std::string async_wait(const ir::CallNode& c);
    // True when e is built only from non-negative pieces (indices in non_negative_vars,
    // non-negative constants, +, *, //, %), so C's / and % equal Python's floor semantics.
    bool provably_non_negative(const ir::Expr& e) const;

    // Statements (codegen_cuda.cpp).
    void stmt(const ir::Stmt& s);
    // T.alloc_barrier's mbarriers (ops/barrier.cpp): placed like a 1-D shared buffer at `ptr`,
    // initialised by thread 0 before the block synchronises; and the operations on them.
    void barrier_init(const ir::Buffer& b);
    void barrier_op(const ir::BarrierOpNode& n);
};

// One launch's __global__ function: its lines (signature to closing brace) with their DSL
// lines, and what the module around it must provide (codegen_module.cpp assembles them).
struct KernelCode {
    std::string name;
    std::vector<std::pair<std::string, uint32_t>> lines;
    std::set<std::string> headers;
    bool uses_half = false;
    bool consumer_groups = false;
    int64_t dynamic_shared_bytes = 0;
    bool failed = false;
};
KernelCode emit_kernel(const ir::PrimFunc& func, const Target& target, DiagnosticEngine& diags, const std::string& name);

}  // namespace tp::codegen::detail
