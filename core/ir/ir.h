// Tile IR: the immutable tree a traced kernel becomes. Expressions and statements are
// shared_ptr<const Node>; passes build new nodes and keep the old ones when nothing changed.
// The list of node kinds lives in ir_nodes.def; each node records the DSL span it came from
// so generated CUDA can carry `#line` back to the DSL.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "tileplay/source.h"

namespace tp::ir {

enum class NodeKind {
#define IR_EXPR(Name) Name,
#define IR_STMT(Name) Name,
#include "ir/ir_nodes.def"
};
const char* node_kind_name(NodeKind k);

struct Node {
    NodeKind kind;
    Span span;
    explicit Node(NodeKind k, Span s = {}) : kind(k), span(s) {}
    virtual ~Node() = default;
};

// ------------------------------------------------------------------------ expressions
struct ExprNode : Node {
    DataType dtype;
    ExprNode(NodeKind k, DataType t, Span s) : Node(k, s), dtype(t) {}
    template <class T> const T* as() const { return kind == T::Kind ? static_cast<const T*>(this) : nullptr; }
};
using Expr = std::shared_ptr<const ExprNode>;

#define TP_IR_NODE(Name) static constexpr NodeKind Kind = NodeKind::Name;

struct IntImmNode : ExprNode {
    TP_IR_NODE(IntImm)
    int64_t value;
    IntImmNode(DataType t, int64_t v, Span s = {}) : ExprNode(Kind, t, s), value(v) {}
};
struct FloatImmNode : ExprNode {
    TP_IR_NODE(FloatImm)
    double value;
    FloatImmNode(DataType t, double v, Span s = {}) : ExprNode(Kind, t, s), value(v) {}
};
struct StringImmNode : ExprNode {
    TP_IR_NODE(StringImm)
    std::string value;
    StringImmNode(std::string v, Span s = {}) : ExprNode(Kind, DataType::void_(), s), value(std::move(v)) {}
};

// Identity is the node's address: two Vars with the same name are different variables.
enum class VarKind { Plain, Loop, BlockIdx, ThreadIdx, Param, Symbolic };
struct VarNode : ExprNode {
    TP_IR_NODE(Var)
    std::string name;
    VarKind var_kind;
    VarNode(std::string n, DataType t, VarKind vk = VarKind::Plain, Span s = {})
        : ExprNode(Kind, t, s), name(std::move(n)), var_kind(vk) {}
};
using Var = std::shared_ptr<const VarNode>;

enum class BinaryOp {
    Add, Sub, Mul, Div /* true division for floats, C division for ints */, Mod /* C remainder */,
    FloorDiv, FloorMod, Min, Max, EQ, NE, LT, LE, GT, GE, And, Or, BitAnd, BitOr, BitXor, Shl, Shr
};
const char* binary_op_name(BinaryOp op);  // "+", "//", "min", "&&", ...
bool is_comparison(BinaryOp op);

struct BinaryNode : ExprNode {
    TP_IR_NODE(Binary)
    BinaryOp op;
    Expr a, b;
    BinaryNode(BinaryOp o, Expr x, Expr y, DataType t, Span s = {}) : ExprNode(Kind, t, s), op(o), a(std::move(x)), b(std::move(y)) {}
};

enum class UnaryOp { Neg, Not, BitNot };
struct UnaryNode : ExprNode {
    TP_IR_NODE(Unary)
    UnaryOp op;
    Expr a;
    UnaryNode(UnaryOp o, Expr x, DataType t, Span s = {}) : ExprNode(Kind, t, s), op(o), a(std::move(x)) {}
};
struct CastNode : ExprNode {
    TP_IR_NODE(Cast)
    Expr value;
    CastNode(DataType t, Expr v, Span s = {}) : ExprNode(Kind, t, s), value(std::move(v)) {}
};
struct SelectNode : ExprNode {
    TP_IR_NODE(Select)
    Expr cond, true_value, false_value;
    SelectNode(Expr c, Expr t, Expr f, DataType dt, Span s = {})
        : ExprNode(Kind, dt, s), cond(std::move(c)), true_value(std::move(t)), false_value(std::move(f)) {}
};

// ---------------------------------------------------------------------------- buffers
// Barrier: T.alloc_barrier's mbarriers (one 64-bit word each in shared memory); not a tile.
enum class Scope { Global, Shared, Fragment, Local, Var, Barrier };
const char* scope_name(Scope s);  // "global", "shared", "fragment", "local", "var", "barrier"

struct BufferNode {
    std::string name;
    DataType dtype;
    std::vector<Expr> shape;  // row-major, contiguous
    Scope scope;
    Span span;                // where it was declared / allocated
    // Physical layout chosen by lowering for shared tiles: "" row-major, "swizzle" for the
    // XOR-swizzled 16-byte chunks of tp::SmemTile (last two dims; leading dims are stages).
    std::string layout;
    // Scope::Barrier: the arrivals that complete a phase of each mbarrier (T.alloc_barrier's list).
    std::vector<int64_t> arrive_counts;
    // Shared staging owned by one runtime helper that orders its own uses (tp_store_stage:
    // frag_store_tma gives each warpgroup its own half and waits on its own bulk stores and
    // named barrier), so insert_syncs adds no block barrier for it.
    bool self_ordered = false;
    BufferNode(std::string n, DataType t, std::vector<Expr> sh, Scope sc, Span s = {})
        : name(std::move(n)), dtype(t), shape(std::move(sh)), scope(sc), span(s) {}
};
using Buffer = std::shared_ptr<const BufferNode>;

struct BufferLoadNode : ExprNode {
    TP_IR_NODE(BufferLoad)
    Buffer buffer;
    std::vector<Expr> indices;
    BufferLoadNode(Buffer b, std::vector<Expr> idx, Span s = {})
        : ExprNode(Kind, b->dtype, s), buffer(std::move(b)), indices(std::move(idx)) {}
};

// Intrinsic calls by name: "exp", "exp2", "log", "log2", "rsqrt", "sqrt", "abs", "tanh", "erf",
// "pow", "floor", "ceil", "sin", "cos", "sigmoid", "infinity", "clamp", ... The registry of
// names and arities is in ir/intrinsics.h.
struct CallNode : ExprNode {
    TP_IR_NODE(Call)
    std::string op;
    std::vector<Expr> args;
    CallNode(std::string o, std::vector<Expr> a, DataType t, Span s = {}) : ExprNode(Kind, t, s), op(std::move(o)), args(std::move(a)) {}
};

// ------------------------------------------------------------------------- statements
struct StmtNode : Node {
    using Node::Node;
    template <class T> const T* as() const { return kind == T::Kind ? static_cast<const T*>(this) : nullptr; }
};
using Stmt = std::shared_ptr<const StmtNode>;

struct SeqStmtNode : StmtNode {
    TP_IR_NODE(SeqStmt)
    std::vector<Stmt> seq;
    explicit SeqStmtNode(std::vector<Stmt> s, Span sp = {}) : StmtNode(Kind, sp), seq(std::move(s)) {}
};

enum class ForKind { Serial, Unrolled, Parallel, Pipelined, Vectorized };
const char* for_kind_name(ForKind k);
struct ForNode : StmtNode {
    TP_IR_NODE(For)
    Var loop_var;
    Expr min, extent;
    ForKind for_kind;
    Stmt body;
    // Pipelined: num_stages and the optional order/stage/group lists of T.Pipelined.
    int num_stages = 0;
    std::vector<int> order, stage;
    std::vector<std::vector<int>> group;
    ForNode(Var v, Expr mn, Expr ext, ForKind k, Stmt b, Span s = {})
        : StmtNode(Kind, s), loop_var(std::move(v)), min(std::move(mn)), extent(std::move(ext)), for_kind(k), body(std::move(b)) {}
};
struct WhileNode : StmtNode {
    TP_IR_NODE(While)
    Expr cond;
    Stmt body;
    WhileNode(Expr c, Stmt b, Span s = {}) : StmtNode(Kind, s), cond(std::move(c)), body(std::move(b)) {}
};
struct IfThenElseNode : StmtNode {
    TP_IR_NODE(IfThenElse)
    Expr cond;
    Stmt then_case, else_case;  // else_case may be null
    IfThenElseNode(Expr c, Stmt t, Stmt e, Span s = {}) : StmtNode(Kind, s), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
};
struct LetStmtNode : StmtNode {
    TP_IR_NODE(LetStmt)
    Var var;
    Expr value;
    Stmt body;
    LetStmtNode(Var v, Expr val, Stmt b, Span s = {}) : StmtNode(Kind, s), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
};
struct BufferStoreNode : StmtNode {
    TP_IR_NODE(BufferStore)
    Buffer buffer;
    std::vector<Expr> indices;
    Expr value;
    BufferStoreNode(Buffer b, std::vector<Expr> idx, Expr v, Span s = {})
        : StmtNode(Kind, s), buffer(std::move(b)), indices(std::move(idx)), value(std::move(v)) {}
};
struct EvaluateNode : StmtNode {
    TP_IR_NODE(Evaluate)
    Expr value;
    explicit EvaluateNode(Expr v, Span s = {}) : StmtNode(Kind, s), value(std::move(v)) {}
};
struct BreakNode : StmtNode {
    TP_IR_NODE(Break)
    explicit BreakNode(Span s = {}) : StmtNode(Kind, s) {}
};
// Declares `buffer` (shared/fragment/local/var scope) for `body`. Allocation sites inside a
// kernel are hoisted to the kernel's top by the evaluator, in program order.
struct AllocateNode : StmtNode {
    TP_IR_NODE(Allocate)
    Buffer buffer;
    Expr init;  // T.alloc_var(dtype, init=...) initial value, or null
    Stmt body;
    AllocateNode(Buffer b, Expr i, Stmt bd, Span s = {}) : StmtNode(Kind, s), buffer(std::move(b)), init(std::move(i)), body(std::move(bd)) {}
};
// with T.Kernel(gx, gy, gz, threads=(tx, ty, tz)) as (bx, by, bz): body
// CUDA launches at most 65535 blocks along y and z. A grid past that (a 2-D grid of 262144 rows
// of tiles) is launched as one x dimension of all its blocks, and each block takes its indices
// apart again; the evaluator checks that the product fits in x.
bool needs_linear_grid(const std::vector<Expr>& grid);

struct KernelLaunchNode : StmtNode {
    TP_IR_NODE(KernelLaunch)
    std::vector<Expr> grid;        // 1..3 extents
    std::vector<Var> block_vars;   // blockIdx.x/y/z, same length as grid
    std::vector<int64_t> threads;  // 1..3 extents (product <= 1024)
    std::vector<Var> thread_vars;  // threadIdx.x/y/z, used by T.get_thread_binding and lowering
    Stmt body;
    KernelLaunchNode(std::vector<Expr> g, std::vector<Var> bv, std::vector<int64_t> t, std::vector<Var> tv, Stmt b, Span s = {})
        : StmtNode(Kind, s), grid(std::move(g)), block_vars(std::move(bv)), threads(std::move(t)), thread_vars(std::move(tv)), body(std::move(b)) {}
    int64_t num_threads() const { int64_t n = 1; for (auto t : threads) n *= t; return n; }
    bool linear_grid() const { return needs_linear_grid(grid); }
};

// -------------------------------------------------------------------------- tile ops
// A rectangular region of a buffer. Dims indexed by a scalar have extent 1.
struct Range {
    Expr min, extent;
};
struct BufferRegion {
    Buffer buffer;
    std::vector<Range> region;  // one per buffer dim
};

struct CopyOpNode : StmtNode {
    TP_IR_NODE(CopyOp)
    BufferRegion src, dst;
    bool disable_tma = false;
    int coalesced_width = 0;
    // T.tma_copy(..., barrier=bars[i]): a load whose completion the user tracks on that
    // mbarrier (a BufferLoad of a Scope::Barrier buffer); null for T.copy.
    Expr barrier;
    CopyOpNode(BufferRegion s_, BufferRegion d, Span s = {}) : StmtNode(Kind, s), src(std::move(s_)), dst(std::move(d)) {}
};

enum class GemmWarpPolicy { Square, FullRow, FullCol };
const char* gemm_policy_name(GemmWarpPolicy p);
struct GemmOpNode : StmtNode {
    TP_IR_NODE(GemmOp)
    BufferRegion A, B, C;
    bool transpose_A = false, transpose_B = false, clear_accum = false;
    GemmWarpPolicy policy = GemmWarpPolicy::Square;
    int k_pack = 1;
    int wg_wait = 0;
    GemmOpNode(BufferRegion a, BufferRegion b, BufferRegion c, Span s = {}) : StmtNode(Kind, s), A(std::move(a)), B(std::move(b)), C(std::move(c)) {}
};
struct FillOpNode : StmtNode {
    TP_IR_NODE(FillOp)
    BufferRegion dst;
    Expr value;  // T.clear is a fill with 0
    FillOpNode(BufferRegion d, Expr v, Span s = {}) : StmtNode(Kind, s), dst(std::move(d)), value(std::move(v)) {}
};
enum class ReduceKind { Max, Sum, Min, AbsSum, AbsMax };
const char* reduce_kind_name(ReduceKind k);
struct ReduceOpNode : StmtNode {
    TP_IR_NODE(ReduceOp)
    ReduceKind reduce_kind;
    Buffer src, dst;
    int dim;     // normalised to >= 0
    bool clear;  // true: dst = reduce(src); false: dst = combine(dst, reduce(src))
    ReduceOpNode(ReduceKind k, Buffer s_, Buffer d, int dm, bool c, Span s = {})
        : StmtNode(Kind, s), reduce_kind(k), src(std::move(s_)), dst(std::move(d)), dim(dm), clear(c) {}
};
// dst += src. src is a region (tile form) or a scalar value (dst region of one element).
struct AtomicAddOpNode : StmtNode {
    TP_IR_NODE(AtomicAddOp)
    BufferRegion dst;
    std::variant<BufferRegion, Expr> src;
    AtomicAddOpNode(BufferRegion d, std::variant<BufferRegion, Expr> sr, Span s = {}) : StmtNode(Kind, s), dst(std::move(d)), src(std::move(sr)) {}
};
// T.print(obj, msg=""): obj is a buffer (printed whole) or a scalar expression.
struct PrintOpNode : StmtNode {
    TP_IR_NODE(PrintOp)
    std::variant<Buffer, Expr> value;
    std::string msg;
    PrintOpNode(std::variant<Buffer, Expr> v, std::string m, Span s = {}) : StmtNode(Kind, s), value(std::move(v)), msg(std::move(m)) {}
};
struct AssertOpNode : StmtNode {
    TP_IR_NODE(AssertOp)
    Expr cond;
    std::string msg;
    AssertOpNode(Expr c, std::string m, Span s = {}) : StmtNode(Kind, s), cond(std::move(c)), msg(std::move(m)) {}
};
// T.use_swizzle(panel_size, order="row", enable=True): remaps block indices for L2 reuse.
struct SwizzleOpNode : StmtNode {
    TP_IR_NODE(SwizzleOp)
    int panel_size = 10;
    bool row_order = true;
    bool enable = true;
    explicit SwizzleOpNode(int p, bool row, bool en, Span s = {}) : StmtNode(Kind, s), panel_size(p), row_order(row), enable(en) {}
};
// T.annotate_layout({buf: layout}): layouts are kept by name ("swizzled", "padded", ...).
struct LayoutAnnotationOpNode : StmtNode {
    TP_IR_NODE(LayoutAnnotationOp)
    std::vector<std::pair<Buffer, std::string>> layouts;
    explicit LayoutAnnotationOpNode(std::vector<std::pair<Buffer, std::string>> l, Span s = {}) : StmtNode(Kind, s), layouts(std::move(l)) {}
};
// Producer/consumer warp specialisation (transform/warp_specialize): threads
// [0, consumer_threads) run `consumer`, the producer_threads after them run `producer`, each
// branch first resizing its registers with setmaxnreg (0: leave them). Only passes make it;
// codegen emits one if/else on the thread index, the form setmaxnreg needs.
//
// Consumer groups (consumer_groups = G > 1): the consumers are G groups of consumer_threads
// threads, and each group runs `consumer` as one logical block of the original grid: inside
// `consumer` the launch's block variable number `group_axis` denotes launched * G + group and
// its thread variable the thread's index within the group, while `group_var` holds the group
// (shared tiles a group owns are indexed by it). The producer sees the launch's own indices.
// Passes after the split lower the consumer body for consumer_threads threads, as without groups.
struct WarpRolesNode : StmtNode {
    TP_IR_NODE(WarpRoles)
    int64_t consumer_threads = 0, producer_threads = 0;
    int consumer_regs = 0, producer_regs = 0;
    Stmt producer, consumer;
    int64_t consumer_groups = 1;
    int group_axis = 0;
    Var group_var;  // set when consumer_groups > 1
    WarpRolesNode(int64_t ct, int64_t pt, int cr, int pr, Stmt p, Stmt c, Span s = {})
        : StmtNode(Kind, s), consumer_threads(ct), producer_threads(pt), consumer_regs(cr), producer_regs(pr),
          producer(std::move(p)), consumer(std::move(c)) {}
    // The same roles and groups with other code.
    std::shared_ptr<WarpRolesNode> with(Stmt p, Stmt c) const {
        auto n = std::make_shared<WarpRolesNode>(*this);
        n->producer = std::move(p);
        n->consumer = std::move(c);
        return n;
    }
    int64_t all_consumer_threads() const { return consumer_threads * consumer_groups; }
};
// with T.ws(g0, g1, ...): body runs on warp groups g0, g1, ... (threads [128 g, 128 g + 128) of
// the block's linear thread index) while the block's other threads skip it. Tile ops inside
// are laid out for those threads only, whose thread index counts from the first group's start
// (TileLang's T.ws). Groups are sorted, distinct and contiguous (the evaluator checks).
struct RoleBlockNode : StmtNode {
    TP_IR_NODE(RoleBlock)
    static constexpr int64_t kGroupThreads = 128;
    std::vector<int64_t> groups;
    Stmt body;
    RoleBlockNode(std::vector<int64_t> g, Stmt b, Span s = {}) : StmtNode(Kind, s), groups(std::move(g)), body(std::move(b)) {}
    int64_t first_thread() const { return groups.front() * kGroupThreads; }
    int64_t num_threads() const { return static_cast<int64_t>(groups.size()) * kGroupThreads; }
};

// An mbarrier operation on element `index` of a Scope::Barrier buffer (core/ops/barrier.h).
// Arrive: every thread that runs it arrives once; Wait: until the phase of parity `value`
// completed; ExpectTx: the phase also waits for `value` bytes of async copies; ArriveExpectTx
// both (the bytes first).
enum class BarrierKind { Arrive, Wait, ExpectTx, ArriveExpectTx };
const char* barrier_kind_name(BarrierKind k);  // "mbarrier_arrive", "mbarrier_wait_parity", ...
struct BarrierOpNode : StmtNode {
    TP_IR_NODE(BarrierOp)
    BarrierKind barrier_kind;
    Buffer barrier;
    Expr index;
    Expr value;  // parity (Wait) or bytes (ExpectTx, ArriveExpectTx); null for Arrive
    BarrierOpNode(BarrierKind k, Buffer b, Expr i, Expr v, Span s = {})
        : StmtNode(Kind, s), barrier_kind(k), barrier(std::move(b)), index(std::move(i)), value(std::move(v)) {}
};
#undef TP_IR_NODE

// --------------------------------------------------------------------------- function
// A kernel parameter: a global tensor or a scalar (including symbolic dims left dynamic).
struct Param {
    std::string name;
    Buffer buffer;  // set for tensors
    Var var;        // set for scalars
    // Listed in out_idx or created by T.empty, or a T.alloc_global workspace: the runner
    // allocates it zeroed instead of filling it with inputs, and reads it back.
    bool is_output = false;
    bool is_workspace = false;  // a T.alloc_global buffer: allocated like an output, never returned
};

struct PrimFunc {
    std::string name;
    std::vector<Param> params;
    Stmt body;  // one KernelLaunch per `T.Kernel` block, in program order (ir/launches.h)
    Span span;
    std::map<std::string, std::string> attrs;  // e.g. "fast_math" -> "true"
    std::map<std::string, int64_t> bound_params;  // factory parameters used, for reports
};
using PrimFuncPtr = std::shared_ptr<const PrimFunc>;

// ------------------------------------------------------------------------- builders
// Thin constructors; arithmetic ones fold constants (2*64 -> 128, x+0 -> x) so index math
// in generated code stays readable. Defined in ir/builder.cpp.
Expr int_imm(int64_t v, DataType t = DataType::int32(), Span s = {});
Expr float_imm(double v, DataType t = DataType::float32(), Span s = {});
Expr make_binary(BinaryOp op, Expr a, Expr b, Span s = {});  // result dtype by C-like promotion
Expr make_unary(UnaryOp op, Expr a, Span s = {});
Expr make_cast(DataType t, Expr v, Span s = {});
Expr make_select(Expr c, Expr t, Expr f, Span s = {});
Expr make_call(std::string op, std::vector<Expr> args, DataType t, Span s = {});
Stmt make_seq(std::vector<Stmt> stmts, Span s = {});  // flattens nested SeqStmt, drops nulls
// Appends the statements of `s` to `out`: nested SeqStmts opened, in order, nulls dropped.
void flatten_seq(const Stmt& s, std::vector<Stmt>& out);
std::optional<int64_t> as_const_int(const Expr& e);
std::optional<double> as_const_float(const Expr& e);
DataType promote(DataType a, DataType b);

// Prints the IR as TileLang-like Python text (`--emit=ir`). Defined in ir/printer.cpp.
std::string print(const PrimFunc& f);
std::string print(const Stmt& s, int indent = 0);
std::string print(const Expr& e);

}  // namespace tp::ir
