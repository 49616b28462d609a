// The NVRTC module cache: keys that change with every input NVRTC's output depends on, hits
// from memory and from disk, and a disk that is corrupt, in the way or switched off never
// failing (or faking) a compile.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/module_cache.h"

namespace fs = std::filesystem;
using namespace tp::runtime;

namespace {

struct CacheDir {
    fs::path dir = fs::temp_directory_path() / ("tileplay_modcache_" + std::to_string(::getpid()));
    CacheDir() {
        fs::remove_all(dir);
        ::setenv("TILEPLAY_NVRTC_CACHE", dir.c_str(), 1);
        module_cache_clear_memory();
    }
    ~CacheDir() {
        ::unsetenv("TILEPLAY_NVRTC_CACHE");
        module_cache_clear_memory();
        fs::remove_all(dir);
    }
};

CachedCompile sample_module() {
    CachedCompile c;
    c.ptx = ".version 8.0\n.target sm_80\n";
    c.cubin = {0x7f, 'E', 'L', 'F', 0, 1, 2, 3};
    c.log = "ptxas info    : Used 32 registers";
    return c;
}

}  // namespace

TEST(ModuleCache, KeyChangesWithEveryInput) {
    const std::vector<std::string> opts = {"-std=c++17", "--gpu-architecture=sm_80"};
    const std::string k = module_cache_key("src", "a.cu", opts, "13.0");
    EXPECT_EQ(k.size(), 32u);
    EXPECT_EQ(k, module_cache_key("src", "a.cu", opts, "13.0"));
    EXPECT_NE(k, module_cache_key("src ", "a.cu", opts, "13.0"));
    EXPECT_NE(k, module_cache_key("src", "b.cu", opts, "13.0"));
    EXPECT_NE(k, module_cache_key("src", "a.cu", {"-std=c++17", "--gpu-architecture=sm_90a"}, "13.0"));
    EXPECT_NE(k, module_cache_key("src", "a.cu", opts, "12.8"));
    // Option boundaries count: {"ab", "c"} is not {"a", "bc"}.
    EXPECT_NE(module_cache_key("s", "n", {"ab", "c"}, "v"), module_cache_key("s", "n", {"a", "bc"}, "v"));
}

TEST(ModuleCache, HitsFromMemoryThenFromDisk) {
    CacheDir d;
    const std::string key = module_cache_key("kernel", "k.cu", {}, "13.0");
    std::string from;
    EXPECT_FALSE(module_cache_find(key, &from));
    module_cache_store(key, sample_module());
    auto hit = module_cache_find(key, &from);
    ASSERT_TRUE(hit);
    EXPECT_EQ(from, "memory");
    module_cache_clear_memory();  // a new process
    hit = module_cache_find(key, &from);
    ASSERT_TRUE(hit);
    EXPECT_EQ(from, "disk");
    EXPECT_EQ(hit->ptx, sample_module().ptx);
    EXPECT_EQ(hit->cubin, sample_module().cubin);
    EXPECT_EQ(hit->log, sample_module().log);
}

TEST(ModuleCache, CorruptOrMisplacedEntriesAreMisses) {
    CacheDir d;
    const std::string key = module_cache_key("kernel", "k.cu", {}, "13.0");
    module_cache_store(key, sample_module());
    const fs::path file = d.dir / (key + ".mod");
    ASSERT_TRUE(fs::exists(file));
    // Truncated: the blobs claim more bytes than the file has.
    fs::resize_file(file, fs::file_size(file) - 5);
    module_cache_clear_memory();
    EXPECT_FALSE(module_cache_find(key));
    // Garbage with the right magic and a huge length.
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write("TPNVRTC1", 9);
        const uint64_t huge = uint64_t{1} << 62;
        out.write(reinterpret_cast<const char*>(&huge), sizeof huge);
    }
    EXPECT_FALSE(module_cache_find(key));
    // Another key's file under this name.
    const std::string other = module_cache_key("other", "k.cu", {}, "13.0");
    module_cache_store(other, sample_module());
    module_cache_clear_memory();
    fs::copy_file(d.dir / (other + ".mod"), file, fs::copy_options::overwrite_existing);
    EXPECT_FALSE(module_cache_find(key));
    // A directory where the file should be: no hit, and storing does not throw.
    fs::remove(file);
    fs::create_directories(file);
    EXPECT_FALSE(module_cache_find(key));
    EXPECT_NO_THROW(module_cache_store(key, sample_module()));
    EXPECT_TRUE(fs::is_directory(file));
    EXPECT_TRUE(module_cache_find(key));  // this process still remembers it
}

TEST(ModuleCache, OffKeepsNothingOnDisk) {
    CacheDir d;
    ::setenv("TILEPLAY_NVRTC_CACHE", "off", 1);
    EXPECT_EQ(module_cache_dir(), "");
    const std::string key = module_cache_key("kernel", "k.cu", {}, "13.0");
    module_cache_store(key, sample_module());
    EXPECT_FALSE(fs::exists(d.dir));
    module_cache_clear_memory();
    EXPECT_FALSE(module_cache_find(key));
}

TEST(ModuleCache, UnwritableFolderIsSkipped) {
    CacheDir d;
    // A file where the folder should be.
    { std::ofstream(d.dir) << "not a folder"; }
    const std::string key = module_cache_key("kernel", "k.cu", {}, "13.0");
    EXPECT_NO_THROW(module_cache_store(key, sample_module()));
    module_cache_clear_memory();
    EXPECT_FALSE(module_cache_find(key));
    fs::remove(d.dir);
}
