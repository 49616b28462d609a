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

struct InterpOptions {
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
};

struct InterpReport {
    bool ok = false;
    std::vector<Diagnostic> diagnostics;  // run-time errors with the DSL span (file set from the func span)
    std::string error;                    // a problem with the arguments themselves (no DSL span)
    bool cancelled = false;               // InterpOptions::cancel stopped it (error says so)
    double ms = 0;                        // wall time of the block loop
    std::vector<int64_t> grid;            // evaluated grid extents (x, y, z)
    int64_t total_blocks = 0;
    int64_t blocks_run = 0;
    int threads_used = 0;
    std::map<std::string, int64_t> symbols;             // symbolic dims bound from tensor shapes
    std::map<std::string, std::vector<uint8_t>> written;  // param -> per-element 0/1 (track_written)
};

// Runs `f` on `args`, keyed by parameter name. Tensor parameters need a HostTensor of the
// parameter's dtype and a shape matching its declared dims (symbolic dims are bound from it);
// scalar parameters take a 0-d HostTensor (shape {}). Outputs are written in place.
InterpReport run_on_cpu(const ir::PrimFunc& f, std::map<std::string, HostTensor>& args, const InterpOptions& opts = {});

// Allocates one HostTensor per parameter from the signature: inputs filled by
// HostTensor::fill_random(seed + parameter position), outputs zeroed. Symbolic dims take
// their value from `symbols` (by name); false with `error` set when one is missing or the
// tensors would not fit the memory budget (checked before anything is allocated).
bool allocate_args(const ir::PrimFunc& f, uint64_t seed, const std::map<std::string, int64_t>& symbols,
                   std::map<std::string, HostTensor>& args, std::string* error);

// Bytes a run may hold for its tensors: TILEPLAY_MEMORY_BUDGET (bytes, or with a K/M/G/T
// suffix) when set, else three quarters of this machine's physical memory.
int64_t memory_budget_bytes();
// False with `error` set when tensors of these shapes (one per parameter, empty for scalars)
// overflow 64-bit byte counts or exceed memory_budget_bytes(); allocate_args asks first.
bool check_run_memory(const ir::PrimFunc& f, const std::vector<std::vector<int64_t>>& shapes, std::string* error);

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
