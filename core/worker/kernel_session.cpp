// Arguments, launch geometry and interpreter checks for the worker; see kernel_session.h.
#include "worker/kernel_session.h"

#include <sys/stat.h>

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>

#include "ir/functor.h"
#include "tensor/npy.h"
#include "tileplay/interp.h"
#include "tileplay/sample_header.h"
#include "worker/launch_args.h"

namespace tp::worker {

namespace {

bool file_exists(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The worker's scalars (integers by name) as the launch helpers take them.
std::map<std::string, double> as_doubles(const std::map<std::string, int64_t>& scalars) {
    std::map<std::string, double> out;
    for (const auto& [n, v] : scalars) out[n] = static_cast<double>(v);
    return out;
}

// Every launch's kernel and geometry, in program order (one entry for a kernel of one launch).
Json launches_json(const KernelInfo& k) {
    Json out = Json::array();
    for (size_t i = 0; i < k.launch_count(); ++i) {
        const KernelInfo l = k.launch(i);
        out.push_back({{"name", l.name},
                       {"grid", l.grid},
                       {"grid_text", l.grid_text},
                       {"threads", l.threads},
                       {"dynamic_shared_bytes", l.dynamic_shared_bytes},
                       {"tensor_maps", l.tensor_maps.size()}});
    }
    return out;
}

}  // namespace

Json KernelSession::describe() const {
    const KernelInfo& k = info();
    Json params = Json::array();
    for (const auto& p : k.params)
        params.push_back({{"name", p.name}, {"dtype", p.dtype}, {"shape", p.shape}, {"shape_text", p.shape_text},
                          {"is_output", p.is_output}, {"is_scalar", p.is_scalar}});
    return {{"name", k.name},
            {"factory", k.factory},
            {"params", params},
            {"grid", k.grid},
            {"persistent", k.persistent},
            {"blocks_per_sm", k.blocks_per_sm},
            {"grid_text", k.grid_text},
            {"threads", k.threads},
            {"dynamic_shared_bytes", k.dynamic_shared_bytes},
            {"bound_params", k.bound_params},
            {"tensor_maps", k.tensor_maps.size()},
            {"registers", attrs.registers},
            {"static_shared_bytes", attrs.static_smem},
            {"local_bytes", attrs.local_bytes},
            {"launches", launches_json(k)}};
}

PreparedArgs prepare_args(const KernelSession& s, uint64_t seed, const std::map<std::string, int64_t>& scalars,
                          const std::string& inputs_dir) {
    if (!s.compiled || !s.compiled->func) throw WorkerError("bad_request", "no kernel is loaded; send `load` first");
    PreparedArgs a;
    a.scalars = scalars;
    std::string why;
    if (!allocate_args(*s.compiled->func, seed, scalars, a.host, &why)) throw WorkerError("bad_request", why);
    const KernelInfo& k = s.info();
    // A scalar the request left out that the arguments' plan drew (a varlen kernel's max_seqlen:
    // the longest segment of its offsets tables) is launched with the value the CPU run uses.
    for (const auto& p : k.params)
        if (p.is_scalar && !a.scalars.count(p.name))
            if (auto t = a.host.find(p.name); t != a.host.end() && t->second.numel() == 1)
                a.scalars[p.name] = static_cast<int64_t>(t->second.get(0));
    for (const auto& p : k.params) {
        if (p.is_scalar || inputs_dir.empty()) continue;
        std::string path = inputs_dir + "/" + p.name + ".npy";
        if (!file_exists(path)) continue;
        HostTensor& t = a.host.at(p.name);
        HostTensor loaded;
        if (!load_npy_as(path, t.dtype, t.shape, loaded, &why)) throw WorkerError("io_error", path + ": " + why);
        t = std::move(loaded);
    }
    // Device copies of the tensors; the arguments and geometry come from the same helpers an
    // in-process launch uses (launch_args.h).
    std::map<std::string, DeviceArg> dev;
    for (const auto& p : k.params) {
        if (p.is_scalar) continue;
        auto [pos, _] = a.device.emplace(p.name, runtime::DeviceTensor::from_host(a.host.at(p.name)));
        dev[p.name] = DeviceArg{pos->second.dtype, pos->second.shape, pos->second.buffer.ptr()};
    }
    const std::map<std::string, double> values = as_doubles(a.scalars);
    a.args = build_kernel_args(k, dev, values);
    a.launch = build_launch_config(k, values, s.device_sm_count);
    for (size_t i = 1; i < k.launch_count(); ++i) {
        const KernelInfo l = k.launch(i);
        a.later.push_back({build_kernel_args(l, dev, values), build_launch_config(l, values, s.device_sm_count)});
    }
    return a;
}

void launch_all(runtime::LoadedKernel& k, PreparedArgs& a, runtime::CUstream stream) {
    k.launch(0, a.launch, a.args, stream);
    for (size_t i = 0; i < a.later.size(); ++i) k.launch(i + 1, a.later[i].launch, a.later[i].args, stream);
}

std::map<std::string, HostTensor> download_outputs(const KernelSession& s, const PreparedArgs& a) {
    std::map<std::string, HostTensor> out;
    for (const auto& p : s.info().params)
        if (p.is_output && !p.is_scalar) out.emplace(p.name, a.device.at(p.name).to_host());
    return out;
}

std::vector<int64_t> sample_block_indices(int64_t total, int want, uint64_t seed) {
    std::vector<int64_t> v;
    if (total <= 0) return v;
    if (want <= 0 || total <= want) {
        for (int64_t i = 0; i < total; ++i) v.push_back(i);
        return v;
    }
    // The first and last blocks hold the edges where bounds bugs show; the rest are random.
    std::set<int64_t> pick = {0, total - 1};
    std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
    std::uniform_int_distribution<int64_t> dist(0, total - 1);
    while (static_cast<int>(pick.size()) < want) pick.insert(dist(rng));
    return {pick.begin(), pick.end()};
}

// Whether the kernel adds atomically into a global tensor: blocks then share output elements
// (split-K, scatter), so a sampled block's elements hold the other blocks' adds too on the GPU.
bool adds_atomically_to_global(const ir::PrimFunc& f) {
    struct Find : ir::IRVisitor {
        bool found = false;
        void visit_AtomicAddOp(const ir::AtomicAddOpNode& n, const ir::Stmt& s) override {
            found |= n.dst.buffer->scope == ir::Scope::Global;
            ir::IRVisitor::visit_AtomicAddOp(n, s);
        }
        void visit_Call(const ir::CallNode& n, const ir::Expr& e) override {
            if ((n.op == "atomic_add" || n.op == "atomic_add_prev") && !n.args.empty())
                if (auto* l = n.args[0]->as<ir::BufferLoadNode>()) found |= l->buffer->scope == ir::Scope::Global;
            ir::IRVisitor::visit_Call(n, e);
        }
    } find;
    find.visit(f.body);
    return find.found;
}

Json check_against_interpreter(const KernelSession& s, const PreparedArgs& a,
                               const std::map<std::string, HostTensor>& gpu_out, int check_blocks, uint64_t seed) {
    const KernelInfo& k = s.info();
    std::map<std::string, HostTensor> ref = a.host;  // inputs as uploaded, outputs zeroed
    InterpOptions opts;
    // Within the client's progress limit, so a reference run that never ends is reported
    // as the interpreter's timeout at its loop rather than as a killed worker.
    opts.watchdog_s = 300;
    // Sample among the DSL's blocks (what the interpreter runs), not the launched ones.
    KernelInfo logical = k;
    if (!k.logical_grid.empty()) {
        logical.grid = k.logical_grid;
        logical.grid_text = k.logical_grid_text;
    }
    int64_t total = 1;
    // The DSL's grid may pass CUDA's y/z limits (it is launched as one x dimension then).
    for (int64_t g : resolve_grid(logical, as_doubles(a.scalars))) total *= std::max<int64_t>(g, 1);
    // Atomic adds into global tensors: the reference needs every block's adds (a sample of the
    // blocks would compare partial sums with the GPU's whole ones).
    const bool atomics = adds_atomically_to_global(*s.compiled->func);
    // Several launches: a later launch's block reads what any block of the earlier ones wrote,
    // and may overwrite it, so the whole output is checked, every block of every launch run.
    // (Running the earlier launches whole and sampling the last would leave elements the last
    // launch's unsampled blocks overwrote holding the earlier value in the reference, and would
    // save little: in split-then-combine kernels the earlier launches do most of the work.)
    const bool launches = k.launch_count() > 1;
    std::vector<int64_t> blocks = sample_block_indices(total, atomics || launches ? 0 : check_blocks, seed);
    bool sampled = static_cast<int64_t>(blocks.size()) < total;
    if (sampled) opts.sample_blocks = blocks;
    opts.track_written = sampled;
    std::string printed;
    opts.print_sink = [&](const std::string& line) {
        if (printed.size() < 4096) printed += line;
    };
    opts.engine = CpuEngine::Auto;  // the LLVM JIT where it is built: large checks take far less time
    InterpReport rep = run_on_cpu(*s.compiled->func, ref, opts);
    Json j = {{"blocks_checked", rep.blocks_run},
              {"total_blocks", rep.total_blocks},
              {"sampled", sampled},
              {"interp_ms", rep.ms},
              {"reference_engine", rep.engine}};
    if (!rep.jit_note.empty()) j["jit_note"] = rep.jit_note;
    if (atomics && check_blocks > 0) j["every_block_because"] = "the kernel adds atomically into global memory";
    if (launches && check_blocks > 0)
        j["every_block_because"] = "the kernel has " + std::to_string(k.launch_count()) + " launches, each reading what the ones before it wrote";
    // The reference is the interpreter's: where it runs thread-level code as thread 0 only, a
    // difference is the reference's, and the check says so next to its verdict.
    if (!rep.warnings.empty()) j["reference_warning"] = rep.warnings.front().message;
    if (!rep.ok) {
        std::string msg = rep.error;
        for (const auto& d : rep.diagnostics) {
            if (!msg.empty()) msg += "; ";
            msg += d.message;
        }
        j["ok"] = false;
        j["error"] = "the CPU interpreter could not run the reference: " + msg;
        return j;
    }
    bool all = true;
    Json outs = Json::array();
    for (const auto& [name, got] : gpu_out) {
        const std::vector<uint8_t>* mask = nullptr;
        auto w = rep.written.find(name);
        if (sampled && w != rep.written.end()) mask = &w->second;
        // The kernel may declare a looser floor for its arithmetic (fp8 wgmma accumulation).
        double tol = default_tolerance(got.dtype);
        tol = std::max(tol, s.compiled->kernel.check_tolerance);
        CompareResult c = compare_tensors(got, ref.at(name), tol, mask);
        all = all && c.pass;
        outs.push_back({{"name", name},       {"rel_fro", c.rel_fro},   {"max_abs", c.max_abs},
                        {"tol", c.tol},       {"compared", c.compared}, {"nonfinite", c.nonfinite}, {"both_nan", c.both_nan},
                        {"worst_index", c.worst_index}, {"pass", c.pass}});
    }
    j["ok"] = all;
    j["outputs"] = outs;
    return j;
}

}  // namespace tp::worker
