// Thread-level kernels on the JIT: one block run as its threads. Each thread is a fiber (its own
// stack, switched by a few instructions) that runs the generated block function with its rank;
// a barrier or a warp shuffle switches back to the block's scheduler, which resumes the threads
// in rank order once all wait at the same barrier, exactly as the interpreter's fibers
// (core/interp/threads.cpp) do, so even a racy kernel computes the interpreter's bits.
// docs/cpu-jit.md says why fibers rather than loops over the threads between barriers.
#pragma once

#include <cstdint>

#include "jit/kernel.h"

namespace tp::jit {

// Whether this build can run thread-level kernels (the fiber switch is x86-64 assembly).
bool block_threads_supported();

// Runs block (bx, by, bz) of `k` as its k.threads threads on the calling thread. On return `st`
// holds the block's fault (also set when the threads reach different barriers, or some finish
// while others wait: the interpreter's re-run reports that at the line), or the poll site where
// the block stopped, and its threads' T.print text in rank order.
void run_block_threads(const Kernel& k, const Ctx* ctx, State& st, int64_t bx, int64_t by, int64_t bz);

}  // namespace tp::jit

// What the generated code calls (State::team is the block's scheduler).
extern "C" void tp_jit_barrier(tp::jit::State* st, int64_t key);
extern "C" double tp_jit_shuffle(tp::jit::State* st, double v, int64_t lane, int64_t width, int64_t key);
