// Kernel arguments and launch geometry from device pointers and scalars; see launch_args.h.
#include "worker/launch_args.h"

#include <algorithm>
#include <stdexcept>

#include "runtime/tensor_map.h"
#include "tileplay/sample_header.h"
#include "worker/kernel_session.h"

namespace tp::worker {

std::vector<std::string> kernel_names(const KernelInfo& k) {
    std::vector<std::string> names;
    for (size_t i = 0; i < k.launch_count(); ++i) names.push_back(k.launch(i).name);
    return names;
}

std::vector<int64_t> resolve_grid(const KernelInfo& k, const std::map<std::string, double>& scalars) {
    std::vector<int64_t> g = k.grid;
    for (size_t i = 0; i < g.size(); ++i) {
        if (g[i] >= 0) continue;
        std::string text = i < k.grid_text.size() ? k.grid_text[i] : "?";
        auto v = eval_formula(text, scalars);
        if (!v) throw WorkerError("launch_failed", "grid extent `" + text + "` cannot be evaluated; pass its symbols in `scalars`");
        g[i] = static_cast<int64_t>(*v);
    }
    return g;
}

runtime::LaunchConfig build_launch_config(const KernelInfo& k, const std::map<std::string, double>& scalars, int sm_count) {
    try {
        std::vector<int64_t> grid = resolve_grid(k, scalars);
        if (k.persistent && sm_count > 0 && !grid.empty()) grid[0] = std::min<int64_t>(grid[0], int64_t{sm_count} * k.blocks_per_sm);
        return runtime::make_launch_config(grid, k.threads, k.dynamic_shared_bytes);
    } catch (const std::invalid_argument& e) {
        throw WorkerError("launch_failed", std::string("cannot launch `") + k.name + "`: " + e.what());
    }
}

namespace {

void add_scalar(runtime::KernelArgs& args, const TensorParamInfo& p, double v) {
    auto dt = ir::DataType::parse(p.dtype).value_or(ir::DataType::int32());
    if (dt.is_float()) {
        if (dt.bits == 64)
            args.add_f64(v);
        else
            args.add_f32(static_cast<float>(v));
    } else if (dt.bits == 64) {
        args.add_i64(static_cast<int64_t>(v));
    } else {
        args.add_i32(static_cast<int32_t>(v));
    }
}

// sm_90a warp-specialized kernels take TMA tensor maps of their tensors after the ordinary
// parameters, encoded over the tensor's own device pointer.
void add_tensor_map(runtime::KernelArgs& args, const TensorMapInfo& m, const DeviceArg& t) {
    try {
        std::vector<int64_t> shape = t.shape;
        if (!m.view.empty()) {  // a reshaped view of the same row-major elements
            int64_t have = 1, want = 1;
            for (int64_t d : shape) have *= d;
            for (int64_t d : m.view) want *= d;
            if (have != want) throw std::invalid_argument("its view does not hold the tensor's elements");
            shape = m.view;
        }
        auto req = runtime::tensor_map_request(t.dtype, shape, m.box, m.swizzle_bytes);
        runtime::TensorMapBytes bytes = runtime::encode_tensor_map(req, t.ptr);
        args.add_bytes(bytes.words.data(), sizeof(bytes.words));
    } catch (const std::exception& e) {
        throw WorkerError("launch_failed", "cannot describe `" + m.param + "` for TMA: " + e.what());
    }
}

}  // namespace

runtime::KernelArgs build_kernel_args(const KernelInfo& k, const std::map<std::string, DeviceArg>& tensors,
                                      const std::map<std::string, double>& scalars) {
    runtime::KernelArgs args;
    for (const auto& p : k.params) {
        if (p.is_scalar) {
            auto it = scalars.find(p.name);
            if (it == scalars.end()) throw WorkerError("bad_request", "kernel parameter `" + p.name + "` is a scalar; give its value in `scalars`");
            add_scalar(args, p, it->second);
            continue;
        }
        auto it = tensors.find(p.name);
        if (it == tensors.end()) throw WorkerError("bad_request", "no device buffer for tensor parameter `" + p.name + "`");
        args.add_pointer(it->second.ptr);
    }
    for (const auto& m : k.tensor_maps) {
        auto it = tensors.find(m.param);
        if (it == tensors.end()) throw WorkerError("launch_failed", "tensor map of unknown parameter `" + m.param + "`");
        add_tensor_map(args, m, it->second);
    }
    return args;
}

}  // namespace tp::worker
