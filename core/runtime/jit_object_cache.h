// The LLVM JIT's object-code cache on disk, beside the NVRTC module cache (module_cache.h):
// one file per compiled launch, named by a digest of everything its code depends on (the
// emitted LLVM IR, the LLVM version, the host CPU and its features, the pipeline), so a
// repeated `tilec run --device cpu` links the stored object instead of optimising and
// generating code again. A folder that cannot be read or written is skipped: it never fails a
// run. libtileplay_jit calls it (it carries its own copy of the core).
#pragma once

#include <optional>
#include <string>

namespace tp::runtime {

// $TILEPLAY_JIT_CACHE when it names a folder, else $XDG_CACHE_HOME/tileplay/jit, else
// ~/.cache/tileplay/jit; empty when TILEPLAY_JIT_CACHE=off (then only the process's memory).
std::string jit_cache_dir();

// The stored object of `key` (32 hex digits), or nothing when absent, unreadable or corrupt.
std::optional<std::string> jit_cache_read(const std::string& key);
// Writes it under a temporary name and renames it, so a reader never sees half a file; keeps
// the folder to a few hundred objects, dropping the least recently written.
void jit_cache_write(const std::string& key, const std::string& object);

}  // namespace tp::runtime
