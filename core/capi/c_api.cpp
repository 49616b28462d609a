// libtileplay's compile and accessors (tileplay/c_api.h): one tp::compile() call per handle,
// whose result every accessor reads. Nothing here throws across the C boundary.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <new>

#include "capi/kernel_handle.h"
#include "inspect/tile_work.h"
#include "target.h"
#include "runtime/cuda_driver.h"

namespace {

std::vector<std::pair<std::string, std::string>> key_values(const char* const* items, size_t n, const char* what, std::string& error) {
    std::vector<std::pair<std::string, std::string>> out;
    for (size_t i = 0; i < n && error.empty(); ++i) {
        std::string item = items && items[i] ? items[i] : "";
        size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            error = std::string(what) + " `" + item + "` is not NAME=VALUE";
        else
            out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
    return out;
}

std::optional<tp::Stage> stage_of(const char* stage) {
    if (!stage || !*stage) return tp::Stage::Cubin;
    auto s = tp::parse_stage(stage);
    if (!s || *s == tp::Stage::Ast) return std::nullopt;  // an AST has no kernel to run or read
    return s;
}

// The first error as "file:line:col: message", the line the Python exception carries.
std::string first_error(const tp::CompileResult& r) {
    if (r.internal_error) return std::string("internal compiler error: ") + r.internal_error->what();
    for (const auto& d : r.diagnostics)
        if (d.severity == tp::Severity::Error) return tp::capi::one_line(d, r.file ? r.file->path() : std::string("<input>"));
    return r.ok ? std::string() : std::string("the compile produced no kernel");
}

void compile_into(tp_kernel& k, const char* path, const char* kernel, const char* const* defines, size_t n_defines, const char* target,
                  const char* const* pass_configs, size_t n_pass_configs, const char* stage) {
    static std::once_flag prepared;
    std::call_once(prepared, tp::prepare_process);
    tp::CompileRequest req;
    req.path = path ? path : "";
    req.kernel = kernel ? kernel : "";
    if (target && *target) req.target = target;
    req.defines = key_values(defines, n_defines, "define", k.error);
    req.pass_configs = key_values(pass_configs, n_pass_configs, "pass config", k.error);
    auto s = stage_of(stage);
    if (!s) k.error = std::string("unknown stage `") + stage + "`; expected ir, lowered, cuda, ptx or cubin";
    if (!k.error.empty()) return;
    req.stop_after = *s;
    // The compiler reads the file itself; a missing one is said here, with the OS's reason,
    // rather than as a file with no kernel in it.
    std::ifstream in(req.path, std::ios::binary);
    if (req.path.empty() || !in) {
        k.error = (req.path.empty() ? std::string("<no path>") : req.path) + ": cannot read the file (" +
                  (req.path.empty() ? "no path given" : std::strerror(errno)) + ")";
        return;
    }
    k.result = tp::compile(req);
    k.diagnostics = k.result.render_diagnostics();
    if (k.result.internal_error) k.diagnostics += first_error(k.result) + "\n";
    k.error = first_error(k.result);
    k.ok = k.result.ok && k.error.empty();
    for (const auto& [name, value] : k.result.kernel.bound_params) k.bound += name + "=" + value + "\n";
}

const tp::TensorParamInfo* param(const tp_kernel* k, int i) {
    if (!k || i < 0 || static_cast<size_t>(i) >= k->result.kernel.params.size()) return nullptr;
    return &k->result.kernel.params[static_cast<size_t>(i)];
}

}  // namespace

tp_kernel::~tp_kernel() {
    if (loaded.empty()) return;  // a CPU-only handle never touches the driver
    const tp::runtime::CudaDriver& d = tp::runtime::cuda_driver();
    for (auto& [dev, l] : loaded) {
        if (!d.loaded) continue;
        d.cuCtxSetCurrent(l.ctx);  // a module is unloaded from the context it was loaded in
        l.kernel.reset();
        d.cuDevicePrimaryCtxRelease(l.device);
    }
}

extern "C" {

int tp_api_version(void) { return TP_C_API_VERSION; }

tp_kernel* tp_compile(const char* path, const char* kernel, const char* const* defines, size_t n_defines, const char* target,
                      const char* const* pass_configs, size_t n_pass_configs, const char* stage) {
    tp_kernel* k = new (std::nothrow) tp_kernel;
    if (!k) return nullptr;
    try {
        compile_into(*k, path, kernel, defines, n_defines, target, pass_configs, n_pass_configs, stage);
    } catch (const std::exception& e) {  // tp::compile reports its own bugs; this is memory
        k->ok = false;
        k->error = std::string("compile failed: ") + e.what();
    }
    return k;
}

void tp_kernel_free(tp_kernel* k) { delete k; }

int tp_kernel_ok(const tp_kernel* k) { return k && k->ok ? 1 : 0; }
const char* tp_kernel_error(const tp_kernel* k) { return k ? k->error.c_str() : "no kernel handle"; }
const char* tp_kernel_diagnostics(const tp_kernel* k) { return k ? k->diagnostics.c_str() : ""; }
const char* tp_kernel_name(const tp_kernel* k) { return k ? k->result.kernel.name.c_str() : ""; }
const char* tp_kernel_factory(const tp_kernel* k) { return k ? k->result.kernel.factory.c_str() : ""; }
const char* tp_kernel_cuda(const tp_kernel* k) { return k ? k->result.cuda.c_str() : ""; }
const char* tp_kernel_ptx(const tp_kernel* k) { return k ? k->result.ptx.c_str() : ""; }
const char* tp_kernel_bound_params(const tp_kernel* k) { return k ? k->bound.c_str() : ""; }

int tp_kernel_work(tp_kernel* k, double* flops, double* global_bytes) {
    if (!k || !k->result.func) return -1;
    tp::TileWork w = tp::count_tile_work(*k->result.func);
    if (flops) *flops = w.flops;
    if (global_bytes) *global_bytes = w.global_bytes;
    k->work_assumptions.clear();
    for (const auto& a : w.assumptions) k->work_assumptions += a + "\n";
    return w.exact ? 1 : 0;
}
const char* tp_kernel_work_assumptions(const tp_kernel* k) { return k ? k->work_assumptions.c_str() : ""; }

int tp_kernel_num_launches(const tp_kernel* k) { return k ? static_cast<int>(k->result.kernel.launch_count()) : 0; }
const char* tp_kernel_launch_name(const tp_kernel* k, int i) {
    if (!k || i < 0 || static_cast<size_t>(i) >= k->result.kernel.launch_count()) return nullptr;
    return i == 0 ? k->result.kernel.name.c_str() : k->result.kernel.later_launches[static_cast<size_t>(i) - 1].name.c_str();
}

const uint8_t* tp_kernel_cubin(const tp_kernel* k, size_t* size) {
    bool any = k && !k->result.cubin.empty();
    if (size) *size = any ? k->result.cubin.size() : 0;
    return any ? k->result.cubin.data() : nullptr;
}

int tp_kernel_num_params(const tp_kernel* k) { return k ? static_cast<int>(k->result.kernel.params.size()) : 0; }
const char* tp_kernel_param_name(const tp_kernel* k, int i) { return param(k, i) ? param(k, i)->name.c_str() : nullptr; }
const char* tp_kernel_param_dtype(const tp_kernel* k, int i) { return param(k, i) ? param(k, i)->dtype.c_str() : nullptr; }
int tp_kernel_param_ndim(const tp_kernel* k, int i) { return param(k, i) ? static_cast<int>(param(k, i)->shape.size()) : -1; }
int tp_kernel_param_is_output(const tp_kernel* k, int i) { return param(k, i) && param(k, i)->is_output ? 1 : 0; }
int tp_kernel_param_is_workspace(const tp_kernel* k, int i) { return param(k, i) && param(k, i)->is_workspace ? 1 : 0; }
int tp_kernel_param_is_scalar(const tp_kernel* k, int i) { return param(k, i) && param(k, i)->is_scalar ? 1 : 0; }
int tp_kernel_param_is_dimension(const tp_kernel* k, int i) {
    const tp::TensorParamInfo* p = param(k, i);
    return p && p->is_scalar && tp::capi::is_dimension(k->result.kernel, *p) ? 1 : 0;
}

int64_t tp_kernel_param_dim(const tp_kernel* k, int i, int d) {
    const tp::TensorParamInfo* p = param(k, i);
    if (!p || d < 0 || static_cast<size_t>(d) >= p->shape.size()) return -1;
    return p->shape[static_cast<size_t>(d)];
}

const char* tp_kernel_param_dim_text(const tp_kernel* k, int i, int d) {
    const tp::TensorParamInfo* p = param(k, i);
    if (!p || d < 0 || static_cast<size_t>(d) >= p->shape_text.size()) return nullptr;
    return p->shape_text[static_cast<size_t>(d)].c_str();
}

int tp_cuda_device_count(void) {
    try {
        return tp::runtime::cuda_device_count();
    } catch (...) {
        return 0;
    }
}

int tp_cuda_device_target(int device, char* buf, size_t size) {
    try {
        auto info = tp::runtime::query_device(device);
        if (!info || !buf || size == 0) return 1;
        std::string t = info->best_target();
        if (t.size() + 1 > size) return 1;
        std::memcpy(buf, t.c_str(), t.size() + 1);
        return 0;
    } catch (...) {
        return 1;
    }
}

int tp_target_figures(const char* target, double* dram_gbps, double* fp16_tflops, int* sm_count) {
    auto t = target ? tp::parse_target(target) : std::nullopt;
    if (!t) return 1;
    if (dram_gbps) *dram_gbps = t->dram_gbps;
    if (fp16_tflops) *fp16_tflops = t->fp16_tflops;
    if (sm_count) *sm_count = t->sm_count;
    return 0;
}

}  // extern "C"
