// The interpreter's race and barrier checker (`tilec run --device cpu --check-races`): a
// shadow of every shared-memory element of the block that remembers its last write and the
// reads since the last barrier, each with the thread (as the generated CUDA distributes the
// work) and the DSL span, and reports two accesses of different threads in the same barrier
// epoch, one of them a write, as a race. It also follows the asynchronous writes of
// T.tma_copy until a wait on their mbarrier, and mbarrier phases left short of arrivals.
// What is modelled and where the model is conservative: docs/race_checker.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "ir/ir.h"
#include "tileplay/diagnostics.h"

namespace tp::interp {

struct Frame;
struct BufView;

// Who performs an access. A thread of the block (>= 0), or one of two block-wide models:
// kEveryThread for a statement every thread runs with the same indices (plain code of a
// tile-level kernel: the CUDA code has every thread run it), kSomeThread for an element of a
// tile op, which the lowering deals to one thread of the block that the checker does not
// compute (so it conflicts with any other access).
constexpr int32_t kEveryThread = -1;
constexpr int32_t kSomeThread = -2;

// Per element: the last write of the current epoch and up to two reads of distinct threads.
struct ElemShadow {
    uint32_t w_epoch = 0, r_epoch = 0;
    int32_t writer = 0, reader0 = 0, reader1 = 0;
    bool two_readers = false;
    const Span* wspan = nullptr;
    const Span *rspan0 = nullptr, *rspan1 = nullptr;
};

// A T.tma_copy's write that no wait on its mbarrier has published yet.
struct PendingAsync {
    int mbar_slot = -1;
    int64_t mbar_index = 0;
    int64_t phase = 0;  // the mbarrier phase in progress when the copy was issued
    const Span* copy_span = nullptr;
};

struct RaceFinding {
    DiagKind kind{};
    std::vector<std::string> args;
    Span span;        // the second access (the diagnostic's location)
    Span first_span;  // the first access (a note)
    std::string first_note;
    int64_t block = 0;  // linear block index, for a deterministic order
    int64_t count = 1;  // elements (or blocks) with the same pair of lines
};

// One worker's checker state; reset for each block, findings kept across blocks.
struct RaceState {
    bool elements = true;  // false: only the async and mbarrier checks (warp roles)
    uint32_t epoch = 1;
    int64_t linear_block = 0;
    std::vector<std::vector<ElemShadow>> shadow;                                    // by buffer slot (shared buffers)
    std::vector<std::vector<PendingAsync>> pending;                                 // by buffer slot: T.tma_copy writes not waited for
    std::vector<int64_t> pending_count;                                             // by slot: elements pending
    std::map<std::pair<int, int64_t>, const Span*> last_arrive;                     // mbarrier (slot, index) -> its last arrive
    std::map<std::tuple<int, const Span*, const Span*, std::string>, size_t> seen;  // one finding per pair of lines
    std::vector<RaceFinding> findings;

    void begin_block(int64_t linear, size_t slots);
    void barrier() { ++epoch; }
    void reset_buffer(int slot, int64_t size);
    void add(RaceFinding f, int key_kind, const Span* a, const Span* b, const std::string& buffer);
};

// Access hooks, called only when a run checks races (Frame::races set) and the buffer is
// shared. `flat` is the element; `before`/`after` the values around a write (a write that
// leaves the value unchanged cannot be observed and is not recorded).
void race_read(Frame& fr, int slot, int64_t flat, const Span* span);
void race_write(Frame& fr, int slot, int64_t flat, const Span* span, double before, double after);
// A T.tma_copy into shared memory: its elements are written asynchronously and complete with
// phase `phase` of mbarrier `mbar_slot[mbar_index]`; a wait that sees that phase (or a later
// one) complete publishes them. A wait that passes on an earlier phase (a wrong parity, or
// parity 1 before any phase completed) does not.
void race_async_write(Frame& fr, int slot, int64_t flat, int mbar_slot, int64_t mbar_index, int64_t phase, const Span* span);
void race_async_waited(Frame& fr, int mbar_slot, int64_t mbar_index, int64_t completed_phase);
// The phases mbarrier `slot[index]` has completed (barriers.cpp).
int64_t mbarrier_phases(const Frame& fr, int slot, int64_t index);
// An mbarrier the block leaves with a phase short of arrivals (checked when the block ends).
void race_phase_incomplete(Frame& fr, const ir::BufferNode& buf, int64_t index, int64_t arrived, int64_t count, const Span& last_arrive);

// At the end of a block: every mbarrier arrived on whose current phase holds some arrivals
// but not all (barriers.cpp, which knows how a phase is kept).
void race_check_phases(Frame& fr);

// Findings of all workers, merged (one per pair of lines, the first block's), as diagnostics
// of `file` in line order.
std::vector<Diagnostic> race_diagnostics(std::vector<RaceState>& states, const std::string& file);

}  // namespace tp::interp
