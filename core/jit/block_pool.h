// The JIT's block workers and watchdog, started once per process and kept: a run of a few short
// blocks (flash attention at its CPU size is two blocks of a third of a millisecond) should not
// pay for starting and joining threads, nor wait for a helper the loaded machine has not
// scheduled yet. A run's caller works too; a helper that wakes after the caller ran out of blocks
// does not join, and the caller waits only for helpers that are running one of its blocks.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

namespace tp::jit {

// Starts up to `helpers` worker threads now (compile calls it, so they are up by the run).
void block_pool_warm(int helpers);

// Runs `work` on the calling thread and on up to `helpers` pool threads at once; returns once the
// caller's call returned and every helper that joined has returned. `work` must return when no
// work is left (it is called by each joining thread once).
void block_pool_run(int helpers, const std::function<void()>& work);

// Watches a run: sets *stop to `timeout_code` past `deadline_s` seconds (0: none) and to
// `cancel_code` once *cancel is true (may be null), checking every 10 ms. Returns a ticket for
// block_pool_unwatch; nothing is watched (ticket 0) when there is neither a deadline nor a cancel.
uint64_t block_pool_watch(std::atomic<uint8_t>* stop, double deadline_s, const std::atomic<bool>* cancel, uint8_t timeout_code, uint8_t cancel_code);
void block_pool_unwatch(uint64_t ticket);

// The calling thread's CPU time in milliseconds (a run's and a compile's timings).
double thread_cpu_ms();

}  // namespace tp::jit
