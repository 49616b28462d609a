// The JIT's object cache on disk (see jit_object_cache.h): MAGIC, the key, the object's length
// and bytes. The key is stored too, so a file renamed by hand or cut short is not loaded.
#include "runtime/jit_object_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace tp::runtime {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[] = "TPJITOB1";
constexpr size_t kDiskFiles = 512;                  // beyond this the oldest go
constexpr uint64_t kMaxObject = uint64_t{1} << 28;  // a length past this is a corrupt file

bool get_blob(std::istream& in, uint64_t limit, std::string& out) {
    uint64_t n = 0;
    if (!in.read(reinterpret_cast<char*>(&n), sizeof n) || n > limit) return false;
    out.resize(n);
    return static_cast<bool>(in.read(out.data(), static_cast<std::streamsize>(n)));
}

void put_blob(std::ostream& out, const std::string& s) {
    const uint64_t n = s.size();
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    out.write(s.data(), static_cast<std::streamsize>(n));
}

void prune(const fs::path& dir) {
    std::error_code ec;
    std::vector<std::pair<fs::file_time_type, fs::path>> files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".o") files.emplace_back(it->last_write_time(ec), it->path());
    if (files.size() <= kDiskFiles) return;
    std::sort(files.begin(), files.end());
    for (size_t i = 0; i + kDiskFiles * 3 / 4 < files.size(); ++i) fs::remove(files[i].second, ec);
}

bool plain_key(const std::string& key) {
    return !key.empty() && key.size() <= 64 &&
           std::all_of(key.begin(), key.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

std::string jit_cache_dir() {
    if (const char* d = std::getenv("TILEPLAY_JIT_CACHE"); d && *d) return std::string(d) == "off" ? "" : d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tileplay/jit";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tileplay/jit";
    return "";
}

std::optional<std::string> jit_cache_read(const std::string& key) {
    const std::string dir = jit_cache_dir();
    if (dir.empty() || !plain_key(key)) return std::nullopt;
    const fs::path p = fs::path(dir) / (key + ".o");
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) return std::nullopt;
    std::ifstream in(p, std::ios::binary);
    char magic[sizeof kMagic] = {};
    if (!in.read(magic, sizeof kMagic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0) return std::nullopt;
    std::string stored_key, object;
    if (!get_blob(in, 64, stored_key) || stored_key != key || !get_blob(in, kMaxObject, object) || object.empty()) return std::nullopt;
    return object;
}

void jit_cache_write(const std::string& key, const std::string& object) {
    const std::string dir = jit_cache_dir();
    if (dir.empty() || !plain_key(key) || object.empty() || object.size() > kMaxObject) return;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir, ec)) return;
    const fs::path final_path = fs::path(dir) / (key + ".o");
    const fs::path tmp = fs::path(dir) / (key + ".tmp" + std::to_string(::getpid()));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return;
        out.write(kMagic, sizeof kMagic);
        put_blob(out, key);
        put_blob(out, object);
        if (!out.flush()) {
            out.close();
            fs::remove(tmp, ec);
            return;
        }
    }
    fs::rename(tmp, final_path, ec);
    if (ec) fs::remove(tmp, ec);
    prune(dir);
}

}  // namespace tp::runtime
