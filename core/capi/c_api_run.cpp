// libtileplay's runs (tileplay/c_api.h): the caller's buffers checked against the signature,
// then the CPU interpreter on host copies of them, or an in-process launch of the cubin on the
// caller's stream through the same argument builder the worker uses (worker/launch_args.h).
#include <cstring>

#include "capi/kernel_handle.h"
#include "ir/dtype.h"
#include "tileplay/interp.h"
#include "worker/launch_args.h"

namespace tp::capi {

namespace {

std::string shape_text(const std::vector<int64_t>& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

// Symbols bound from the buffers' shapes (dims the signature leaves symbolic, by their text)
// plus the scalar parameters by name: what the grid and the kernel's scalars are evaluated with.
struct BoundArgs {
    std::vector<TensorView> views;  // one per tensor parameter, in order
    std::map<std::string, double> values;
};

bool bind_tensor(const TensorParamInfo& p, const tp_tensor& t, BoundArgs& b, std::string& error) {
    TensorView v;
    if (!view_tensor(t, p.name, v, error)) return false;
    if (ir::DataType::parse(p.dtype) != std::optional(v.dtype) || v.shape.size() != p.shape.size()) {
        error = "argument `" + p.name + "` is " + v.dtype.name() + shape_text(v.shape) + " but the kernel expects " + p.dtype + " with " +
                std::to_string(p.shape.size()) + " dimension(s)";
        return false;
    }
    for (size_t d = 0; d < p.shape.size(); ++d) {
        const std::string& sym = p.shape_text[d];
        if (p.shape[d] >= 0 && p.shape[d] != v.shape[d]) {
            error = "argument `" + p.name + "` has shape " + shape_text(v.shape) + " but dimension " + std::to_string(d) + " must be " +
                    std::to_string(p.shape[d]);
            return false;
        }
        if (p.shape[d] >= 0) continue;
        auto [it, fresh] = b.values.emplace(sym, static_cast<double>(v.shape[d]));
        if (!fresh && it->second != static_cast<double>(v.shape[d])) {
            error = "argument `" + p.name + "` gives `" + sym + "` = " + std::to_string(v.shape[d]) + " but an earlier argument gave " +
                    std::to_string(static_cast<int64_t>(it->second));
            return false;
        }
    }
    b.views.push_back(std::move(v));
    return true;
}

bool bind_args(const KernelInfo& k, const tp_tensor* tensors, size_t n_tensors, const double* scalars, size_t n_scalars, BoundArgs& b,
               std::string& error) {
    if (!check_arg_counts(k, n_tensors, n_scalars, error)) return false;
    if ((n_tensors && !tensors) || (n_scalars && !scalars)) {
        error = "null tensor or scalar array";
        return false;
    }
    size_t ti = 0, si = 0;
    for (const auto& p : k.params)
        if (!p.is_scalar && !bind_tensor(p, tensors[ti++], b, error)) return false;
    // Tensors first: a scalar parameter that is a tensor's dimension takes the value the
    // buffers' shapes gave it; the caller's scalars fill the others in order.
    for (const auto& p : k.params)
        if (p.is_scalar && !is_dimension(k, p)) b.values[p.name] = scalars[si++];
    return true;
}

std::string interp_failure(const InterpReport& rep) {
    std::string msg;
    for (const auto& d : rep.diagnostics) msg += (msg.empty() ? "" : "\n") + one_line(d, "");
    if (msg.empty()) msg = rep.error.empty() ? std::string("the interpreter stopped") : rep.error;
    return msg;
}

}  // namespace

bool view_tensor(const tp_tensor& t, const std::string& param, TensorView& out, std::string& error) {
    auto dt = t.dtype ? ir::DataType::parse(t.dtype) : std::nullopt;
    if (!dt) {
        error = "argument `" + param + "` has unknown dtype `" + (t.dtype ? t.dtype : "(null)") + "`";
        return false;
    }
    if (t.ndim < 0 || t.ndim > 8 || (t.ndim > 0 && !t.shape)) {
        error = "argument `" + param + "` has an invalid rank " + std::to_string(t.ndim);
        return false;
    }
    out.dtype = *dt;
    out.shape.assign(t.shape, t.shape + t.ndim);
    auto bytes = checked_nbytes(out.dtype, out.shape);
    if (!bytes) {
        error = "argument `" + param + "` has an invalid shape " + shape_text(out.shape);
        return false;
    }
    out.nbytes = *bytes;
    if (!t.data && out.nbytes > 0) {
        error = "argument `" + param + "` has no data pointer";
        return false;
    }
    return true;
}

std::string one_line(const Diagnostic& d, const std::string& fallback_file) {
    std::string where = d.file.empty() ? fallback_file : d.file;
    if (d.span.valid()) where += ":" + std::to_string(d.span.begin.line) + ":" + std::to_string(d.span.begin.col);
    return where.empty() ? d.message : where + ": " + d.message;
}

bool is_dimension(const KernelInfo& k, const TensorParamInfo& scalar) {
    for (const auto& p : k.params)
        if (!p.is_scalar)
            for (size_t d = 0; d < p.shape.size(); ++d)
                if (p.shape[d] < 0 && p.shape_text[d] == scalar.name) return true;
    return false;
}

bool check_arg_counts(const KernelInfo& k, size_t n_tensors, size_t n_scalars, std::string& error) {
    size_t want_t = 0, want_s = 0;
    for (const auto& p : k.params) {
        if (!p.is_scalar)
            ++want_t;
        else if (!is_dimension(k, p))
            ++want_s;
    }
    if (n_tensors == want_t && n_scalars == want_s) return true;
    error = "`" + k.name + "` takes " + std::to_string(want_t) + " tensor(s) and " + std::to_string(want_s) + " scalar(s), got " +
            std::to_string(n_tensors) + " and " + std::to_string(n_scalars);
    return false;
}

// The CPU run: host copies in, the interpreter, changed tensors copied back.
int run_cpu(tp_kernel& k, const tp_tensor* tensors, size_t n_tensors, const double* scalars, size_t n_scalars, int threads) {
    const KernelInfo& info = k.result.kernel;
    BoundArgs b;
    if (!bind_args(info, tensors, n_tensors, scalars, n_scalars, b, k.error)) return 1;
    // The interpreter works on copies (and a double-precision copy of each): a run this
    // machine cannot hold is refused with its sizes, like `tilec run`'s, before any allocation.
    std::vector<std::vector<int64_t>> shapes;
    size_t vi = 0;
    for (const auto& p : info.params) shapes.push_back(p.is_scalar ? std::vector<int64_t>{} : b.views[vi++].shape);
    if (!check_run_memory(*k.result.func, shapes, &k.error)) return 1;
    std::map<std::string, HostTensor> args;
    size_t ti = 0;
    for (const auto& p : info.params) {
        auto dt = ir::DataType::parse(p.dtype).value_or(ir::DataType::float64());
        if (p.is_scalar) {
            HostTensor s(dt, {});
            s.set(0, b.values.at(p.name));
            args.emplace(p.name, std::move(s));
            continue;
        }
        const TensorView& v = b.views[ti];
        HostTensor h(v.dtype, v.shape);
        if (v.nbytes) std::memcpy(h.data(), tensors[ti].data, static_cast<size_t>(v.nbytes));
        args.emplace(p.name, std::move(h));
        ++ti;
    }
    InterpOptions opts;
    opts.threads = threads;
    opts.engine = CpuEngine::Auto;  // the LLVM JIT where it is built, else the interpreter
    opts.source_path = k.result.file ? k.result.file->path() : std::string();
    InterpReport rep = run_on_cpu(*k.result.func, args, opts);
    if (!rep.ok) {
        k.error = interp_failure(rep);
        return 1;
    }
    // Only what the kernel changed goes back: an input may live in read-only memory.
    ti = 0;
    for (const auto& p : info.params) {
        if (p.is_scalar) continue;
        const HostTensor& h = args.at(p.name);
        void* dst = tensors[ti++].data;
        if (h.nbytes() && std::memcmp(dst, h.data(), h.nbytes()) != 0) std::memcpy(dst, h.data(), h.nbytes());
    }
    return 0;
}

// Loads the cubin into `device`'s primary context once; makes that context current.
tp_kernel::Loaded& loaded_for(tp_kernel& k, int device) {
    const runtime::CudaDriver& d = runtime::cuda_driver();
    auto it = k.loaded.find(device);
    if (it != k.loaded.end()) {
        runtime::cu_check(d.cuCtxSetCurrent(it->second.ctx), "cuCtxSetCurrent");
        return it->second;
    }
    tp_kernel::Loaded l;
    runtime::CUdevice dev = 0;
    runtime::cu_check(d.cuDeviceGet(&dev, device), "cuDeviceGet");
    runtime::cu_check(d.cuDevicePrimaryCtxRetain(&l.ctx, dev), "cuDevicePrimaryCtxRetain");
    l.device = dev;
    try {
        runtime::cu_check(d.cuCtxSetCurrent(l.ctx), "cuCtxSetCurrent");
        runtime::cu_check(d.cuDeviceGetAttribute(&l.sm_count, runtime::kAttrSmCount, dev), "cuDeviceGetAttribute");
        l.kernel = std::make_unique<runtime::LoadedKernel>(k.result.cubin, worker::kernel_names(k.result.kernel));
    } catch (...) {
        d.cuDevicePrimaryCtxRelease(dev);
        throw;
    }
    return k.loaded.emplace(device, std::move(l)).first->second;
}

int launch(tp_kernel& k, int device, void* stream, const tp_tensor* tensors, size_t n_tensors, const double* scalars, size_t n_scalars) {
    const KernelInfo& info = k.result.kernel;
    BoundArgs b;
    if (!bind_args(info, tensors, n_tensors, scalars, n_scalars, b, k.error)) return 1;
    if (k.result.cubin.empty()) {
        k.error = "no cubin to launch: compile with stage \"cubin\" (NVRTC must be present)";
        return 1;
    }
    const runtime::CudaDriver& d = runtime::cuda_driver();
    if (!d.loaded) {
        k.error = "cannot launch on a GPU: " + d.why;
        return 1;
    }
    std::string why;
    int count = runtime::cuda_device_count(&why);
    if (device < 0 || device >= count) {
        k.error = "no CUDA device " + std::to_string(device) + (count ? " (" + std::to_string(count) + " present)" : ": " + why);
        return 1;
    }
    tp_kernel::Loaded& l = loaded_for(k, device);
    std::map<std::string, worker::DeviceArg> dev;
    size_t ti = 0;
    for (const auto& p : info.params) {
        if (p.is_scalar) continue;
        const TensorView& v = b.views[ti];
        dev[p.name] = {v.dtype, v.shape, reinterpret_cast<runtime::CUdeviceptr>(tensors[ti].data)};
        ++ti;
    }
    // Every `T.Kernel` launch in program order on the caller's stream, each seeing what the ones
    // before it wrote; all arguments are built first, so a launch that cannot be described
    // leaves none of them run.
    std::vector<runtime::KernelArgs> args;
    std::vector<runtime::LaunchConfig> cfgs;
    for (size_t i = 0; i < info.launch_count(); ++i) {
        const KernelInfo li = info.launch(i);
        args.push_back(worker::build_kernel_args(li, dev, b.values));
        cfgs.push_back(worker::build_launch_config(li, b.values, l.sm_count));
    }
    for (size_t i = 0; i < args.size(); ++i) l.kernel->launch(i, cfgs[i], args[i], static_cast<runtime::CUstream>(stream));
    return 0;
}

}  // namespace tp::capi

extern "C" {

int tp_kernel_run_cpu(tp_kernel* k, const tp_tensor* tensors, size_t n_tensors, const double* scalars, size_t n_scalars, int threads) {
    if (!k) return 1;
    k->error.clear();
    if (!k->ok || !k->result.func) {
        k->error = "the kernel did not compile; see its diagnostics";
        return 1;
    }
    try {
        return tp::capi::run_cpu(*k, tensors, n_tensors, scalars, n_scalars, threads);
    } catch (const std::exception& e) {
        k->error = std::string("CPU run failed: ") + e.what();
        return 1;
    }
}

int tp_kernel_launch(tp_kernel* k, int device, void* stream, const tp_tensor* tensors, size_t n_tensors, const double* scalars, size_t n_scalars) {
    if (!k) return 1;
    k->error.clear();
    if (!k->ok) {
        k->error = "the kernel did not compile; see its diagnostics";
        return 1;
    }
    try {
        return tp::capi::launch(*k, device, stream, tensors, n_tensors, scalars, n_scalars);
    } catch (const std::exception& e) {
        k->error = std::string("launch failed: ") + e.what();
        return 1;
    }
}

}  // extern "C"
