// The builtin table. Signatures follow TileLang's documented parameters; the docs are ours.
#include "editor/builtins.h"

#include <QStringList>

namespace tpui {

const std::vector<Builtin>& dsl_builtins() {
    static const std::vector<Builtin> b = {
        {"prim_func", "", "decorator: the function below is a kernel traced into Tile IR"},
        {"Kernel", "(*grid, threads=128, prelude=None)", "launch a grid of thread blocks; binds block indices (bx, by, ...)"},
        {"Tensor", "(shape, dtype)", "annotation of a global-memory tensor parameter"},
        {"Buffer", "(shape, dtype)", "annotation of a buffer parameter (older spelling of Tensor)"},
        {"alloc_shared", "(shape, dtype, scope=\"shared.dyn\")", "allocate a tile in the block's shared memory"},
        {"alloc_fragment", "(shape, dtype)", "allocate a tile distributed over the threads' registers"},
        {"alloc_local", "(shape, dtype)", "allocate per-thread local storage"},
        {"alloc_var", "(dtype, init=None)", "a scalar variable held in a register"},
        {"copy", "(src, dst, coalesced_width=None)", "copy a tile between global, shared and register memory; vectorised and async where it can be"},
        {"gemm", "(A, B, C, transpose_A=False, transpose_B=False, policy=None, clear_accum=False)", "C += A @ B on Tensor Cores over tiles in shared memory or registers"},
        {"fill", "(buffer, value)", "set every element of a tile to a value"},
        {"clear", "(buffer)", "set every element of a tile to zero"},
        {"Pipelined", "(extent, num_stages=0, order=None, stage=None)", "a serial loop whose copies are software-pipelined over num_stages buffers"},
        {"Parallel", "(*extents)", "an element-wise loop nest spread over the block's threads"},
        {"serial", "(start, stop=None, step=1)", "a plain sequential loop"},
        {"unroll", "(start, stop=None)", "a sequential loop the compiler unrolls"},
        {"vectorized", "(extent)", "a loop turned into vector instructions"},
        {"reduce_max", "(src, dst, dim=-1, clear=True)", "maximum along one dimension of a tile"},
        {"reduce_sum", "(src, dst, dim=-1, clear=True)", "sum along one dimension of a tile"},
        {"reduce_min", "(src, dst, dim=-1, clear=True)", "minimum along one dimension of a tile"},
        {"reduce_abssum", "(src, dst, dim=-1)", "sum of absolute values along one dimension"},
        {"reduce_absmax", "(src, dst, dim=-1, clear=True)", "maximum absolute value along one dimension"},
        {"cumsum", "(src, dst=None, dim=0, reverse=False)", "running sum along one dimension"},
        {"atomic_add", "(dst, value)", "atomically add into global or shared memory"},
        {"atomic_max", "(dst, value)", "atomically take the maximum"},
        {"use_swizzle", "(panel_size=10, order=\"row\", enable=True)", "reorder blocks so neighbours share L2 lines"},
        {"annotate_layout", "(layouts)", "pin the memory layout of shared buffers"},
        {"ceildiv", "(a, b)", "integer division rounding up"},
        {"max", "(a, b)", "larger of two values"},
        {"min", "(a, b)", "smaller of two values"},
        {"exp", "(x)", "e to the power x"},
        {"exp2", "(x)", "2 to the power x (fast on GPUs)"},
        {"log", "(x)", "natural logarithm"},
        {"log2", "(x)", "base-2 logarithm"},
        {"sqrt", "(x)", "square root"},
        {"rsqrt", "(x)", "reciprocal square root"},
        {"tanh", "(x)", "hyperbolic tangent"},
        {"abs", "(x)", "absolute value"},
        {"if_then_else", "(cond, a, b)", "a where cond holds, else b"},
        {"infinity", "(dtype)", "positive infinity of a dtype"},
        {"cast", "(x, dtype)", "convert a value to another dtype"},
        {"print", "(obj, msg=\"\")", "print a value or tile from the kernel (debugging)"},
        {"float16", "", "16-bit IEEE float"},
        {"bfloat16", "", "16-bit brain float"},
        {"float32", "", "32-bit float"},
        {"float8_e4m3", "", "8-bit float, 4 exponent bits"},
        {"int32", "", "32-bit signed integer"},
        {"int8", "", "8-bit signed integer"},
        {"const", "(name)", "a symbolic size bound when the kernel is called"},
        {"empty", "(shape, dtype)", "allocate the output tensor of an eager kernel"},
        {"sync_threads", "()", "barrier across the thread block"},
        {"thread_binding", "(start, stop, thread=\"threadIdx.x\")", "a loop bound to a thread index"},
        {"get_thread_binding", "(dim=0)", "the current thread index"},
        {"dynamic", "(name)", "a dimension only known at run time"},
    };
    return b;
}

const Builtin* find_builtin(const QString& name) {
    for (const auto& b : dsl_builtins())
        if (name == QLatin1String(b.name)) return &b;
    return nullptr;
}

QString builtin_keyword_list() {
    QStringList names;
    for (const auto& b : dsl_builtins()) names << QString::fromLatin1(b.name);
    return names.join(' ');
}

}  // namespace tpui
