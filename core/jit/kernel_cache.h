// The JIT's compile cache. A launch's key is a digest of its emitted (unoptimised) LLVM IR, the
// polling sites' DSL spans, the compile flags, the LLVM version, the host CPU and its features
// and the pipeline's own version: the emitted IR is a complete description of the code (the
// Tile IR's printed text is not: it leaves out literal dtypes, for one), and what the code calls
// (rounding, region helpers) is linked from the loading library each time. Hits come from this
// process's memory (the playground, sweeps and tuning run one kernel many times) or from the
// object files on disk (core/runtime/jit_object_cache.h), which skip optimisation and codegen.
#pragma once

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>
#include <vector>

#include "jit/kernel.h"

namespace tp::jit {

std::string kernel_cache_key(const llvm::Module& m, const std::vector<Span>& sites, int32_t flags, const llvm::TargetMachine& tm);

// A kernel this process compiled under `key`, or null.
std::shared_ptr<const Kernel> kernel_cache_find(const std::string& key);
// Keeps it (the least recently used go past a few dozen kernels).
void kernel_cache_store(const std::string& key, std::shared_ptr<const Kernel> k);
void kernel_cache_clear();

}  // namespace tp::jit
