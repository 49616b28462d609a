// Hover cards: what an instruction does, in our own words, with the class it belongs to.
// Looked up by the longest matching dotted prefix, so `cp.async.bulk.tensor.2d...` finds the
// TMA card and plain `cp.async.cg...` the per-thread one. The CUDA view also explains the
// runtime helpers (`tp::gemm_ss`, `tp::copy_g2s`, ...) the generated code calls, since those
// stand where the PTX has the instructions.
#include <QStringList>
#include <utility>
#include <vector>

#include "views/token_classes.h"

namespace tpui {

namespace {

struct Card {
    const char* prefix;
    const char* title;
    const char* text;
};

// PTX (and CUDA) spellings; prefixes are matched on whole dotted segments.
const std::vector<Card>& ptx_cards() {
    static const std::vector<Card> cards = {
        {"mma.sync", "Warp-level matrix multiply-accumulate",
         "All 32 threads of a warp together multiply two small register tiles (e.g. 16x8x16) on the "
         "Tensor Cores and add the product into accumulator registers. The shape and the types are "
         "spelled in the modifiers."},
        {"wgmma.mma_async", "Warpgroup matrix multiply (Hopper)",
         "Four warps (a warpgroup, 128 threads) issue one large asynchronous Tensor Core multiply; "
         "B (and optionally A) is read straight from shared memory through a descriptor. Needs sm_90a."},
        {"wgmma.fence", "wgmma fence", "Orders register writes before later wgmma instructions read them."},
        {"wgmma.commit_group", "wgmma commit", "Closes the batch of wgmma instructions issued so far into one group."},
        {"wgmma.wait_group", "wgmma wait", "Waits until at most N committed wgmma groups are still running, so their accumulators can be read."},
        {"cp.async.bulk.tensor", "TMA tensor copy (Hopper)",
         "The Tensor Memory Accelerator copies a whole multi-dimensional tile between global and shared "
         "memory from a tensor map; one thread issues it and an mbarrier signals completion."},
        {"cp.async.bulk", "Bulk asynchronous copy",
         "Copies a contiguous block between global and shared memory without registers; completion is "
         "tracked by an mbarrier transaction count."},
        {"cp.async.commit_group", "Commit async copies", "Bundles the cp.async copies issued so far by this thread into a group."},
        {"cp.async.wait_group", "Wait for async copies",
         "Blocks until at most N groups of this thread's cp.async copies are pending; the software pipeline uses it to keep stages in flight."},
        {"cp.async.wait_all", "Wait for all async copies", "Blocks until every cp.async copy of this thread has landed in shared memory."},
        {"cp.async", "Asynchronous global -> shared copy",
         "Each thread copies 4, 8 or 16 bytes from global to shared memory without passing through "
         "registers, so loads for the next stage overlap the math of this one (sm_80+)."},
        {"bar.sync", "Block barrier", "Every thread of the block (or of the named barrier's thread count) waits here until all have arrived; shared-memory writes before it are visible after it."},
        {"bar.arrive", "Barrier arrive", "Signals arrival at a named barrier without waiting; producer warps use it to hand data to consumers."},
        {"bar", "Block barrier", "A named hardware barrier shared by the threads of a block."},
        {"barrier", "Block barrier", "Synchronises the threads of a block (or cluster) at a named barrier."},
        {"mbarrier.init", "Create an mbarrier", "Initialises a barrier object in shared memory with the number of arrivals it expects per phase."},
        {"mbarrier.arrive.expect_tx", "Arrive and expect bytes", "Arrives on the mbarrier and tells it how many bytes asynchronous copies (TMA) will still deliver before the phase completes."},
        {"mbarrier.arrive", "mbarrier arrive", "Counts one arrival on a shared-memory barrier object; the phase flips when all expected arrivals (and bytes) are in."},
        {"mbarrier.try_wait", "mbarrier wait", "Polls whether the barrier's phase has completed; loops until the data it guards is ready."},
        {"mbarrier", "Shared-memory barrier object", "A barrier living in shared memory that counts arrivals and transferred bytes; used to synchronise TMA loads and warp-specialised pipelines."},
        {"ldmatrix", "Matrix fragment load",
         "A warp loads one, two or four 8x8 tiles of 16-bit values from shared memory straight into the "
         "register layout that mma expects (.trans transposes on the way)."},
        {"stmatrix", "Matrix fragment store (Hopper)", "The reverse of ldmatrix: a warp writes 8x8 tiles from mma register layout into shared memory."},
        {"fence.proxy.async", "Async proxy fence", "Makes ordinary shared-memory writes visible to the async proxy (TMA, wgmma) before it reads them."},
        {"setmaxnreg", "Register reallocation (Hopper)", "Warp-specialised kernels give registers from producer warpgroups to consumer ones."},
        {"shfl.sync", "Warp shuffle", "Threads of a warp exchange register values directly; reductions across a row use it instead of shared memory."},
        {"red", "Reduction to memory", "Atomically adds (or min/max) a value into global or shared memory without returning the old value."},
        {"atom", "Atomic operation", "Reads, modifies and writes a memory word atomically and returns the old value."},
        {"ex2", "Base-2 exponential", "Approximate 2^x on the special-function unit; exp(x) is computed as ex2(x * log2(e))."},
        {"rcp", "Reciprocal", "1/x, approximate or correctly rounded depending on the modifier."},
        {"max", "Maximum", "The larger of two values; row maxima in softmax."},
        {"__syncthreads", "Block barrier", "CUDA's block-wide barrier; compiles to bar.sync 0."},
        {"ld.global.nc", "Read-only global load", "Loads through the non-coherent (texture) path; for data the kernel never writes."},
        {"ld.global", "Global load", "Reads from device memory (through L1/L2)."},
        {"ld.shared", "Shared load", "Reads from the block's on-chip shared memory."},
        {"ld.param", "Parameter load", "Reads a kernel argument."},
        {"st.global", "Global store", "Writes to device memory."},
        {"st.shared", "Shared store", "Writes to the block's shared memory."},
        {"fma", "Fused multiply-add", "Computes a*b+c with one rounding."},
        {"cvt", "Convert", "Converts between types (e.g. f32 -> f16 with rounding)."},
        {"setp", "Set predicate", "Compares two values and writes a predicate register used by later @p instructions."},
        {"bra", "Branch", "Jumps to a label, optionally under a predicate."},
        {"mov", "Move", "Copies a value or a special register (thread and block indices) into a register."},
        {"mad", "Multiply-add", "Integer or float a*b+c; often address arithmetic."},
        {"ret", "Return", "Ends the kernel for this thread."},
    };
    return cards;
}

const std::vector<Card>& sass_cards() {
    static const std::vector<Card> cards = {
        {"HMMA", "Tensor Core multiply (SASS)", "The machine instruction behind mma.sync: a warp-wide half-precision matrix multiply-accumulate on the Tensor Cores."},
        {"HGMMA", "Warpgroup Tensor Core multiply (SASS)", "The Hopper machine instruction behind wgmma.mma_async; reads operands from shared memory descriptors."},
        {"IMMA", "Integer Tensor Core multiply (SASS)", "Tensor Core multiply on 8-bit or 4-bit integers."},
        {"LDGSTS", "Global -> shared async copy (SASS)", "The machine form of cp.async: loads from global memory and stores to shared memory without using registers."},
        {"LDGDEPBAR", "Async copy group marker (SASS)", "Closes a group of LDGSTS copies (cp.async.commit_group)."},
        {"UTMALDG", "TMA load (SASS)", "Hands a tile load to the Tensor Memory Accelerator (cp.async.bulk.tensor); issued by one thread with uniform registers."},
        {"BAR", "Barrier (SASS)", "Block-level barrier: BAR.SYNC waits for all threads, BAR.ARV only arrives."},
        {"SYNCS", "mbarrier operation (SASS)", "Hopper's arrive/wait operations on shared-memory barrier objects."},
        {"LDSM", "Matrix fragment load (SASS)", "The machine form of ldmatrix: loads 8x8 tiles from shared memory into mma register layout."},
        {"LDG", "Global load (SASS)", "Loads from device memory into registers."},
        {"STG", "Global store (SASS)", "Stores registers to device memory."},
        {"LDS", "Shared load (SASS)", "Loads from shared memory."},
        {"STS", "Shared store (SASS)", "Stores to shared memory."},
        {"FFMA", "Float fused multiply-add (SASS)", "One fp32 a*b+c per thread."},
        {"IMAD", "Integer multiply-add (SASS)", "Integer a*b+c; mostly address and index arithmetic."},
        {"ISETP", "Integer compare (SASS)", "Compares integers and sets a predicate."},
        {"EXIT", "Exit (SASS)", "The thread finishes the kernel."},
        {"S2R", "Special register read (SASS)", "Reads thread or block indices into a register."},
        {"UTMASTG", "TMA store (SASS)", "Hands a tile store from shared to global memory to the Tensor Memory Accelerator."},
        {"DEPBAR", "Wait for async copies (SASS)", "Waits until at most N groups of LDGSTS copies are pending (cp.async.wait_group)."},
        {"STSM", "Matrix fragment store (SASS)", "The machine form of stmatrix."},
        {"HFMA2", "Paired half-precision FMA (SASS)", "Two fp16 a*b+c at once in one 32-bit register pair."},
        {"MUFU", "Special function unit (SASS)", "Approximate exp2, log2, reciprocal, sqrt, sin, cos; MUFU.EX2 is softmax's exponential."},
        {"SHFL", "Warp shuffle (SASS)", "Exchanges registers between the threads of a warp."},
        {"FMNMX", "Float min/max (SASS)", "The smaller or larger of two fp32 values."},
        {"F2F", "Float conversion (SASS)", "Converts between float widths, e.g. fp32 accumulators to fp16 outputs."},
        {"RED", "Reduction to memory (SASS)", "Atomic add (or min/max) into memory without a return value."},
        {"WARPSYNC", "Warp sync (SASS)", "Reconverges the threads of a warp named in a mask."},
        {"BRA", "Branch (SASS)", "Jumps, optionally under a predicate."},
    };
    return cards;
}

// The runtime helpers (core/codegen/cuda/runtime/*.cuh) as the generated CUDA calls them.
const std::vector<Card>& cuda_cards() {
    static const std::vector<Card> cards = {
        {"gemm_ss", "Tile GEMM on Tensor Cores",
         "tp::gemm_ss: the warps of the block multiply an A and a B tile held in shared memory, "
         "loading fragments with ldmatrix and accumulating with mma.sync into fp32 registers (T.gemm)."},
        {"gemm_rs", "Tile GEMM on Tensor Cores (A in registers)",
         "tp::gemm_rs: like gemm_ss but A is already in registers in accumulator layout (FlashAttention's P @ V)."},
        {"wgmma_ss", "Warpgroup GEMM (Hopper)", "Issues wgmma.mma_async with A and B read from shared memory through descriptors."},
        {"wgmma_rs", "Warpgroup GEMM, A in registers (Hopper)", "Issues wgmma.mma_async with A from registers and B from shared memory."},
        {"wgmma_fence", "wgmma fence", "wgmma.fence: orders register writes before the next warpgroup multiply reads them."},
        {"wgmma_commit", "wgmma commit", "wgmma.commit_group: closes the multiplies issued so far into one group."},
        {"wgmma_wait", "wgmma wait", "wgmma.wait_group: waits until at most N groups are still running."},
        {"copy_g2s", "Global -> shared tile copy",
         "tp::copy_g2s: the block's threads copy a tile into shared memory, with 16-byte cp.async "
         "copies when stride and alignment allow (no registers, overlaps the math), else element by element."},
        {"copy_g2s_async", "Global -> shared async copy", "Each thread issues 16-byte cp.async copies for its chunks of the tile."},
        {"copy_s2g", "Shared -> global tile copy", "The block's threads write a shared-memory tile back to device memory."},
        {"cp_async_commit", "Commit async copies", "cp.async.commit_group: the copies issued so far become one pipeline stage."},
        {"cp_async_wait", "Wait for async copies",
         "cp.async.wait_group N: waits until at most N stages are still in flight, so the oldest stage can be read."},
        {"tma_load_2d", "TMA tile load (Hopper)", "One thread asks the Tensor Memory Accelerator for a 2-D tile (cp.async.bulk.tensor); an mbarrier reports its arrival."},
        {"tma_store_2d", "TMA tile store (Hopper)", "One thread hands a shared-memory tile to the Tensor Memory Accelerator to write to global memory."},
        {"mbar_init", "Create an mbarrier", "mbarrier.init: a shared-memory barrier expecting N arrivals per phase."},
        {"mbar_arrive_expect_tx", "Arrive and expect bytes", "mbarrier.arrive.expect_tx: arrives and announces how many bytes TMA will still deliver."},
        {"mbar_arrive", "mbarrier arrive", "mbarrier.arrive: counts one arrival on the barrier."},
        {"mbar_wait", "mbarrier wait", "mbarrier.try_wait in a loop: waits for the phase (the data it guards) to complete."},
        {"ldmatrix_x4", "Matrix fragment load", "ldmatrix .x4: four 8x8 16-bit tiles from shared memory into mma register layout."},
        {"ldmatrix_x2", "Matrix fragment load", "ldmatrix .x2: two 8x8 16-bit tiles from shared memory into mma register layout."},
        {"ldmatrix_x1", "Matrix fragment load", "ldmatrix .x1: one 8x8 16-bit tile from shared memory into mma register layout."},
        {"copy_g2r", "Global -> register staging (sm_75)", "Turing has no cp.async: the next tile is loaded into registers before the math on this one, so the loads are in flight meanwhile."},
        {"copy_r2s", "Register -> shared staging (sm_75)", "Stores the tile copy_g2r loaded into the other shared buffer after the math."},
        {"reduce_rows", "Row reduction", "Reduces each row of a fragment across the threads that hold it, with warp shuffles and a shared scratch (T.reduce_max / T.reduce_sum)."},
        {"reduce_cols", "Column reduction", "Reduces each column of a fragment across the block's threads."},
        {"reduce_striped", "Striped-fragment reduction", "Reduces rows spread over the lanes of a warp; the result is replicated in every lane that holds the row."},
        {"frag_load_global", "Fragment load", "Each thread reads its elements of a register fragment from device memory."},
        {"frag_load_smem", "Fragment load from shared memory", "Each thread reads its elements of a register fragment from a shared tile."},
        {"frag_store_smem", "Fragment store to shared memory", "Each thread writes its accumulator registers into a shared tile, e.g. before a coalesced global store."},
        {"frag_store_global", "Fragment store", "Each thread writes its accumulator registers straight to device memory (T.copy of a fragment)."},
        {"rasterize", "Block rasterization", "Renumbers thread blocks in panels (T.use_swizzle) so neighbours reuse the same A and B tiles in L2."},
    };
    return cards;
}

// Whether `prefix` matches `word` on whole dotted segments (or, for the CUDA helpers'
// snake_case names, whole `_` segments: `ldmatrix_x4_trans` finds `ldmatrix_x4`).
bool prefix_matches(std::string_view word, std::string_view prefix, char sep) {
    if (word.substr(0, prefix.size()) != prefix) return false;
    return word.size() == prefix.size() || word[prefix.size()] == '.' || word[prefix.size()] == sep;
}


const Card* best_card(const std::vector<Card>& cards, std::string_view word, char sep = '.') {
    const Card* best = nullptr;
    size_t best_len = 0;
    for (const auto& c : cards) {
        std::string_view p = c.prefix;
        if (prefix_matches(word, p, sep) && p.size() > best_len) {
            best = &c;
            best_len = p.size();
        }
    }
    return best;
}

// Byte ranges of comments in a line: `//` to the end, and `/* ... */` (SASS addresses).
bool in_comment(std::string_view line, size_t col) {
    size_t pos = 0;
    while (pos < line.size()) {
        size_t line_c = line.find("//", pos), block_c = line.find("/*", pos);
        if (line_c == std::string_view::npos && block_c == std::string_view::npos) return false;
        if (line_c < block_c) return col >= line_c;
        size_t end = line.find("*/", block_c + 2);
        end = end == std::string_view::npos ? line.size() : end + 2;
        if (col >= block_c && col < end) return true;
        pos = end;
    }
    return false;
}

}  // namespace

QString HoverCard::html() const {
    if (empty()) return {};
    QString c = cls.isEmpty() ? QString() : QStringLiteral(" <i>(%1)</i>").arg(cls);
    return QStringLiteral("<b>%1</b>%2<br><code>%3</code><br>%4").arg(title, c, word.toHtmlEscaped(), text);
}

HoverCard hover_card_for(std::string_view word, CodeKind kind) {
    if (word.empty() || kind == CodeKind::Ir) return {};
    const Card* best = nullptr;
    if (kind == CodeKind::Sass) best = best_card(sass_cards(), word);
    if (kind == CodeKind::Cuda) best = best_card(cuda_cards(), word, '_');
    // PTX, and the PTX inside the CUDA view's inline asm strings.
    if (!best && kind != CodeKind::Sass) best = best_card(ptx_cards(), word);
    if (!best) return {};
    HoverCard card;
    card.title = QString::fromUtf8(best->title);
    card.text = QString::fromUtf8(best->text);
    card.word = QString::fromUtf8(word.data(), qsizetype(word.size()));
    if (TokenClass tc = classify_word(word, kind); tc != TokenClass::None) card.cls = QString::fromLatin1(token_class_name(tc));
    return card;
}

HoverCard hover_card_at(std::string_view line, int col, CodeKind kind) {
    if (col < 0 || size_t(col) > line.size() || in_comment(line, size_t(col))) return {};
    std::string_view w = word_at(line, col);
    if (w.empty()) return {};
    size_t start = size_t(w.data() - line.data());
    if (start > 0 && line[start - 1] == '%') return {};  // a PTX register such as %rd4
    return hover_card_for(w, kind);
}

QString hover_card(std::string_view word, CodeKind kind) { return hover_card_for(word, kind).html(); }

}  // namespace tpui
