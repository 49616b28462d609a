// run_on_cpu: a kernel function's `T.Kernel` launches in program order, every block of launch 0
// before any block of launch 1 (a launch waits for the one before it on the GPU's stream), each
// on the global tensors the launches before it left behind.
#include <algorithm>
#include <chrono>

#include "interp/cpu_backend.h"
#include "interp/program.h"
#include "ir/launches.h"
#include "tileplay/interp.h"

namespace tp {

namespace {

// Adds what one launch's run found to the kernel's report.
void add_launch(InterpReport& all, InterpReport& one, bool first) {
    if (first) all.grid = one.grid;
    all.total_blocks += one.total_blocks;
    all.blocks_run += one.blocks_run;
    all.ms += one.ms;
    all.threads_used = std::max(all.threads_used, one.threads_used);
    all.diagnostics.insert(all.diagnostics.end(), one.diagnostics.begin(), one.diagnostics.end());
    all.warnings.insert(all.warnings.end(), one.warnings.begin(), one.warnings.end());
    all.races.insert(all.races.end(), one.races.begin(), one.races.end());
    if (all.races_scope.empty()) all.races_scope = one.races_scope;
    all.symbols.insert(one.symbols.begin(), one.symbols.end());
    for (auto& [name, mask] : one.written) {
        auto& into = all.written[name];
        if (into.size() != mask.size()) into.assign(mask.size(), 0);
        for (size_t i = 0; i < mask.size(); ++i) into[i] |= mask[i];
    }
    all.jit_compile_ms += one.jit_compile_ms;
    if (all.jit_note.empty()) all.jit_note = one.jit_note;
    all.engine = first || all.engine == one.engine ? one.engine : "jit+interpreter";
    all.cancelled = one.cancelled;
    all.error = one.error;
    all.ok = one.ok;
}

// One launch on the JIT when the options allow it and it accepts the launch, else on the
// interpreter (with the JIT's reason in jit_note). The race checker is the interpreter's alone.
InterpReport run_launch(const ir::PrimFunc& f, std::map<std::string, HostTensor>& args, const InterpOptions& opts) {
    if (opts.engine != CpuEngine::Auto) return interp::run_one_launch(f, args, opts);
    InterpReport rep;
    std::string note;
    if (!opts.check_races && interp::run_launch_on_jit(f, args, opts, rep, note)) return rep;
    if (opts.check_races) note = "--check-races runs on the interpreter";
    InterpReport ran = interp::run_one_launch(f, args, opts);
    ran.jit_note = note;
    ran.jit_compile_ms = rep.jit_compile_ms;
    return ran;
}

}  // namespace

InterpReport run_on_cpu(const ir::PrimFunc& f, std::map<std::string, HostTensor>& args, const InterpOptions& opts) {
    std::vector<ir::PrimFuncPtr> launches = ir::split_launches(std::make_shared<ir::PrimFunc>(f));
    if (launches.size() <= 1) return run_launch(f, args, opts);
    InterpReport all;
    // A sample of one launch's blocks reads what every block of the launches before it wrote,
    // and which of those a sampled block reads is not known here; callers check such a kernel
    // on every block (the worker does).
    if (!opts.sample_blocks.empty()) {
        all.error = "the kernel has " + std::to_string(launches.size()) +
                    " `T.Kernel` launches; a sample of blocks cannot be run "
                    "on its own, since each launch reads what the blocks of the launches before it wrote";
        return all;
    }
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < launches.size(); ++i) {
        InterpOptions o = opts;
        if (opts.watchdog_s > 0) {  // one limit for the whole kernel
            double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            o.watchdog_s = std::max(1e-3, opts.watchdog_s - spent);
        }
        InterpReport one = run_launch(*launches[i], args, o);
        add_launch(all, one, i == 0);
        if (!one.ok) return all;
    }
    return all;
}

}  // namespace tp
