// Kernel inspection shared by `tilec inspect` and the playground: classifies PTX and SASS
// instructions into the classes worth watching (Tensor Core, async copy, barriers, matrix
// loads), counts them, disassembles a cubin to SASS with nvdisasm when there is one, and
// computes the theoretical occupancy of a kernel on a target, naming what limits it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tp {

// Instruction classes, in the order reports list them.
enum class InstrClass { TensorCore, AsyncCopy, Barrier, MatrixLoad };
constexpr int kInstrClassCount = 4;
const char* instr_class_name(InstrClass c);   // "tensor core", "async copy", "barrier", "matrix load"
const char* instr_class_key(InstrClass c);    // "tensor_core", "async_copy", "barrier", "matrix_load" (JSON)

enum class Isa { Ptx, Sass };

// Class of one mnemonic ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "HMMA.16816.F32",
// "LDGSTS.E.BYPASS.128"); nullopt for any other instruction. The whole dotted mnemonic is
// matched by its leading components, so `cp.async.bulk.tensor` is async copy and
// `barrier.cluster.arrive` is a barrier, while `mbarrier.try_wait` stays a barrier too.
std::optional<InstrClass> classify_mnemonic(std::string_view mnemonic, Isa isa);

// Extracts the mnemonic of one line of PTX or SASS text: skips labels, predicates (`@p`,
// `@!P0`), SASS addresses (`/*0040*/`) and comments; empty for directives, braces and
// non-instruction lines.
std::string instruction_mnemonic(std::string_view line, Isa isa);

struct InstrCounts {
    int64_t instructions = 0;                      // every instruction line
    std::array<int64_t, kInstrClassCount> by_class{};  // per InstrClass
    // Per class, the base opcode (first one or two dotted components, e.g. "mma.sync",
    // "cp.async", "HMMA") -> count; shows which flavour of each class the kernel uses.
    std::array<std::map<std::string, int64_t>, kInstrClassCount> opcodes;
    int64_t of(InstrClass c) const { return by_class[static_cast<int>(c)]; }
};

// Counts the static instructions of a PTX or SASS listing.
InstrCounts count_instructions(const std::string& text, Isa isa);

// SASS of a cubin via nvdisasm (PATH, then $CUDA_HOME/bin, then /usr/local/cuda/bin), with
// `-g` line info when `line_info`. On failure `ok` is false and `why` says what is missing.
struct SassResult {
    bool ok = false;
    std::string text;
    std::string tool;  // path of the nvdisasm used
    std::string why;
};
SassResult disassemble_cubin(const std::vector<uint8_t>& cubin, bool line_info = false);
std::string find_nvdisasm();  // empty when none

// Per-SM limits that bound occupancy. sm_limits() fills them from the target table
// (../shared/reference/gpus.md); a caller that has the real device may override fields.
struct SmLimits {
    std::string target;
    int regs_per_sm = 65536;
    int max_regs_per_block = 65536;
    int max_regs_per_thread = 255;
    int reg_alloc_unit = 256;      // registers are allocated per warp in units of this
    int sub_partitions = 4;        // warps' registers come from one of these quarters
    int64_t smem_per_sm = 0;       // bytes, largest carve-out
    int64_t max_smem_per_block = 0;
    int smem_alloc_unit = 128;
    int reserved_smem_per_block = 1024;  // the driver keeps 1 KB per block from sm_80 on
    int max_threads_per_sm = 2048;
    int max_threads_per_block = 1024;
    int max_blocks_per_sm = 32;
    int warp_size = 32;
};
std::optional<SmLimits> sm_limits(const std::string& target);

struct OccupancyInput {
    int registers = 0;          // per thread
    int threads_per_block = 0;
    int64_t smem_per_block = 0;  // static + dynamic bytes
};

struct Occupancy {
    bool fits = false;      // at least one block can be resident
    int blocks_per_sm = 0;  // resident blocks
    int warps_per_sm = 0;
    int max_warps_per_sm = 0;
    double occupancy = 0;   // warps_per_sm / max_warps_per_sm
    // Blocks per SM each resource alone allows; the smallest names the limiter.
    int by_registers = 0, by_shared_memory = 0, by_threads = 0, by_blocks = 0;
    int64_t smem_allocated_per_block = 0;  // after the reserved part and rounding
    std::string limiter;                   // "registers", "shared memory", "threads", "blocks per SM"
    std::string why;                       // when !fits: which limit a single block exceeds
};
Occupancy compute_occupancy(const SmLimits& limits, const OccupancyInput& in);

// A line diff of two PTX or SASS listings (two configurations of one kernel). Instruction lines
// are compared by mnemonic, so renumbered registers and addresses do not count as changes;
// other lines by their trimmed text. Lines are 0-based; each entry is a line kept in both, one
// only the left has, or one only the right has, in order.
struct ListingDiffLine {
    enum Kind { Same, Removed, Added } kind = Same;
    int left = -1, right = -1;
};
struct ListingDiff {
    bool complete = false;  // false when the listings differ in more than max_changes lines
    int removed = 0, added = 0;
    std::vector<ListingDiffLine> lines;
};
ListingDiff diff_listings(const std::string& left, const std::string& right, Isa isa, int max_changes = 4000);

}  // namespace tp
