// The tuner's per-config steps: static filter, NVRTC compile, CPU check, GPU benchmark. Each
// turns every failure (a diagnostic, a compiler bug, a crashed worker) into the config's status
// and reason, so one bad config never ends the tune.
#include <algorithm>
#include <cmath>
#include <thread>

#include "target.h"
#include "tileplay/compiler.h"
#include "tileplay/interp.h"
#include "tune/tune_internal.h"

namespace tp::tune {

namespace {

CompileRequest request(const TuneJob& job, const TuneConfig& c, bool cpu_sizes, Stage stop) {
    CompileRequest req;
    req.path = job.path;
    req.source = job.source;
    req.kernel = job.kernel;
    req.target = job.target;
    req.stop_after = stop;
    req.defines = job.defines;
    req.defines.insert(req.defines.end(), c.begin(), c.end());  // the config wins over -D
    if (cpu_sizes) req.fallback_defines = job.header.cpu_args;
    req.fallback_defines.insert(req.fallback_defines.end(), job.header.args.begin(), job.header.args.end());
    return req;
}

// compile() never throws for user errors; anything else it lets out is a compiler bug, which
// must not take the tuner down.
CompileResult safe_compile(const CompileRequest& req) {
    try {
        return compile(req);
    } catch (const std::exception& e) {
        CompileResult r;
        r.internal_error = InternalError(e.what(), __FILE__, __LINE__, "tune");
        return r;
    }
}

// The reason of a failed compile: its first error, else the internal error.
void take_failure(const CompileResult& cr, TuneResult& r) {
    for (const auto& d : cr.diagnostics)
        if (d.severity == Severity::Error) {
            r.kind = diag_info(d.kind).name;
            r.reason = d.message;
            return;
        }
    if (cr.internal_error) {
        r.kind = "InternalError";
        r.reason = std::string("internal compiler error: ") + cr.internal_error->what();
        if (!cr.internal_error->pass.empty()) r.reason += " (pass " + cr.internal_error->pass + ")";
        return;
    }
    r.kind = "compile_failed";
    r.reason = "the kernel does not compile";
}

int64_t product(const std::vector<int64_t>& v) {
    int64_t p = 1;
    for (int64_t x : v) p *= std::max<int64_t>(x, 1);
    return p;
}

}  // namespace

void static_filter(const TuneJob& job, TuneResult& r) {
    CompileResult cr = safe_compile(request(job, r.config, false, Stage::Cuda));
    if (!cr.kernel.threads.empty()) r.threads = product(cr.kernel.threads);
    if (cr.kernel.dynamic_shared_bytes > 0) r.shared_bytes = cr.kernel.dynamic_shared_bytes;
    if (cr.ok) {
        r.status = TuneStatus::Kept;
        return;
    }
    r.status = TuneStatus::Rejected;
    take_failure(cr, r);
}

void compile_config(const TuneJob& job, TuneResult& r) {
    CompileResult cr = safe_compile(request(job, r.config, false, Stage::Cubin));
    r.compile_ms = cr.total_ms();
    if (!cr.kernel.threads.empty()) r.threads = product(cr.kernel.threads);
    if (!cr.ok) {
        r.status = TuneStatus::CompileFailed;
        take_failure(cr, r);
        return;
    }
    const ResourceUsage& ru = cr.resources;
    r.registers = ru.registers;
    if (ru.spill_store_bytes >= 0 || ru.spill_load_bytes >= 0)
        r.spill_bytes = std::max<int64_t>(ru.spill_store_bytes, 0) + std::max<int64_t>(ru.spill_load_bytes, 0);
    r.shared_bytes = std::max<int64_t>(ru.static_shared_bytes, 0) + ru.dynamic_shared_bytes;
    r.status = TuneStatus::Compiled;
    auto target = parse_target(job.target);
    if (!target) return;
    // Registers are allocated per warp in units of 256 (8 per thread); a block whose warps
    // need more than the SM's register file cannot launch at all.
    if (r.registers > 0 && r.threads > 0) {
        int64_t per_warp = (static_cast<int64_t>(r.registers) * 32 + 255) / 256 * 256;
        int64_t need = (r.threads + 31) / 32 * per_warp;
        if (need > target->regs_per_sm) {
            r.status = TuneStatus::CannotLaunch;
            r.kind = "TooManyRegisters";
            r.reason = std::to_string(r.registers) + " registers x " + std::to_string(r.threads) + " threads need " +
                       std::to_string(need) + " registers, the " + job.target + " SM has " +
                       std::to_string(target->regs_per_sm) + "; use fewer `threads` or a smaller tile";
            return;
        }
    }
    if (r.shared_bytes > target->max_smem_per_block) {
        r.status = TuneStatus::CannotLaunch;
        r.kind = "SharedMemoryExceeded";
        r.reason = "shared memory " + std::to_string(r.shared_bytes) + " bytes exceeds the " + job.target +
                   " limit of " + std::to_string(target->max_smem_per_block) + " bytes per block";
        return;
    }
    if (r.spill_bytes > 0) r.reason = "spills " + std::to_string(r.spill_bytes) + " bytes to local memory";
}

void check_on_cpu(const TuneJob& job, TuneResult& r) {
    CompileResult cr = safe_compile(request(job, r.config, true, Stage::Ir));
    if (!cr.ok || !cr.func) {
        r.status = TuneStatus::Failed;
        take_failure(cr, r);
        return;
    }
    try {
        std::map<std::string, HostTensor> args;
        std::string err;
        if (!allocate_args(*cr.func, 0, {}, args, &err)) {
            r.status = TuneStatus::Failed;
            r.kind = "bad_args";
            r.reason = err;
            return;
        }
        InterpOptions io;
        io.source_path = job.path;
        io.threads = job.interp_threads;
        io.print_sink = [](const std::string&) {};
        io.engine = CpuEngine::Auto;
        InterpReport rep = run_on_cpu(*cr.func, args, io);
        if (!rep.ok) {
            r.status = TuneStatus::Failed;
            r.kind = rep.diagnostics.empty() ? "run_failed" : diag_info(rep.diagnostics[0].kind).name;
            r.reason = rep.error.empty() && !rep.diagnostics.empty() ? rep.diagnostics[0].message : rep.error;
            return;
        }
        r.cpu_ms = rep.ms;
        ReferenceResult ref = cpu_reference(job.header.baselines, *cr.func, args);
        if (!ref.available) {
            // Ran cleanly, but nothing to compare with: not a pass.
            r.status = TuneStatus::Compiled;
            r.reason = "ran on the CPU interpreter but was not checked: " + ref.error;
            return;
        }
        CompareResult cmp = compare_tensors(args[ref.output], ref.expected);
        r.rel_fro = cmp.rel_fro;
        r.status = cmp.pass ? TuneStatus::Passed : TuneStatus::Wrong;
        if (!cmp.pass) {
            r.kind = "check_failed";
            char buf[160];
            std::snprintf(buf, sizeof buf, "output `%s` differs from the %s reference: rel_fro %.2e > tol %.1e",
                          ref.output.c_str(), ref.name.c_str(), cmp.rel_fro, cmp.tol);
            r.reason = buf;
        }
    } catch (const std::exception& e) {
        r.status = TuneStatus::Failed;
        r.kind = "InternalError";
        r.reason = std::string("interpreter error: ") + e.what();
    }
}

namespace {

// Loads `config` of the tune's kernel into the worker.
WorkerReply load_config(WorkerClient& client, const TuneJob& job, const TuneConfig& config) {
    LoadSpec ls;
    ls.path = job.path;
    ls.source = job.source;
    ls.kernel = job.kernel;
    ls.defines = job.defines;
    ls.defines.insert(ls.defines.end(), config.begin(), config.end());
    ls.fallback_defines = job.header.args;
    ls.target = job.target;
    return client.load(ls);
}

// The loaded kernel's numeric parameters, for the header's FLOP and byte formulas.
std::map<std::string, double> bound_values(const WorkerReply& lr) {
    return formula_values(lr.body["kernel"]["bound_params"].get<std::map<std::string, std::string>>());
}

}  // namespace

void check_in_worker(WorkerClient& client, const TuneJob& job, TuneResult& r) {
    LoadSpec ls;
    ls.path = job.path;
    ls.source = job.source;
    ls.kernel = job.kernel;
    ls.defines = job.defines;
    ls.defines.insert(ls.defines.end(), r.config.begin(), r.config.end());
    ls.fallback_defines = job.header.cpu_args;  // CPU sizes, as check_on_cpu takes them
    ls.fallback_defines.insert(ls.fallback_defines.end(), job.header.args.begin(), job.header.args.end());
    ls.target = job.target;
    ls.device = "cpu";
    WorkerReply lr = client.load(ls);
    WorkerReply rr = lr.ok ? client.run(RunSpec{}) : lr;
    if (!rr.ok) {
        r.status = TuneStatus::Failed;
        r.kind = rr.kind;
        r.reason = rr.error;
        return;
    }
    r.cpu_ms = rr.body.value("interp", Json::object()).value("ms", 0.0);
    const Json check = rr.body.value("check", Json());
    if (!check.is_object() || !check.contains("outputs") || check["outputs"].empty()) {
        r.status = TuneStatus::Compiled;
        r.reason = "ran on the CPU but was not checked: no reference for this kernel";
        return;
    }
    const Json& o = check["outputs"][0];
    r.rel_fro = o.value("rel_fro", -1.0);
    r.status = check.value("ok", false) ? TuneStatus::Passed : TuneStatus::Wrong;
    if (r.status == TuneStatus::Wrong) {
        r.kind = "check_failed";
        char buf[160];
        std::snprintf(buf, sizeof buf, "output `%s` differs from the %s reference: rel_fro %.2e > tol %.1e", o.value("name", "").c_str(),
                      check.value("against", std::string("cpu")).c_str(), o.value("rel_fro", 0.0), o.value("tol", 0.0));
        r.reason = buf;
    }
}

void bench_on_gpu(WorkerClient& client, std::mutex& gpu, const TuneJob& job, const TuneOptions& opts, TuneResult& r) {
    WorkerReply lr = load_config(client, job, r.config);
    if (!lr.ok) {
        r.status = TuneStatus::Failed;
        r.kind = lr.kind;
        r.reason = lr.error;
        return;
    }
    std::map<std::string, double> vars = bound_values(lr);
    BenchSpec bs;
    bs.iters = opts.iters;
    bs.warmup = opts.warmup;
    // Checked by a separate run below, outside the GPU lock: the interpreter check is CPU work
    // that took most of each config's time while every other worker waited for the GPU.
    bs.check = false;
    if (!job.header.flops.empty()) bs.flops = eval_formula(job.header.flops, vars).value_or(0);
    if (!job.header.bytes.empty()) bs.bytes = eval_formula(job.header.bytes, vars).value_or(0);
    WorkerReply br;
    {
        // One kernel on the GPU at a time; the other workers keep compiling meanwhile.
        std::lock_guard<std::mutex> lock(gpu);
        br = client.bench(bs);
    }
    if (!br.ok) {
        r.status = TuneStatus::Failed;
        r.kind = br.kind;
        r.reason = br.error;
        return;
    }
    RunSpec rs;
    rs.check = true;  // a wrong config must never be ranked
    rs.check_blocks = opts.check_blocks;
    WorkerReply cr = client.run(rs);
    if (!cr.ok) {
        r.status = TuneStatus::Failed;
        r.kind = cr.kind;
        r.reason = cr.error;
        return;
    }
    const Json ours = br.body.value("ours", Json::object());
    r.median_ms = ours.value("median_ms", 0.0);
    r.min_ms = ours.value("min_ms", 0.0);
    r.spread_pct = ours.value("spread_pct", 0.0);
    r.tflops = ours.value("tflops", 0.0);
    r.gbps = ours.value("gbps", 0.0);
    const Json check = cr.body.value("check", Json::object());
    if (check.contains("outputs") && !check["outputs"].empty()) r.rel_fro = check["outputs"][0].value("rel_fro", -1.0);
    if (check.value("ok", false)) {
        r.status = TuneStatus::Timed;
    } else {
        r.status = TuneStatus::Wrong;
        r.kind = "check_failed";
        r.reason = "output differs from the CPU interpreter";
        if (check.contains("outputs"))
            for (const auto& o : check["outputs"])
                if (!o.value("pass", true)) {
                    char buf[160];
                    std::snprintf(buf, sizeof buf, "output `%s` differs from the CPU interpreter: rel_fro %.2e > tol %.1e",
                                  o.value("name", "").c_str(), o.value("rel_fro", 0.0), o.value("tol", 0.0));
                    r.reason = buf;
                    break;
                }
    }
}

Json bench_beside_peers(WorkerClient& client, const TuneJob& job, const TuneOptions& opts, const TuneResult& best) {
    WorkerReply lr = load_config(client, job, best.config);
    if (!lr.ok) return {{"error", lr.error}};
    std::map<std::string, double> vars = bound_values(lr);
    BenchSpec bs;
    bs.iters = opts.iters;
    bs.warmup = opts.warmup;
    bs.check_blocks = opts.check_blocks;
    bs.baselines = job.header.baselines;
    if (!job.header.flops.empty()) bs.flops = eval_formula(job.header.flops, vars).value_or(0);
    if (!job.header.bytes.empty()) bs.bytes = eval_formula(job.header.bytes, vars).value_or(0);
    WorkerReply br = client.bench(bs);
    if (!br.ok) return {{"error", br.error}};
    Json out = {{"config", config_text(best.config)}};
    for (const char* key : {"ours", "baselines", "best_peer", "semantics", "check", "conditions"})
        if (br.body.contains(key)) out[key] = br.body[key];
    return out;
}

void parallel_for(size_t n, int threads, const std::function<void(size_t)>& fn, const std::atomic<bool>* cancel) {
    std::atomic<size_t> next{0};
    auto loop = [&] {
        for (;;) {
            if (cancel && cancel->load()) return;
            size_t i = next.fetch_add(1);
            if (i >= n) return;
            fn(i);
        }
    };
    int t = std::max(1, std::min<int>(threads, static_cast<int>(n)));
    std::vector<std::thread> pool;
    for (int k = 1; k < t; ++k) pool.emplace_back(loop);
    loop();
    for (auto& th : pool) th.join();
}

}  // namespace tp::tune
