// The CPU back-end seam (cpu_backend.h): finds and loads libtileplay_jit, checks a launch can go
// to it, runs it on copies of the arguments and turns its result into an InterpReport.
#include "interp/cpu_backend.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>

#include "interp/program.h"

namespace tp {
std::optional<Diagnostic> thread_index_warning(const ir::PrimFunc& f, const std::string& file);  // run.cpp
}

namespace tp::interp {

namespace {

struct Loaded {
    const TpJitApi* api = nullptr;
    std::string why;
};

// Where the library may be: beside the binary that holds this code (tilec, libtileplay.so, a
// test), in the build's lib/ folder relative to it (build/app/cli, build/tests), or the installed
// lib/tileplay/ (from bin/, and from lib/tileplay/python/tileplay where libtileplay.so lives).
std::vector<std::string> candidates() {
    std::vector<std::string> out;
    if (const char* env = std::getenv("TILEPLAY_JIT_LIBRARY"); env && *env) out.push_back(env);
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&cpu_jit), &info) && info.dli_fname) {
        std::filesystem::path dir = std::filesystem::path(info.dli_fname).parent_path();
        if (dir.empty()) dir = std::filesystem::read_symlink("/proc/self/exe").parent_path();
        for (const char* rel : {".", "..", "../..", "../lib", "../../lib", "../lib/tileplay"})
            out.push_back((dir / rel / "libtileplay_jit.so").lexically_normal().string());
    }
#ifdef TILEPLAY_JIT_BUILD_DIR
    out.push_back(std::string(TILEPLAY_JIT_BUILD_DIR) + "/libtileplay_jit.so");
#endif
    return out;
}

Loaded load() {
    Loaded l;
    if (const char* off = std::getenv("TILEPLAY_JIT"); off && std::strcmp(off, "0") == 0) {
        l.why = "LLVM JIT disabled by TILEPLAY_JIT=0";
        return l;
    }
    std::string failed;
    for (const auto& path : candidates()) {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) continue;
        void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char* e = dlerror();
            failed = "LLVM JIT could not be loaded (" + std::string(e ? e : path) + ")";
            continue;
        }
        auto fn = reinterpret_cast<TpJitApiFn>(dlsym(h, "tileplay_jit_api"));
        const TpJitApi* api = fn ? fn() : nullptr;
        if (!api || api->abi_version != TP_JIT_ABI_VERSION) {
            failed = "LLVM JIT at " + path + " is from another build (interface version mismatch)";
            continue;
        }
        l.api = api;
        return l;
    }
    l.why = failed.empty() ? "LLVM JIT not built" : failed;
    return l;
}

// Whether the arguments are what the launch expects (dtype, rank, constant dims, one value per
// symbolic dim); when not, the interpreter runs the launch and reports the mismatch.
bool args_fit(const ir::PrimFunc& f, const std::map<std::string, HostTensor>& args, std::map<std::string, int64_t>& symbols) {
    for (const auto& p : f.params) {
        auto it = args.find(p.name);
        if (it == args.end()) return false;
        const HostTensor& t = it->second;
        if (p.var) {
            if (t.numel() != 1) return false;
            continue;
        }
        if (!p.buffer) continue;
        if (t.dtype != p.buffer->dtype || t.shape.size() != p.buffer->shape.size() || t.shape.size() > TP_JIT_MAX_RANK) return false;
        for (size_t d = 0; d < t.shape.size(); ++d) {
            const ir::Expr& dim = p.buffer->shape[d];
            if (auto c = ir::as_const_int(dim)) {
                if (*c != t.shape[d]) return false;
            } else if (auto* v = dim->as<ir::VarNode>()) {
                auto [b, fresh] = symbols.emplace(v->name, t.shape[d]);
                if (!fresh && b->second != t.shape[d]) return false;
            } else {
                return false;
            }
        }
    }
    return true;
}

// The launch's own span, for a timeout diagnostic (the JIT does not say which loop it was in).
Span launch_span(const ir::PrimFunc& f) {
    std::vector<ir::Stmt> stack{f.body};
    while (!stack.empty()) {
        ir::Stmt s = stack.back();
        stack.pop_back();
        if (!s) continue;
        if (s->as<ir::KernelLaunchNode>()) return s->span;
        if (auto* q = s->as<ir::SeqStmtNode>()) stack.insert(stack.end(), q->seq.rbegin(), q->seq.rend());
        if (auto* l = s->as<ir::LetStmtNode>()) stack.push_back(l->body);
        if (auto* a = s->as<ir::AllocateNode>()) stack.push_back(a->body);
    }
    return f.body ? f.body->span : f.span;
}

}  // namespace

const TpJitApi* cpu_jit(std::string* why) {
    static std::once_flag once;
    static Loaded loaded;
    std::call_once(once, [] { loaded = load(); });
    if (!loaded.api && why) *why = loaded.why;
    return loaded.api;
}

bool run_launch_on_jit(const ir::PrimFunc& f, std::map<std::string, HostTensor>& args, const InterpOptions& opts, InterpReport& rep,
                       std::string& note) {
    const TpJitApi* api = cpu_jit(&note);
    if (!api) return false;
    // A thread-level kernel runs each block as its threads on either engine. A block-level
    // kernel that reads the thread index runs as one program where it reads 0, on either engine,
    // with the interpreter's warning (a fallback's report is the interpreter's).
    if (!thread_level(f))
        if (auto w = thread_index_warning(f, opts.source_path)) rep.warnings.push_back(*w);
    std::map<std::string, int64_t> symbols;
    if (!args_fit(f, args, symbols)) {
        note = "the arguments do not match the signature";
        return false;
    }
    char reason[512] = {0};
    double compile_ms = 0;
    void* kernel = api->compile(&f, (opts.jit_checked ? 1 : 0) | (opts.track_written ? 2 : 0), &compile_ms, nullptr, reason, sizeof reason);
    rep.jit_compile_ms += compile_ms;
    if (!kernel) {
        note = reason[0] ? reason : "the JIT did not compile the kernel";
        return false;
    }
    // The JIT writes copies: a fault leaves the caller's tensors as they were for the interpreter.
    std::vector<HostTensor> copies;
    std::vector<std::vector<uint8_t>> written(f.params.size());
    copies.reserve(f.params.size());
    std::vector<TpJitParam> params(f.params.size());
    for (size_t i = 0; i < f.params.size(); ++i) {
        const auto& p = f.params[i];
        const HostTensor& t = args.at(p.name);
        copies.push_back(p.buffer ? t : HostTensor());
        TpJitParam& jp = params[i];
        jp = TpJitParam{};
        if (p.var) jp.scalar = t.get(0);
        if (!p.buffer) continue;
        jp.data = copies.back().data();
        jp.rank = static_cast<int32_t>(t.shape.size());
        for (size_t d = 0; d < t.shape.size(); ++d) jp.shape[d] = t.shape[d];
        if (opts.track_written) {
            written[i].assign(static_cast<size_t>(t.numel()), 0);
            jp.written = written[i].data();
        }
    }
    TpJitRunOptions ro{};
    ro.threads = opts.threads;
    ro.blocks = opts.sample_blocks.empty() ? nullptr : opts.sample_blocks.data();
    ro.n_blocks = static_cast<int64_t>(opts.sample_blocks.size());
    ro.cancel = opts.cancel;
    ro.watchdog_s = opts.watchdog_s;
    ro.progress_done = opts.progress ? &opts.progress->done : nullptr;
    const int64_t done0 = opts.progress ? opts.progress->done.load() : 0;
    // The total goes up by this run's blocks as soon as the grid is known (the playground's
    // bar and its "blocks interpreted" line), and is settled to what ran afterwards.
    if (opts.progress) opts.progress->total = done0;
    ro.progress_total = opts.progress ? &opts.progress->total : nullptr;
    // T.print text goes where the interpreter's would: the caller's sink, else stdout.
    ro.print = [](void* user, const char* text, int64_t size) {
        const auto* o = static_cast<const InterpOptions*>(user);
        if (o->print_sink)
            o->print_sink(std::string(text, static_cast<size_t>(size)));
        else
            std::fwrite(text, 1, static_cast<size_t>(size), stdout);
    };
    ro.print_user = const_cast<InterpOptions*>(&opts);
    TpJitRunResult res{};
    api->run(kernel, params.data(), static_cast<int32_t>(params.size()), &ro, &res);
    api->release(kernel);
    if (res.status == TP_JIT_FAULT || res.status == TP_JIT_ERROR) {
        note = res.status == TP_JIT_FAULT ? "a fault in block " + std::to_string(res.fault_block) + ", which the interpreter reports"
                                          : std::string(res.message);
        if (opts.progress) opts.progress->done.store(done0);
        return false;
    }
    rep.grid.assign(res.grid, res.grid + 3);
    rep.total_blocks = res.grid[0] * res.grid[1] * res.grid[2];
    rep.blocks_run = res.blocks_run;
    rep.ms = res.ms;
    rep.threads_used = res.threads_used;
    rep.symbols = symbols;
    rep.engine = "jit";
    if (opts.progress) opts.progress->total = done0 + res.blocks_run;
    if (res.status == TP_JIT_CANCELLED) {
        rep.cancelled = true;
        rep.error = "the run was cancelled";
        return true;
    }
    if (res.status == TP_JIT_TIMEOUT) {
        Diagnostic d;
        d.kind = DiagKind::InterpreterTimeout;
        d.severity = Severity::Error;
        char secs[32];
        std::snprintf(secs, sizeof secs, "%g", opts.watchdog_s);
        // The loop the first stopped block was in (outer loops and long inner ones poll).
        const int64_t blk = res.stop_block;
        const std::string where = blk < 0 ? std::string("(unknown)")
                                          : "(" + std::to_string(blk % res.grid[0]) + ", " + std::to_string((blk / res.grid[0]) % res.grid[1]) +
                                                ", " + std::to_string(blk / (res.grid[0] * res.grid[1])) + ")";
        d.message = format_diag(d.kind, {secs, where});
        d.file = opts.source_path;
        d.span = launch_span(f);
        if (res.stop_span[0] != 0) d.span = Span{{res.stop_span[0], res.stop_span[1]}, {res.stop_span[2], res.stop_span[3]}};
        rep.diagnostics.push_back(d);
        return true;
    }
    for (size_t i = 0; i < f.params.size(); ++i) {
        const auto& p = f.params[i];
        if (!p.buffer) continue;
        args[p.name] = std::move(copies[i]);
        if (opts.track_written) rep.written[p.name] = std::move(written[i]);
    }
    rep.ok = true;
    return true;
}

}  // namespace tp::interp

namespace tp {

bool cpu_jit_available(std::string* what) {
    std::string why;
    const TpJitApi* api = interp::cpu_jit(&why);
    if (what) *what = api ? api->describe() : why;
    return api != nullptr;
}

}  // namespace tp
