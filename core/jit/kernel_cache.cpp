// The JIT's in-memory compile cache and its key (kernel_cache.h).
#include "jit/kernel_cache.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/Support/raw_ostream.h>

#include <list>
#include <mutex>
#include <unordered_map>

#include "tileplay/tune.h"

namespace tp::jit {

namespace {

// Bump when the pipeline (jit_api.cpp's optimise), the code generator's options or a helper's
// signature changes: objects made before then are not loaded.
constexpr const char* kPipelineVersion = "tileplay-jit-o2-nounroll-1";
constexpr size_t kMemoryKernels = 48;

struct Memory {
    std::mutex mu;
    std::list<std::pair<std::string, std::shared_ptr<const Kernel>>> order;  // most recent first
    std::unordered_map<std::string, decltype(order)::iterator> index;
};

Memory& memory() {
    static Memory* m = new Memory;  // never destroyed: kernels may be in use at exit
    return *m;
}

}  // namespace

std::string kernel_cache_key(const llvm::Module& m, const std::vector<Span>& sites, int32_t flags, const llvm::TargetMachine& tm) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << kPipelineVersion << '\n' << LLVM_VERSION_STRING << '\n' << tm.getTargetTriple().str() << '\n' << tm.getTargetCPU() << '\n';
    os << tm.getTargetFeatureString() << '\n' << flags << '\n';
    for (const Span& s : sites) os << s.begin.line << ':' << s.begin.col << '-' << s.end.line << ':' << s.end.col << ';';
    os << '\n';
    m.print(os, nullptr);
    return digest128(os.str());
}

std::shared_ptr<const Kernel> kernel_cache_find(const std::string& key) {
    Memory& mem = memory();
    std::lock_guard<std::mutex> lock(mem.mu);
    auto it = mem.index.find(key);
    if (it == mem.index.end()) return nullptr;
    mem.order.splice(mem.order.begin(), mem.order, it->second);
    return it->second->second;
}

void kernel_cache_store(const std::string& key, std::shared_ptr<const Kernel> k) {
    Memory& mem = memory();
    std::lock_guard<std::mutex> lock(mem.mu);
    if (mem.index.count(key)) return;
    mem.order.emplace_front(key, std::move(k));
    mem.index[key] = mem.order.begin();
    while (mem.order.size() > kMemoryKernels) {
        mem.index.erase(mem.order.back().first);
        mem.order.pop_back();
    }
}

void kernel_cache_clear() {
    Memory& mem = memory();
    std::lock_guard<std::mutex> lock(mem.mu);
    mem.index.clear();
    mem.order.clear();
}

}  // namespace tp::jit
