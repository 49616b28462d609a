// The CPU reference interpreter's public entry: runs a kernel's Tile IR (CompileResult::func,
// before lowering) block by block on the CPU with TileLang's tile semantics, on HostTensors.
// Used by `tilec run --device cpu`, by the GPU checker (sample_blocks) and by the playground.
#pragma once

#include <atomic>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../../tensor/npy.h"
#include "../../tensor/tensor.h"
#include "tileplay/diagnostics.h"

namespace tp {
namespace ir { struct PrimFunc; }

// Which engine runs a CPU run: the reference interpreter, or the LLVM JIT (libtileplay_jit, where
// it is built and loads) for each launch it accepts, the interpreter for the others.
enum class CpuEngine { Interpreter, Auto };

struct InterpOptions {
    CpuEngine engine = CpuEngine::Interpreter;
    // JIT only: bounds-check every buffer access (a fault re-runs the launch on the interpreter,
    // which reports it); off trades that safety for speed (TILEPLAY_JIT_CHECKS=0 turns it off).
    bool jit_checked = true;
    int threads = 0;  // worker threads for blocks; 0 = hardware concurrency
    // Linear block indices (x fastest, then y, then z) to run; empty = every block. Blocks are
    // independent, so a sample of them checks a large GPU run tile by tile.
    std::vector<int64_t> sample_blocks;
    // Records, per global tensor parameter, which elements the run stored to
    // (InterpReport::written); needed to compare only the tiles of sampled blocks.
    bool track_written = false;
    // Receives T.print lines (each ends in '\n'), in block order. Null: stdout.
    std::function<void(const std::string&)> print_sink;
    std::string source_path;  // file name put on run-time diagnostics
    // Watchdog: seconds the run may take before it is stopped with InterpreterTimeout at the
    // loop it was in (the CPU's counterpart of the GPU worker's watchdog); 0 = no limit.
    double watchdog_s = 0;
    // Set to true from another thread (the playground's Cancel): the run stops at the next
    // loop iteration or block and reports InterpReport::cancelled.
    const std::atomic<bool>* cancel = nullptr;
    // Counters another thread may read while the run goes (the worker's progress events):
    // `total` is set once the grid is known, `done` counts finished blocks.
    struct Progress {
        std::atomic<int64_t> total{0}, done{0};
    };
    Progress* progress = nullptr;
    // Race and barrier checker (docs/race_checker.md): shared-memory accesses of different
    // threads with no barrier between them, reads of T.tma_copy loads not waited for, mbarrier
    // phases left short of arrivals; reported in InterpReport::races. Off: no cost.
    bool check_races = false;
};

struct InterpReport {
    bool ok = false;
    std::vector<Diagnostic> diagnostics;  // run-time errors with the DSL span (file set from the func span)
    // Caveats of a run that went through: a thread index read in a kernel the interpreter runs
    // as one program per block, because a tile op sits under a branch on the thread index
    // (ThreadIndexOnInterpreter); other thread-level kernels run as their threads.
    std::vector<Diagnostic> warnings;
    std::string error;                    // a problem with the arguments themselves (no DSL span)
    bool cancelled = false;               // InterpOptions::cancel stopped it (error says so)
    double ms = 0;                        // wall time of the block loop
    std::vector<int64_t> grid;            // evaluated grid extents (x, y, z)
    int64_t total_blocks = 0;
    int64_t blocks_run = 0;
    int threads_used = 0;
    std::map<std::string, int64_t> symbols;             // symbolic dims bound from tensor shapes
    std::map<std::string, std::vector<uint8_t>> written;  // param -> per-element 0/1 (track_written)
    // check_races: the findings (errors at the second access, a note at the first), and what
    // the checker could follow in this kernel ("shared-memory races, async copies and
    // mbarriers", or a narrower scope and why).
    std::vector<Diagnostic> races;
    std::string races_scope;
    // "interpreter", "jit", or "jit+interpreter" (a kernel of several launches, some on each);
    // jit_note says why a launch stayed on the interpreter ("" when every launch ran on the JIT
    // or the interpreter was asked for); jit_compile_ms sums the JIT's compile time.
    std::string engine = "interpreter";
    std::string jit_note;
    double jit_compile_ms = 0;
};

// Runs `f` on `args`, keyed by parameter name. Tensor parameters need a HostTensor of the
// parameter's dtype and a shape matching its declared dims (symbolic dims are bound from it);
// scalar parameters take a 0-d HostTensor (shape {}). Outputs are written in place.
// A function of several `T.Kernel` launches runs them in program order, every block of one
// before the next; its report's grid is the first launch's and its block counts cover all of
// them, and it takes no sample_blocks (the run says why).
InterpReport run_on_cpu(const ir::PrimFunc& f, std::map<std::string, HostTensor>& args, const InterpOptions& opts = {});

// Whether the LLVM JIT (libtileplay_jit) loads in this process: true with `what` describing it,
// false with `what` saying why not ("LLVM JIT not built", a dlopen error, TILEPLAY_JIT=0).
bool cpu_jit_available(std::string* what);

// The bytes a run may hold for its tensors, and where that figure comes from (a refusal says).
struct MemoryBudget {
    int64_t bytes = 0;
    std::string source;  // "TILEPLAY_MEMORY_BUDGET", "three quarters of this machine's 15.5 GiB", ...
};
// TILEPLAY_MEMORY_BUDGET (bytes, or with a K/M/G/T suffix) when set, else three quarters of
// this machine's physical memory.
MemoryBudget default_memory_budget();
int64_t memory_budget_bytes();  // default_memory_budget().bytes

// What a run's tensors need: each parameter's host copy plus the CPU interpreter's
// double-precision working copy, counted with overflow checks before anything is allocated.
struct RunMemory {
    struct Tensor {
        std::string name;
        std::string desc;  // "float32[4096, 4096]"
        std::vector<int64_t> shape;
        int64_t bytes = 0;
    };
    std::vector<Tensor> tensors;  // tensor parameters in signature order
    int64_t total = 0;
    std::string overflow;  // set when a size overflows 64-bit byte counts: the message
};
RunMemory run_memory(const ir::PrimFunc& f, const std::vector<std::vector<int64_t>>& shapes);

// "the run needs 24.0 GiB for its tensors (`A` float32[...] 8.0 GiB, ...), over the memory
// budget of 11.7 GiB (<source>); <hint>": the sizes, the budget and what to change.
std::string memory_refusal(const RunMemory& need, const MemoryBudget& budget, const std::string& hint);
// The factory parameters whose values size the run's tensors, largest tensors first: a
// parameter is named when its value is one of a tensor's dimensions (ones are skipped).
std::vector<std::string> sizing_params(const RunMemory& need, const std::map<std::string, std::string>& bound_params);

// Each parameter's shape from the signature (empty for scalars); symbolic dims take their
// value from `symbols`. False with `error` set when one is missing.
bool arg_shapes(const ir::PrimFunc& f, const std::map<std::string, int64_t>& symbols,
                std::vector<std::vector<int64_t>>& shapes, std::string* error);

// False with `error` set when tensors of these shapes overflow 64-bit byte counts or exceed
// `budget` (null: default_memory_budget()); allocate_args asks first.
bool check_run_memory(const ir::PrimFunc& f, const std::vector<std::vector<int64_t>>& shapes, std::string* error,
                      const MemoryBudget* budget = nullptr);

// Allocates one HostTensor per parameter from the signature: inputs filled by
// HostTensor::fill_random(seed + parameter position), outputs zeroed. Symbolic dims take
// their value from `symbols` (by name); false with `error` set when one is missing or the
// tensors would not fit `budget` (null: the default; checked before anything is allocated).
// Integer inputs the kernel uses as positions in other tensors get in-range values instead
// (offsets tables rise evenly over the dimension they index), and an unset scalar grid size
// the longest segment of those offsets (core/interp/index_inputs.h); `notes`, when given,
// receives one line per such choice.
bool allocate_args(const ir::PrimFunc& f, uint64_t seed, const std::map<std::string, int64_t>& symbols, std::map<std::string, HostTensor>& args,
                   std::string* error, const MemoryBudget* budget = nullptr, std::vector<std::string>* notes = nullptr);

}  // namespace tp

namespace tp {

// The CPU reference for a sample's named baseline (header `# tileplay: baseline ...`):
// cublas.gemm / `torch: A @ B` -> GEMM, cublaslt.gemm_bias_gelu / torch gelu(...) -> GEMM +
// bias + GELU, torch softmax -> row softmax, torch scaled_dot_product_attention -> attention,
// `torch: A + B` -> vector add. Inputs are the kernel's non-output tensors in order; the
// reference is for its first output. Transposes, causality and layout come from the factory's
// bound parameters (trans_A / trans_B, is_causal / causal) and the tensor shapes.
struct ReferenceResult {
    bool available = false;   // a baseline was recognised and computed
    std::string name;         // "gemm", "gemm_bias_gelu", "softmax", "attention", "add"
    std::string output;       // the parameter it is compared with
    HostTensor expected;
    std::string error;        // why it is unavailable (no baseline named, shapes disagree...)
};
ReferenceResult cpu_reference(const std::vector<std::string>& baselines, const ir::PrimFunc& f,
                              const std::map<std::string, HostTensor>& args);

}  // namespace tp
