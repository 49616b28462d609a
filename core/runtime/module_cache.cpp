// The NVRTC module cache (see module_cache.h): a byte-bounded LRU in memory and one file per
// module on disk, written to a temporary name and renamed so readers never see half a file.
#include "runtime/module_cache.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <list>
#include <mutex>
#include <unordered_map>
#include <unistd.h>

#include "codegen/cuda/codegen_cuda.h"
#include "tileplay/tune.h"

namespace tp::runtime {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[] = "TPNVRTC1";
constexpr size_t kMemoryBytes = size_t{96} << 20;  // what one process keeps: dozens of modules
constexpr size_t kDiskFiles = 256;                  // beyond this the oldest go
constexpr uint64_t kMaxBlob = uint64_t{1} << 30;    // a length past this is a corrupt file

size_t size_of(const CachedCompile& c) { return c.ptx.size() + c.cubin.size() + c.log.size() + 64; }

struct MemoryCache {
    std::mutex mu;
    std::list<std::string> order;  // most recent first
    std::unordered_map<std::string, std::pair<CachedCompile, std::list<std::string>::iterator>> entries;
    size_t bytes = 0;

    std::optional<CachedCompile> find(const std::string& key) {
        std::lock_guard<std::mutex> lock(mu);
        auto it = entries.find(key);
        if (it == entries.end()) return std::nullopt;
        order.splice(order.begin(), order, it->second.second);
        return it->second.first;
    }
    void store(const std::string& key, const CachedCompile& c) {
        std::lock_guard<std::mutex> lock(mu);
        if (entries.count(key) || size_of(c) > kMemoryBytes) return;
        order.push_front(key);
        entries.emplace(key, std::make_pair(c, order.begin()));
        bytes += size_of(c);
        while (bytes > kMemoryBytes && !order.empty()) {
            auto victim = entries.find(order.back());
            bytes -= size_of(victim->second.first);
            entries.erase(victim);
            order.pop_back();
        }
    }
    void clear() {
        std::lock_guard<std::mutex> lock(mu);
        order.clear();
        entries.clear();
        bytes = 0;
    }
};

MemoryCache& memory() {
    static MemoryCache m;
    return m;
}

void put_blob(std::ostream& out, const void* data, uint64_t n) {
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}

// Into a std::string or the cubin's byte vector, read in place (no second copy of the module).
template <class Bytes>
bool get_blob(std::istream& in, uint64_t remaining, Bytes& out) {
    uint64_t n = 0;
    if (!in.read(reinterpret_cast<char*>(&n), sizeof n) || n > kMaxBlob || n > remaining) return false;
    out.resize(n);
    return static_cast<bool>(in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n)));
}

std::optional<CachedCompile> read_file(const fs::path& p, const std::string& key) {
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) return std::nullopt;
    const uint64_t size = fs::file_size(p, ec);
    if (ec) return std::nullopt;
    std::ifstream in(p, std::ios::binary);
    char magic[sizeof kMagic] = {};
    if (!in.read(magic, sizeof kMagic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0) return std::nullopt;
    std::string stored_key;
    CachedCompile c;
    if (!get_blob(in, size, stored_key) || stored_key != key) return std::nullopt;
    if (!get_blob(in, size, c.ptx) || !get_blob(in, size, c.cubin) || !get_blob(in, size, c.log)) return std::nullopt;
    return c;
}

// Keeps the folder to kDiskFiles modules, dropping the least recently written.
void prune(const fs::path& dir) {
    std::error_code ec;
    std::vector<std::pair<fs::file_time_type, fs::path>> files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".mod") files.emplace_back(it->last_write_time(ec), it->path());
    if (files.size() <= kDiskFiles) return;
    std::sort(files.begin(), files.end());
    for (size_t i = 0; i + kDiskFiles * 3 / 4 < files.size(); ++i) fs::remove(files[i].second, ec);
}

}  // namespace

std::string module_cache_key(const std::string& source, const std::string& name, const std::vector<std::string>& options,
                             const std::string& nvrtc_version) {
    std::string all = nvrtc_version + '\0' + name + '\0';
    for (const auto& o : options) all += o + '\0';
    all += codegen::embedded_runtime_headers_digest();
    all += '\0' + source;
    return digest128(all);
}

std::string module_cache_dir() {
    if (const char* d = std::getenv("TILEPLAY_NVRTC_CACHE"); d && *d) return std::string(d) == "off" ? "" : d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tileplay/nvrtc";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tileplay/nvrtc";
    return "";
}

std::optional<CachedCompile> module_cache_find(const std::string& key, std::string* from) {
    if (auto c = memory().find(key)) {
        if (from) *from = "memory";
        return c;
    }
    const std::string dir = module_cache_dir();
    if (dir.empty()) return std::nullopt;
    auto c = read_file(fs::path(dir) / (key + ".mod"), key);
    if (!c) return std::nullopt;
    memory().store(key, *c);
    if (from) *from = "disk";
    return c;
}

void module_cache_store(const std::string& key, const CachedCompile& c) {
    memory().store(key, c);
    const std::string dir = module_cache_dir();
    if (dir.empty()) return;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir, ec)) return;
    const fs::path final_path = fs::path(dir) / (key + ".mod");
    const fs::path tmp = fs::path(dir) / (key + ".tmp" + std::to_string(::getpid()));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return;
        out.write(kMagic, sizeof kMagic);
        put_blob(out, key.data(), key.size());
        put_blob(out, c.ptx.data(), c.ptx.size());
        put_blob(out, c.cubin.data(), c.cubin.size());
        put_blob(out, c.log.data(), c.log.size());
        if (!out.flush()) {
            out.close();
            fs::remove(tmp, ec);
            return;
        }
    }
    fs::rename(tmp, final_path, ec);  // a directory in the way makes this fail: then no disk entry
    if (ec) fs::remove(tmp, ec);
    prune(dir);
}

namespace {
thread_local int bypass_depth = 0;
}  // namespace

ModuleCacheBypass::ModuleCacheBypass() { ++bypass_depth; }
ModuleCacheBypass::~ModuleCacheBypass() { --bypass_depth; }
bool module_cache_bypassed() { return bypass_depth > 0; }

void module_cache_clear_memory() { memory().clear(); }

}  // namespace tp::runtime
