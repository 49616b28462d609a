// NVRTC through dlopen (see nvrtc.h). The few prototypes we need are declared here so core
// builds without the CUDA toolkit. The embedded runtime headers are handed to NVRTC as
// in-memory headers, so no include path is needed: generated code includes nothing else.
#include "runtime/nvrtc.h"

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string>

#include "codegen/cuda/codegen_cuda.h"
#include "runtime/module_cache.h"

namespace tp::runtime {

namespace {

using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram*;

struct NvrtcApi {
    void* handle = nullptr;
    std::string error;
    std::string path;
    nvrtcResult (*version)(int*, int*) = nullptr;
    const char* (*get_error_string)(nvrtcResult) = nullptr;
    nvrtcResult (*create_program)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
    nvrtcResult (*compile_program)(nvrtcProgram, int, const char* const*) = nullptr;
    nvrtcResult (*get_ptx_size)(nvrtcProgram, size_t*) = nullptr;
    nvrtcResult (*get_ptx)(nvrtcProgram, char*) = nullptr;
    nvrtcResult (*get_cubin_size)(nvrtcProgram, size_t*) = nullptr;
    nvrtcResult (*get_cubin)(nvrtcProgram, char*) = nullptr;
    nvrtcResult (*get_log_size)(nvrtcProgram, size_t*) = nullptr;
    nvrtcResult (*get_log)(nvrtcProgram, char*) = nullptr;
    nvrtcResult (*destroy_program)(nvrtcProgram*) = nullptr;
};

template <class F>
bool load_sym(void* h, const char* name, F& out) {
    out = reinterpret_cast<F>(dlsym(h, name));
    return out != nullptr;
}

const NvrtcApi& api() {
    static NvrtcApi a;
    static std::once_flag once;
    std::call_once(once, [] {
        keep_ptxas_reports();  // before the library loads (see nvrtc.h)
        std::vector<std::string> candidates = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
        // TILEPLAY_NVRTC_PATH pins one library (a user's configuration; nothing else is tried).
        const char* pinned = std::getenv("TILEPLAY_NVRTC_PATH");
        if (pinned && *pinned) candidates = {pinned};
        for (const char* env : {"CUDA_HOME", "CUDA_PATH"}) {
            if (pinned && *pinned) break;
            if (const char* home = std::getenv(env)) {
                candidates.push_back(std::string(home) + "/lib64/libnvrtc.so.13");
                candidates.push_back(std::string(home) + "/lib64/libnvrtc.so.12");
                candidates.push_back(std::string(home) + "/lib64/libnvrtc.so");
            }
        }
        if (!pinned || !*pinned) {
            candidates.push_back("/usr/local/cuda/lib64/libnvrtc.so.13");
            candidates.push_back("/usr/local/cuda/lib64/libnvrtc.so.12");
            candidates.push_back("/usr/local/cuda/lib64/libnvrtc.so");
        }
        std::string tried;
        for (const auto& c : candidates) {
            a.handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (a.handle) {
                a.path = c;
                break;
            }
            tried += tried.empty() ? c : ", " + c;
        }
        if (!a.handle) {
            a.error = "cannot load libnvrtc (tried " + tried + ")";
            return;
        }
        bool ok = load_sym(a.handle, "nvrtcVersion", a.version) &&
                  load_sym(a.handle, "nvrtcGetErrorString", a.get_error_string) &&
                  load_sym(a.handle, "nvrtcCreateProgram", a.create_program) &&
                  load_sym(a.handle, "nvrtcCompileProgram", a.compile_program) &&
                  load_sym(a.handle, "nvrtcGetPTXSize", a.get_ptx_size) &&
                  load_sym(a.handle, "nvrtcGetPTX", a.get_ptx) &&
                  load_sym(a.handle, "nvrtcGetProgramLogSize", a.get_log_size) &&
                  load_sym(a.handle, "nvrtcGetProgramLog", a.get_log) &&
                  load_sym(a.handle, "nvrtcDestroyProgram", a.destroy_program);
        // cubin output appeared in CUDA 11.1; older libraries still give PTX.
        load_sym(a.handle, "nvrtcGetCUBINSize", a.get_cubin_size);
        load_sym(a.handle, "nvrtcGetCUBIN", a.get_cubin);
        if (!ok) {
            a.error = a.path + " lacks the NVRTC entry points";
            dlclose(a.handle);
            a.handle = nullptr;
        }
    });
    return a;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string program_log(const NvrtcApi& a, nvrtcProgram prog) {
    size_t n = 0;
    if (a.get_log_size(prog, &n) != 0 || n <= 1) return {};
    std::string log(n, '\0');
    a.get_log(prog, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    return log;
}

constexpr nvrtcResult kInvalidOption = 5;  // NVRTC_ERROR_INVALID_OPTION

// One NVRTC compilation; fills ptx (and cubin when want_cubin) and the log. *invalid_option
// tells the caller that NVRTC refused an option rather than the source.
bool compile_once(const NvrtcApi& a, const std::string& source, const std::string& name,
                  const std::vector<std::string>& options, bool want_cubin, NvrtcOutput& out, bool* invalid_option) {
    // The embedded texts and names view string literals, NUL-terminated (codegen_cuda.h): handed
    // to NVRTC as they are, not copied (half a megabyte of page faults per process).
    std::vector<const char*> hp, np, op;
    for (const auto& [n, t] : codegen::embedded_runtime_headers()) {
        np.push_back(n.data());
        hp.push_back(t.data());
    }
    // The Tensor-Core templates include <cuda_fp16.h> / <cuda_bf16.h> for __half and friends;
    // tp_half.cuh provides that subset, so NVRTC never parses the toolkit's headers.
    for (const char* n : {"cuda_fp16.h", "cuda_bf16.h"}) {
        np.push_back(n);
        hp.push_back("#pragma once\n#include \"tp_half.cuh\"\n");
    }
    for (const auto& o : options) op.push_back(o.c_str());

    nvrtcProgram prog = nullptr;
    nvrtcResult r = a.create_program(&prog, source.c_str(), name.c_str(), static_cast<int>(hp.size()), hp.data(), np.data());
    if (r != 0) {
        out.error = std::string("nvrtcCreateProgram: ") + a.get_error_string(r);
        return false;
    }
    r = a.compile_program(prog, static_cast<int>(op.size()), op.data());
    *invalid_option = r == kInvalidOption;
    std::string log = program_log(a, prog);
    if (!log.empty()) out.log += (out.log.empty() ? "" : "\n") + log;
    bool ok = r == 0;
    if (!ok) {
        out.error = log.empty() ? a.get_error_string(r) : log;
    } else {
        size_t n = 0;
        if (a.get_ptx_size(prog, &n) == 0 && n > 1) {
            out.ptx.assign(n, '\0');
            a.get_ptx(prog, out.ptx.data());
            while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
        }
        if (want_cubin && a.get_cubin_size && a.get_cubin_size(prog, &n) == 0 && n > 0) {
            out.cubin.resize(n);
            a.get_cubin(prog, reinterpret_cast<char*>(out.cubin.data()));
        }
    }
    a.destroy_program(&prog);
    return ok;
}

bool version_at_least(int want_major, int want_minor) {
    int major = 0, minor = 0;
    const auto& a = api();
    if (!a.handle || a.version(&major, &minor) != 0) return false;
    return major > want_major || (major == want_major && minor >= want_minor);
}

// Set when NVRTC refused an option while lean_options() were in use (a library that lacks one
// its version number promises): every compile then goes without them, since they only save
// time. Had another option been refused, the retry fails the same way and reports it.
std::atomic<bool> lean_refused{false};

// Options that make NVRTC do less without changing what it produces (PTX and cubin stay
// byte-identical; docs/compile-time.md has the figures).
std::vector<std::string> lean_options() {
    std::vector<std::string> o;
    if (lean_refused) return o;
    // --minimal (12.4+) leaves out of the built-in prelude, parsed for every kernel, what
    // generated code never uses: textures and surfaces, cudadevrt calls, device-side launch and
    // the runtime API's types. The front end gets about a third shorter.
    if (version_at_least(12, 4)) o.push_back("--minimal");
    // NVRTC 12.9+ keeps its own cache of compiled programs, and setting it up loads and
    // initialises the CUDA driver (libcuda): about 200 ms of the first compile in every process
    // on a machine with a GPU (233 of 279 ms for an empty kernel on the H200), more than a whole
    // small kernel. CUDA_CACHE_DISABLE skips only the cache's lookups, not that. Our module cache
    // (module_cache.h) already serves repeated compiles, from memory or disk.
    if (version_at_least(12, 9)) o.push_back("-no-cache");
    return o;
}

}  // namespace

void keep_ptxas_reports() {
    // Seen on the H200: a second identical compile returned only the front end's warnings, no
    // "Used N registers" (cuda-python issue 1124 reports the same). A compile costs at most
    // about a second, so the report matters more than the cache. From NVRTC 12.9, -no-cache
    // (lean_options) also turns that cache off, and skips setting it up.
    setenv("CUDA_CACHE_DISABLE", "1", 0);
}

bool nvrtc_available(std::string* why) {
    const auto& a = api();
    if (!a.handle && why) *why = a.error;
    return a.handle != nullptr;
}

std::string nvrtc_version() {
    const auto& a = api();
    if (!a.handle) return {};
    int major = 0, minor = 0;
    if (a.version(&major, &minor) != 0) return {};
    return std::to_string(major) + "." + std::to_string(minor);
}

NvrtcOutput nvrtc_compile(const std::string& source, const std::string& name, const NvrtcOptions& opts) {
    NvrtcOutput out;
    const auto& a = api();
    if (!a.handle) {
        out.error = a.error;
        return out;
    }
    std::vector<std::string> common = {"-std=c++17", "-default-device"};
    for (auto& o : lean_options()) common.push_back(std::move(o));
    if (opts.lineinfo) common.push_back("-lineinfo");
    if (opts.fast_math) common.push_back("--use_fast_math");
    for (const auto& e : opts.extra) common.push_back(e);
    // A developer's knob for compile-time experiments (docs/compile-time.md): more NVRTC options,
    // separated by spaces. They are part of the module cache's key, like every other option.
    if (const char* more = std::getenv("TILEPLAY_NVRTC_EXTRA")) {
        std::istringstream words(more);
        for (std::string w; words >> w;) common.push_back(w);
    }

    // One compilation for the real architecture gives both the PTX (what the PTX view and the
    // ptxas checks read) and the cubin with ptxas' resource report: the C++ front end runs once.
    std::string arch = opts.arch;
    bool real = arch.rfind("sm_", 0) == 0 && a.get_cubin;
    std::vector<std::string> o = common;
    o.push_back("--gpu-architecture=" + (real || arch.rfind("sm_", 0) != 0 ? arch : "compute_" + arch.substr(3)));
    if (real) o.push_back("--ptxas-options=-v");
    auto t0 = std::chrono::steady_clock::now();
    const std::string key = module_cache_key(source, name, o, nvrtc_version());
    if (auto hit = opts.use_cache ? module_cache_find(key, &out.cache) : std::nullopt) {
        out.ptx = std::move(hit->ptx);
        out.cubin = std::move(hit->cubin);
        out.log = std::move(hit->log);
        out.ptx_ms = ms_since(t0);
        out.ok = true;
        return out;
    }
    bool invalid_option = false;
    bool ok = compile_once(a, source, name, o, real, out, &invalid_option);
    out.ptx_ms = ms_since(t0);
    if (!ok && invalid_option && !lean_refused && !lean_options().empty()) {
        lean_refused = true;
        return nvrtc_compile(source, name, opts);
    }
    if (!ok) return out;
    out.ok = true;
    if (opts.use_cache) module_cache_store(key, {out.ptx, out.cubin, out.log});
    return out;
}

}  // namespace tp::runtime
