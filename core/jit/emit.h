// The lowering of one launch's Tile IR (the IR the interpreter runs) to an LLVM function
// `void tp_block(ctx, state, bx, by, bz)` that runs one block, plus `tp_grid(ctx, grid)`.
// Values follow the interpreter's semantics: integers and bools are i64 wrapped to their dtype
// after each operation, floats are f32 (fp16, bf16, fp32: exact values of the dtype) or f64,
// each operation rounded to its dtype; buffers hold their dtype's bytes. What the emitter does
// not lower throws Reject, and the launch runs on the interpreter instead.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace tp::jit {

// The kernel has a construct the JIT does not lower: the interpreter runs it.
struct Reject {
    std::string reason;
};

// Layout of the context the runner passes (jit_api.cpp fills it); the generated code reads it.
struct Ctx {
    void* const* data;        // per parameter: tensor bytes, null for scalars
    const int64_t* shapes;    // per parameter, TP_JIT_MAX_RANK dims
    const double* scalars;    // per parameter: a scalar's value
    uint8_t* const* written;  // per parameter: written flags, or null
};
struct State {
    uint8_t fault = 0;              // set by the block on an out-of-bounds access, x/0 or a failed assert
    const uint8_t* stop = nullptr;  // polled at outer loops: the watchdog or a cancel
    int32_t site = -1;              // the poll site (Emitter::sites) where the block stopped
    std::string* prints = nullptr;  // the block's T.print text (value_helpers.cpp appends)
    // Thread mode (block_threads.h): this fiber's thread rank, the block's area for its shared
    // and fragment buffers, and the team the barrier and shuffle helpers switch through.
    int64_t rank = 0;
    uint8_t* shared = nullptr;
    void* team = nullptr;
};

struct BufInfo {
    const ir::BufferNode* node = nullptr;
    bool global = false;
    llvm::Value* base = nullptr;        // i8* to the first element
    std::vector<llvm::Value*> shape;    // i64
    std::vector<llvm::Value*> strides;  // i64, row-major
    llvm::Value* size = nullptr;        // i64 element count
    llvm::Value* written = nullptr;     // i8* flags or null
};

class Emitter {
public:
    Emitter(llvm::LLVMContext& c, llvm::Module& m, const ir::PrimFunc& f, bool checked, bool track_written);
    void emit_block_function();
    void emit_grid_function();

    // ----- used by the statement and tile-op emitters
    llvm::LLVMContext& ctx;
    llvm::Module& mod;
    const ir::PrimFunc& func;
    bool checked;
    bool track_written;  // global stores also set the element's written flag
    int64_t local_bytes = 0;
    llvm::IRBuilder<> b;
    llvm::Type *i1, *i8, *i64, *f32, *f64, *ptr;

    llvm::Value* expr(const ir::Expr& e);    // the value type of e->dtype
    llvm::Value* truthy(const ir::Expr& e);  // i1
    llvm::Type* value_type(ir::DataType t);  // f32, f64 or i64; Reject otherwise
    llvm::Value* convert(llvm::Value* v, ir::DataType from, ir::DataType to);
    llvm::Value* round_to(llvm::Value* v, ir::DataType to);  // v f32/f64 -> the value of `to`
    llvm::Value* to_double(llvm::Value* v, ir::DataType from);
    llvm::Value* wrap(llvm::Value* v, ir::DataType t);  // i64 wrapped to an int dtype
    llvm::Value* ci(int64_t v) { return llvm::ConstantInt::get(i64, static_cast<uint64_t>(v), true); }

    BufInfo& buffer(const ir::Buffer& buf);
    // Flat index of `idx` in `bi` (checked: out of range sets the fault and reads element 0).
    llvm::Value* flat_index(BufInfo& bi, const std::vector<llvm::Value*>& idx);
    llvm::Value* load_elem(BufInfo& bi, llvm::Value* flat);           // value type of the dtype
    void store_elem(BufInfo& bi, llvm::Value* flat, llvm::Value* v);  // v in the value type
    llvm::Value* elem_ptr(BufInfo& bi, llvm::Value* flat);

    void fault_if(llvm::Value* cond);  // cond i1
    // for (i = lo; i < lo + n; ++i) body(i); `poll` checks the stop flag each iteration.
    // `site` >= 0 polls the stop flag each iteration and records the site when it stops.
    void loop(llvm::Value* lo, llvm::Value* n, const std::function<void(llvm::Value*)>& body, int site = -1);
    void poll(int site);
    // The loops that poll, by site id: the watchdog's diagnostic points at the one a block was in.
    std::vector<Span> sites;
    llvm::BasicBlock* new_block(const char* name);
    void if_then(llvm::Value* cond, const std::function<void()>& then_fn, const std::function<void()>& else_fn = nullptr);
    llvm::Value* call_intrinsic(llvm::Intrinsic::ID id, llvm::Type* t, std::vector<llvm::Value*> args);
    llvm::Value* call_libm(const char* name, std::vector<llvm::Value*> args);  // double name(double...)

    void stmt(const ir::Stmt& s);
    void tile_copy(const ir::CopyOpNode& c);
    void tile_copy_dynamic(const ir::CopyOpNode& c, BufInfo& sb, BufInfo& db);
    void tile_fill(const ir::FillOpNode& f);
    void tile_reduce(const ir::ReduceOpNode& r);
    void tile_gemm(const ir::GemmOpNode& g);
    // T.atomic_add (emit_atomic.cpp) and T.print (emit_print.cpp).
    void atomic_add_op(const ir::AtomicAddOpNode& a);
    llvm::Value* atomic_add_prev(const ir::CallNode& c);
    llvm::Value* atomic_add_elem(BufInfo& bi, llvm::Value* flat, llvm::Value* x, ir::DataType xt);  // returns the old value
    llvm::Value* atomic_sum(llvm::Value* old, ir::DataType t, llvm::Value* x, ir::DataType xt);
    void print_op(const ir::PrintOpNode& p);
    // mbarriers and T.ws roles (emit_barrier.cpp); the threads an arrive counts.
    void allocate_barrier(const ir::AllocateNode& a);
    void barrier_op(const ir::BarrierOpNode& op);
    void role_block(const ir::RoleBlockNode& r);
    int64_t block_threads = 1, role_threads = 0;
    bool has_print = false;
    // Thread mode (emit_threads.cpp): a thread-level kernel (interp::thread_level), each block
    // run as its threads on fibers. Block-wide statements (tile ops, T.Parallel) are run by
    // thread 0 between two barriers, as the interpreter does; shared and fragment buffers live
    // in the block's area (`shared_bytes`), local ones in each thread's frame.
    bool thread_mode = false;
    int wide_depth = 0;        // inside a block-wide statement, which thread 0 runs alone
    int64_t barrier_keys = 0;  // barrier sites so far; site k waits at keys 2k and 2k + 1
    int64_t shared_bytes = 0;
    std::vector<int64_t> thread_extents;
    bool collective(const ir::Stmt& s);  // emitted s as a block-wide statement; false if it is not one
    void barrier(int64_t key);
    llvm::Value* warp_shuffle(const ir::CallNode& c);
    void bind_thread_vars(const ir::KernelLaunchNode& k);
    // The base of a block-local buffer of `bytes` that belongs to the block (thread mode, not
    // local scope): a slice of the shared area, set up by thread 0 (`init`) alone.
    llvm::Value* block_area(const ir::BufferNode& buf, int64_t bytes, const std::function<void(llvm::Value*)>& init);
    // An element's bits (an integer of its width) to the dtype's value type and back.
    llvm::Value* decode_bits(llvm::Value* raw, ir::DataType t);
    llvm::Value* encode_bits(llvm::Value* v, ir::DataType t);
    llvm::Value* reinterpret(const ir::CallNode& c);  // T.reinterpret: the bits read as c.dtype
    // fp8 (emit_print.cpp): a byte's value, a value's byte, a value rounded to the dtype.
    llvm::Value* fp8_decode(llvm::Value* raw, ir::DataType t);
    llvm::Value* fp8_encode(llvm::Value* v, ir::DataType t);
    llvm::Value* fp8_round(llvm::Value* v, ir::DataType t);
    // The constant extents of a region (Reject when one is not constant), and its mins.
    std::vector<int64_t> const_extents(const ir::BufferRegion& r, const char* op);
    std::vector<llvm::Value*> region_mins(const ir::BufferRegion& r);
    // Loops over constant extents, innermost last; body gets the counters.
    void nest(const std::vector<int64_t>& ext, const std::function<void(const std::vector<llvm::Value*>&)>& body);
    // i1: every coordinate of the box [min, min + ext) lies inside the buffer.
    // The descriptors region_helpers.h reads, built in the frame.
    llvm::Value* region_desc(BufInfo& bi, const std::vector<llvm::Value*>& mins);
    llvm::Value* region_map(const std::vector<int64_t>& ext, const std::vector<int64_t>& sdim, const std::vector<int64_t>& ddim);
    llvm::Value* box_inside(BufInfo& bi, const std::vector<llvm::Value*>& mins, const std::vector<int64_t>& ext);

    llvm::AllocaInst* entry_alloca(llvm::Type* t, llvm::Value* n, const std::string& name, uint64_t align = 64);

private:
    llvm::Function* fn = nullptr;
    llvm::BasicBlock* exit_bb = nullptr;
    llvm::AllocaInst* fault_slot = nullptr;
    llvm::Value *ctx_arg = nullptr, *state_arg = nullptr, *stop_ptr = nullptr;
    llvm::Value *rank_val = nullptr, *shared_base = nullptr;  // thread mode: State::rank, State::shared
    llvm::Value* block_idx[3] = {nullptr, nullptr, nullptr};
    std::unordered_map<const ir::VarNode*, llvm::AllocaInst*> vars;
    std::unordered_map<const ir::BufferNode*, BufInfo> bufs;
    std::vector<llvm::BasicBlock*> break_targets;
    bool in_launch = false;

    friend struct ExprEmitter;
    llvm::Value* var(const ir::VarNode* v);
    llvm::AllocaInst* var_slot(const ir::Var& v);
    void bind_params();
    void begin_function(const char* name, bool block);
    void for_stmt(const ir::ForNode& f);
    void while_stmt(const ir::WhileNode& w);
    void allocate(const ir::AllocateNode& a);
    void launch(const ir::KernelLaunchNode& k);
    void store_stmt(const ir::BufferStoreNode& s);
};

// Pairs the region dims of a copy (or a tile atomic add) as the interpreter's map_regions does:
// unit dims squeezed, a head index (every extent 1) spanning the other side's extents.
bool pair_region_dims(std::vector<int64_t>& s, std::vector<int64_t>& d, std::vector<int>& sn, std::vector<int>& dn);

// Whether a statement holds a loop or a tile op (outer loops poll the stop flag; inner ones do
// not, so the vectoriser sees a loop with one exit).
bool has_inner_work(const ir::Stmt& s);

}  // namespace tp::jit
