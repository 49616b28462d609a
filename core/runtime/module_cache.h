// A cache of NVRTC's results. The same CUDA source, options and runtime headers compiled by the
// same NVRTC give the same PTX, cubin and log, so compiling them again (the playground recompiles
// on every edit, an undo brings back text compiled a moment ago, bench and tune compile each
// configuration in several processes) is served from memory, or from disk across processes,
// instead of costing NVRTC's second. A cache that cannot be read or written is skipped: it never
// fails a compile.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tp::runtime {

struct CachedCompile {
    std::string ptx;
    std::vector<uint8_t> cubin;
    std::string log;  // NVRTC's and ptxas' messages, the resource report included
};

// A 128-bit digest (32 hex digits) of everything NVRTC's output depends on: its version, the
// program name, the options, the embedded runtime headers and the source.
std::string module_cache_key(const std::string& source, const std::string& name, const std::vector<std::string>& options,
                             const std::string& nvrtc_version);

// Where compiled modules are kept: $TILEPLAY_NVRTC_CACHE when it names a folder, else
// $XDG_CACHE_HOME/tileplay/nvrtc, else ~/.cache/tileplay/nvrtc; empty when
// TILEPLAY_NVRTC_CACHE=off (then only this process's memory caches).
std::string module_cache_dir();

// "memory" or "disk" in `from` tells where a hit came from.
std::optional<CachedCompile> module_cache_find(const std::string& key, std::string* from = nullptr);
void module_cache_store(const std::string& key, const CachedCompile& c);

// While one lives, compiles on this thread neither read nor fill the cache: tp::warm_up() must
// really run NVRTC to pay its start-up, and its throw-away module is worth nothing later.
class ModuleCacheBypass {
public:
    ModuleCacheBypass();
    ~ModuleCacheBypass();
    ModuleCacheBypass(const ModuleCacheBypass&) = delete;
    ModuleCacheBypass& operator=(const ModuleCacheBypass&) = delete;
};
bool module_cache_bypassed();

// Forgets what this process holds in memory (tests; the disk stays).
void module_cache_clear_memory();

}  // namespace tp::runtime
