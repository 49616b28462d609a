// The worker's CPU runs (worker_state.h): the playground's Run on the CPU goes through the same
// child process as a GPU run, so Cancel kills it at once, a run too large for the machine is
// refused with its sizes before anything is allocated, and a crash in the interpreter takes
// down only the worker. `load` compiles to Tile IR; `run` interprets every block with progress
// events and checks the output against the C++ reference of the sample's named baseline.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/ir.h"
#include "tileplay/interp.h"
#include "tileplay/sample_header.h"
#include "tileplay/tensor_stats.h"
#include "worker/worker_state.h"

namespace tp::worker {

namespace {

using Clock = std::chrono::steady_clock;

// What the interpreter printed, kept to 1 MiB like device printf (server.cpp's take_printed).
constexpr size_t kPrintedLimit = size_t{1} << 20;

std::string read_source(const CompileRequest& cr) {
    if (!cr.source.empty() || cr.path.empty()) return cr.source;
    std::ifstream in(cr.path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The client's budget (`memory_budget` bytes; `memory_budget_from` says where it was set, for
// the refusal) or this machine's default.
MemoryBudget budget_for(const Json& req) {
    if (!req.contains("memory_budget")) return default_memory_budget();
    const Json& b = req["memory_budget"];
    if (!b.is_number_integer() || b.get<int64_t>() <= 0)
        throw WorkerError("bad_request", "`memory_budget` must be a positive integer of bytes");
    return {b.get<int64_t>(), req.value("memory_budget_from", std::string("the budget the request gave"))};
}

// "reduce N (now 268435456), or raise the budget": the parameters sizing the largest tensors.
std::string reduce_hint(const std::vector<std::string>& names, const std::map<std::string, std::string>& bound) {
    if (names.empty()) return "use smaller sizes, or raise the budget";
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) {
        list += i == 0 ? "" : i + 1 == names.size() ? " or " : ", ";
        list += "`" + names[i] + "` (now " + bound.at(names[i]) + ")";
    }
    return "reduce " + list + ", or raise the budget";
}

// The output against the sample's C++ reference, in the `check` shape a GPU run's reply has.
Json reference_check(const KernelSession& s, std::map<std::string, HostTensor>& args, std::string& note) {
    ReferenceResult ref = cpu_reference(s.baselines, *s.compiled->func, args);
    if (!ref.available) {
        note += "; no reference check (" + ref.error + ")";
        return nullptr;
    }
    CompareResult c = compare_tensors(args.at(ref.output), ref.expected);
    note += "; checked `" + ref.output + "` against the " + ref.name + " reference";
    Json out = {{"name", ref.output},    {"rel_fro", c.rel_fro},     {"max_abs", c.max_abs},
                {"tol", c.tol},          {"compared", c.compared},   {"nonfinite", c.nonfinite}, {"both_nan", c.both_nan},
                {"worst_index", c.worst_index}, {"pass", c.pass}};
    return {{"ok", c.pass}, {"against", "cpu reference: " + ref.name}, {"outputs", Json::array({out})}};
}

// `inputs_dir`/<param>.npy replaces the seeded values where present, as on the GPU.
void load_inputs(const KernelInfo& k, const std::string& dir, std::map<std::string, HostTensor>& args) {
    if (dir.empty()) return;
    for (const auto& p : k.params) {
        std::string path = dir + "/" + p.name + ".npy", why;
        if (p.is_scalar || !std::filesystem::exists(path)) continue;
        HostTensor& t = args.at(p.name);
        HostTensor loaded;
        if (!load_npy_as(path, t.dtype, t.shape, loaded, &why)) throw WorkerError("io_error", path + ": " + why);
        t = std::move(loaded);
    }
}

// Every output as `dir`/<param>.npy; the reply's `files`.
Json save_outputs(const KernelInfo& k, const std::string& dir, const std::map<std::string, HostTensor>& args) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    Json files = Json::array();
    for (const auto& p : k.params) {
        if (p.is_scalar || !p.is_output) continue;
        const HostTensor& h = args.at(p.name);
        std::string path = dir + "/" + p.name + ".npy", why;
        if (!write_npy(path, h, &why)) throw WorkerError("io_error", "cannot write " + path + ": " + why);
        files.push_back({{"name", p.name}, {"path", path}, {"is_output", true}, {"dtype", h.dtype.name()}, {"shape", h.shape}});
    }
    return files;
}

std::string interp_error(const InterpReport& rep) {
    if (!rep.diagnostics.empty()) return rep.diagnostics.front().message;
    return rep.error.empty() ? std::string("the interpreter stopped") : rep.error;
}

}  // namespace

Json handle_cpu_load(const CompileRequest& in, const Json& req, WorkerState& st, Emitter& em) {
    CompileRequest cr = in;
    cr.stop_after = Stage::Ir;  // the interpreter runs Tile IR: no passes, no NVRTC
    std::string target = req.value("target", "auto");
    cr.target = target == "auto" || target.empty() ? "sm_90a" : target;
    auto t0 = Clock::now();
    auto result = std::make_shared<CompileResult>();
    {
        Heartbeat hb(em, req["id"], "compile", st.opts.heartbeat_s);
        *result = compile(cr);
    }
    double compile_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (!result->ok || !result->func) return compile_failed_reply(*result);
    st.session = KernelSession{};
    st.session.compiled = result;
    st.session.cpu = true;
    st.session.baselines = parse_sample_header(read_source(cr)).baselines;
    return {{"ok", true}, {"kernel", st.session.describe()}, {"target", "cpu"}, {"compile_ms", compile_ms}};
}

Json handle_cpu_run(const Json& req, WorkerState& st, Emitter& em) {
    const ir::PrimFunc& f = *st.session.compiled->func;
    const KernelInfo& k = st.session.info();
    const std::map<std::string, int64_t> symbols = scalar_map(req);
    std::vector<std::vector<int64_t>> shapes;
    std::string why;
    if (!arg_shapes(f, symbols, shapes, &why)) throw WorkerError("bad_request", why);
    // The budget before any allocation: the reply names the sizes and what to reduce.
    const MemoryBudget budget = budget_for(req);
    const RunMemory need = run_memory(f, shapes);
    if (!need.overflow.empty()) throw WorkerError("over_budget", need.overflow);
    if (need.total > budget.bytes) {
        std::vector<std::string> names = sizing_params(need, k.bound_params);
        return {{"ok", false},
                {"kind", "over_budget"},
                {"error", memory_refusal(need, budget, reduce_hint(names, k.bound_params))},
                {"needs_bytes", need.total},
                {"budget_bytes", budget.bytes},
                {"reduce", names}};
    }
    std::map<std::string, HostTensor> args;
    {
        Heartbeat hb(em, req["id"], "inputs", st.opts.heartbeat_s);
        if (!allocate_args(f, req.value("seed", uint64_t{0}), symbols, args, &why, &budget))
            throw WorkerError("bad_request", why);
        load_inputs(k, req.value("inputs_dir", ""), args);
    }
    InterpOptions opts;
    InterpOptions::Progress progress;
    opts.progress = &progress;
    opts.check_races = req.value("check_races", false);
    // "engine": "cpu-interp" keeps the run on the interpreter; otherwise the LLVM JIT where built.
    opts.engine = req.value("engine", std::string("auto")) == "cpu-interp" ? CpuEngine::Interpreter : CpuEngine::Auto;
    // Race findings name the other access as FILE:LINE:COL; the file name is enough where the
    // client shows them beside that file (the playground's Problems list).
    if (st.session.compiled->file) opts.source_path = std::filesystem::path(st.session.compiled->file->path()).filename().string();
    std::string printed;
    size_t dropped = 0;
    opts.print_sink = [&](const std::string& text) {
        size_t room = kPrintedLimit > printed.size() ? kPrintedLimit - printed.size() : 0;
        printed.append(text, 0, std::min(room, text.size()));
        dropped += text.size() - std::min(room, text.size());
    };
    InterpReport rep;
    {
        Heartbeat hb(em, req["id"], "interpret", st.opts.heartbeat_s, [&progress](Json& e) {
            e["done"] = progress.done.load(std::memory_order_relaxed);
            e["total"] = progress.total.load(std::memory_order_relaxed);
        });
        rep = run_on_cpu(f, args, opts);
    }
    Json j = {{"ok", rep.ok}, {"device", "cpu"}};
    if (opts.check_races) {
        // The findings go back even when the run stopped: they may explain why.
        Json findings = Json::array();
        for (const auto& d : rep.races) {
            Json f = {{"kind", diag_info(d.kind).name}, {"message", d.message}, {"line", d.span.begin.line}, {"col", d.span.begin.col}};
            if (!d.notes.empty()) {
                f["other_line"] = d.notes[0].span.begin.line, f["other_col"] = d.notes[0].span.begin.col;
                f["other_message"] = d.notes[0].message;  // the playground's Problems row at that line
            }
            findings.push_back(f);
        }
        j["races"] = {{"scope", rep.races_scope}, {"findings", findings}};
    }
    if (dropped) printed += "\n[" + std::to_string(dropped) + " more bytes of printed output dropped]\n";
    // Printed before a failure too: the lines leading up to a failed T.device_assert matter most.
    if (!printed.empty()) j["printed"] = printed;
    if (!rep.ok) {
        j["kind"] = "run_failed";
        j["error"] = interp_error(rep);
        return j;
    }
    j["interp"] = {{"blocks_run", rep.blocks_run}, {"total_blocks", rep.total_blocks}, {"threads", rep.threads_used}, {"ms", rep.ms}};
    j["interp"]["jit_compile_ms"] = rep.jit_compile_ms;
    // Which CPU engine ran it ("jit", "interpreter", "jit+interpreter") and why not the JIT.
    j["engine"] = rep.engine;
    if (!rep.jit_note.empty()) j["jit_note"] = rep.jit_note;
    char head[200];
    std::snprintf(head, sizeof head, "%s %lld blocks%s in %.1f ms on %d threads", rep.engine == "interpreter" ? "interpreted" : "ran",
                  static_cast<long long>(rep.blocks_run), rep.engine == "interpreter" ? "" : " on the LLVM JIT", rep.ms, rep.threads_used);
    std::string note = head;
    if (!rep.jit_note.empty()) note += " (JIT: " + rep.jit_note + ")";
    if (req.value("check", true)) {
        // The C++ reference of a large GEMM takes a while too: the client's watchdog hears it.
        Heartbeat hb(em, req["id"], "check", st.opts.heartbeat_s);
        if (Json check = reference_check(st.session, args, note); !check.is_null()) j["check"] = check;
    }
    j["note"] = note;
    // The outputs' summary, so a client on another host sees what a local `tilec run` prints;
    // the arrays themselves go to `outputs_dir` on this host when asked for.
    Json outs = Json::object();
    for (const auto& p : k.params)
        if (!p.is_scalar && p.is_output) outs[p.name] = tensor_stats(args.at(p.name));
    j["outputs"] = outs;
    if (std::string dir = req.value("outputs_dir", ""); !dir.empty()) j["files"] = save_outputs(k, dir, args);
    return j;
}

}  // namespace tp::worker
