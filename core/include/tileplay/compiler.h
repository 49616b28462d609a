// The compiler's public entry point: compile(CompileRequest) -> CompileResult. Every stage's
// text, diagnostics, line maps, pass snapshots, timings and resource usage come back in one
// value; `tilec compile --emit=...`, `tilec run` and the playground all read it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tileplay/diagnostics.h"
#include "tileplay/source.h"

namespace tp {
namespace ir { struct PrimFunc; }
namespace ast { struct Module; }

enum class Stage { Ast, Ir, Lowered, Cuda, Ptx, Cubin };
const char* stage_name(Stage s);
std::optional<Stage> parse_stage(const std::string& s);

// Targets the code generator knows. sm_90a enables wgmma/setmaxnreg.
const std::vector<std::string>& supported_targets();
// Whether code compiled for `target` runs on a GPU whose own target is `device`: the same
// architecture, or its arch-specific variant (sm_90a code on an sm_90 device).
bool target_runs_on(const std::string& target, const std::string& device);

// First thing in main(), before any thread starts: process settings the compiler relies on
// (NVRTC must run ptxas on every compile so its resource report is there).
void prepare_process();

inline constexpr int64_t kDefaultTraceStepLimit = 20000000;

struct CompileRequest {
    std::string path;    // shown in diagnostics and #line; read from disk when source is empty
    std::string source;  // the DSL text
    std::string kernel;  // factory to compile; empty = the only / first kernel in the file
    // -D NAME=VALUE, raw text; values parse as int, float, bool (True/False/true/false), dtype
    // name or string.
    std::vector<std::pair<std::string, std::string>> defines;
    // Used only for parameters still unbound after `defines` (the sample header's args).
    std::vector<std::pair<std::string, std::string>> fallback_defines;
    std::string target = "sm_90";
    Stage stop_after = Stage::Cubin;  // later stages are skipped
    std::vector<std::string> print_after;  // pass names whose output IR is kept
    bool print_after_all = false;
    bool lineinfo = true;  // -lineinfo and #line directives
    bool fast_math = false;
    // --pass-config KEY=VALUE: TileLang pass_configs (e.g. `tl.disable_warp_specialized=true`)
    // set over the ones the file's @tilelang.jit gives.
    std::vector<std::pair<std::string, std::string>> pass_configs;
    // Trace-time statements and comprehension items the factory may execute before the
    // TraceStepBudget error (about 2 s in a release build). The fuzz target sets less: under
    // AddressSanitizer the default takes longer than its per-input timeout.
    int64_t trace_step_limit = kDefaultTraceStepLimit;
};

struct StageTiming {
    std::string name;  // "tokenize", "parse", "evaluate", pass names, "codegen", "nvrtc-ptx", ...
    double ms = 0;
};

struct PassSnapshot {
    std::string pass;
    std::string ir;  // IR text after the pass
    double ms = 0;
};

// Maps lines of a generated text to DSL lines (1-based; 0 = no DSL line).
struct LineMap {
    std::vector<uint32_t> to_dsl;  // index: generated line - 1
    uint32_t dsl_line(uint32_t generated_line) const {
        return generated_line >= 1 && generated_line <= to_dsl.size() ? to_dsl[generated_line - 1] : 0;
    }
};

struct ResourceUsage {
    int registers = -1;
    int64_t static_shared_bytes = -1;
    int64_t dynamic_shared_bytes = 0;
    int64_t spill_store_bytes = -1;
    int64_t spill_load_bytes = -1;
    int64_t stack_bytes = -1;
};

struct TensorParamInfo {
    std::string name;
    std::string dtype;           // "float16"
    std::vector<int64_t> shape;  // -1 for a dimension left symbolic
    std::vector<std::string> shape_text;
    bool is_output = false;
    bool is_workspace = false;  // T.alloc_global: the runner allocates it (zeroed); not a result
    bool is_scalar = false;
};

// A TMA tensor map (sm_90a warp-specialized GEMM): the launcher encodes it with
// cuTensorMapEncodeTiled over the tensor parameter `param` (row-major; dims and strides come
// from its shape) and passes the 128 bytes by value after the ordinary parameters, in order.
struct TensorMapInfo {
    std::string param;
    std::vector<int64_t> box;  // box extents in elements, innermost first
    int swizzle_bytes = 128;   // 0 (none), 32, 64 or 128
    // The tensor as the map sees it (outermost first, row-major, same element count), e.g.
    // [batch, heads, seq, dim] as [batch * heads, seq, dim]; empty: the tensor's own shape.
    std::vector<int64_t> view;
};

// A later `T.Kernel` launch of a kernel function with several (TileLang runs each `with
// T.Kernel` block as its own launch, in program order on one stream, so a later launch reads
// what an earlier one wrote): its own __global__ function, geometry, shared memory and TMA maps.
// The fields mean what KernelInfo's fields of the same name mean for the first launch.
struct LaunchInfo {
    std::string name;
    std::vector<std::string> grid_text;
    std::vector<int64_t> grid;
    std::vector<int64_t> threads;
    std::vector<int64_t> logical_grid;
    std::vector<std::string> logical_grid_text;
    int64_t dynamic_shared_bytes = 0;
    std::vector<TensorMapInfo> tensor_maps;
    bool persistent = false;
    int blocks_per_sm = 1;
};

struct KernelInfo {
    // The first (usually the only) launch: name, grid, threads, shared memory, TMA maps and
    // persistence below are its; later launches are in later_launches.
    std::string name;         // name of the generated __global__ function
    std::string factory;      // Python function it came from
    std::vector<TensorParamInfo> params;
    std::vector<std::string> grid_text;  // grid extents as expressions
    std::vector<int64_t> grid;           // evaluated where constant, else -1
    std::vector<int64_t> threads;
    // The grid as the DSL wrote it. Passes may launch fewer, coarser blocks (grid above);
    // the CPU interpreter runs the DSL's blocks, so sampled checks index these.
    std::vector<int64_t> logical_grid;
    std::vector<std::string> logical_grid_text;
    int64_t dynamic_shared_bytes = 0;
    std::map<std::string, std::string> bound_params;  // factory argument -> value used
    std::vector<TensorMapInfo> tensor_maps;           // extra __grid_constant__ parameters
    // A persistent kernel: `grid` is one block per work unit and the kernel walks its units
    // by gridDim.x, so the launcher caps grid x at the device's multiprocessor count times
    // blocks_per_sm (the blocks of this kernel one SM holds at once: __launch_bounds__'s B).
    bool persistent = false;
    int blocks_per_sm = 1;
    // A floor for the relative error the GPU check allows, where the kernel's arithmetic is
    // coarser than the interpreter's (fp8 wgmma accumulation); 0 when the dtype's default holds.
    double check_tolerance = 0;
    std::vector<LaunchInfo> later_launches;  // launches 1.. in program order; empty for one launch

    size_t launch_count() const { return 1 + later_launches.size(); }
    // The kernel as launch `i` sees it: parameters and checks of the whole kernel, geometry,
    // name, shared memory and TMA maps of that launch (launch 0: the kernel itself).
    KernelInfo launch(size_t i) const;
    // Stores the launch fields of `v` (as launch(i) returns them) as launch `i`'s.
    void set_launch(size_t i, const KernelInfo& v);
};

// A kernel factory found in the file, for pickers and parameter panels.
struct FactoryParam {
    std::string name;
    std::string default_text;  // Python text of the default, empty when required
    std::string kind;          // "int", "float", "bool", "dtype", "str", "tensor", "any"
    bool required = false;
};
struct FactoryInfo {
    std::string name;
    uint32_t line = 0;
    std::vector<FactoryParam> params;
    bool is_autotune = false;
};

struct CompileResult {
    bool ok = false;  // no errors and every requested stage produced
    SourceFilePtr file;
    std::vector<Diagnostic> diagnostics;
    std::optional<InternalError> internal_error;  // compiler bug: CLI exits 3

    std::vector<FactoryInfo> factories;
    KernelInfo kernel;

    std::string ast;      // --emit=ast
    std::string ir;       // --emit=ir (after evaluation)
    std::string lowered;  // --emit=lowered (after all passes)
    std::string cuda;     // --emit=cuda
    std::string ptx;      // --emit=ptx
    std::vector<uint8_t> cubin;
    std::string nvrtc_log;

    LineMap cuda_lines;  // CUDA line -> DSL line
    LineMap ptx_lines;   // PTX line -> DSL line (from .loc, following inlined_at)
    std::vector<PassSnapshot> passes;
    std::vector<StageTiming> timings;
    ResourceUsage resources;

    std::shared_ptr<const ast::Module> module;
    std::shared_ptr<const ir::PrimFunc> func;     // after evaluation (interpreter input)
    std::shared_ptr<const ir::PrimFunc> lowered_func;                   // every launch lowered, joined (ir/launches.h)
    std::vector<std::shared_ptr<const ir::PrimFunc>> lowered_launches;  // each launch lowered, in order

    // Errors, warnings and notes; remarks (fast paths not taken) only when asked for.
    std::string render_diagnostics(bool color = false, bool remarks = false) const;
    double total_ms() const;
};

CompileResult compile(const CompileRequest& req);

// Parses the file and lists its kernel factories without evaluating anything.
std::vector<FactoryInfo> list_factories(const std::string& path, const std::string& source,
                                        std::vector<Diagnostic>* diags = nullptr);

}  // namespace tp
