// Hover cards: what an instruction does, in our own words, with the class it belongs to.
// Looked up by the longest matching dotted prefix, so `cp.async.bulk.tensor.2d...` finds the
// TMA card and plain `cp.async.cg...` the per-thread one.
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
        {"__syncthreads", "Block barrier", "CUDA's block-wide barrier; compiles to bar.sync 0."},
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
    };
    return cards;
}

// Whether `prefix` matches `word` on whole dotted segments.
bool prefix_matches(std::string_view word, std::string_view prefix) {
    if (word.substr(0, prefix.size()) != prefix) return false;
    return word.size() == prefix.size() || word[prefix.size()] == '.';
}

}  // namespace

QString hover_card(std::string_view word, CodeKind kind) {
    const auto& cards = kind == CodeKind::Sass ? sass_cards() : ptx_cards();
    const Card* best = nullptr;
    size_t best_len = 0;
    for (const auto& c : cards) {
        std::string_view p = c.prefix;
        if (prefix_matches(word, p) && p.size() > best_len) {
            best = &c;
            best_len = p.size();
        }
    }
    if (!best) return {};
    QString cls;
    if (TokenClass tc = classify_word(word, kind); tc != TokenClass::None)
        cls = QStringLiteral(" <i>(%1)</i>").arg(QString::fromLatin1(token_class_name(tc)));
    return QStringLiteral("<b>%1</b>%2<br><code>%3</code><br>%4")
        .arg(QString::fromUtf8(best->title), cls,
             QString::fromUtf8(word.data(), int(word.size())).toHtmlEscaped(), QString::fromUtf8(best->text));
}

}  // namespace tpui
