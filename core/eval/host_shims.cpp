// Host helpers TileLang examples call while building a kernel, answered at trace time: the
// `tilelang.math` helpers, `tvm.DataType` / `tvm.tir.const` (and TileLang's `tvm.tirx`), and
// device queries, which a compiler answers from the target it compiles for rather than from
// a GPU that may not be there. Everything else from torch/tvm stays opaque (eval_call.cpp).
#include "eval/interp.h"
#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

// `tilelang.math.next_power_of_2(x)`: `1 << (x - 1).bit_length()`, as TileLang defines it
// (so 0 gives 2 and 1 gives 1).
Value next_power_of_2(Evaluator& ev, CallArgs& a, const std::string& name) {
    ArgReader r(ev, a, name, {"x"});
    int64_t x = ev.as_int(r.require(0), r.span(0), "x");
    int64_t m = x - 1;
    uint64_t mag = m < 0 ? static_cast<uint64_t>(-(m + 1)) : static_cast<uint64_t>(m);  // Python's bit_length of m
    int bits = 0;
    while (mag >> bits) ++bits;
    if (m < 0 && bits == 0) bits = 1;
    if (bits >= 62) ev.fail(DiagKind::IntegerOverflow, a.span, {name});
    return Value::integer(int64_t{1} << bits);
}

Value cdiv(Evaluator& ev, CallArgs& a, const std::string& name) {
    ArgReader r(ev, a, name, {"a", "b"});
    const Value& x = r.require(0);
    const Value& y = r.require(1);
    if (ev.is_ir(x) || ev.is_ir(y)) {
        CallArgs fwd = a;
        return ev.call(*tile_attr(ev, "ceildiv", a.span), fwd);
    }
    int64_t n = ev.as_int(x, r.span(0), "a"), d = ev.as_int(y, r.span(1), "b");
    if (d == 0) ev.fail(DiagKind::PythonException, a.span, {"ZeroDivisionError: integer division or modulo by zero"});
    int64_t p = n + d - 1, q = p / d;  // TileLang's `(a + b - 1) // b`, with Python's floor division
    return Value::integer(p % d != 0 && ((p < 0) != (d < 0)) ? q - 1 : q);
}

// `tvm.DataType("float16")` / `DataType(T.float16)`: the dtype itself (its `.bits` etc.).
Value data_type(Evaluator& ev, CallArgs& a, const std::string& name) {
    ArgReader r(ev, a, name, {"dtype"});
    return Value::dtype(ev.as_dtype(r.require(0), r.span(0)));
}

// `tvm.tir.const(value, dtype)`: a typed constant, as `T.uint32(value)` makes one.
Value tir_const(Evaluator& ev, CallArgs& a, const std::string& name) {
    ArgReader r(ev, a, name, {"value", "dtype"});
    Value dt = r.get(1) ? Value::dtype(ev.as_dtype(*r.get(1), r.span(1)))
                        : Value::dtype(r.require(0).kind == VK::Float ? ir::DataType::float32() : ir::DataType::int32());
    CallArgs c;
    c.span = a.span;
    c.func_span = a.func_span;
    c.pos = {r.require(0)};
    c.pos_spans = {r.span(0)};
    return ev.call(dt, c);
}

// `tvm.tir.reinterpret(dtype, value)`: T.reinterpret in TVM's argument order.
Value tir_reinterpret(Evaluator& ev, CallArgs& a, const std::string& name) {
    ArgReader r(ev, a, name, {"dtype", "value"});
    return reinterpret_value(ev, r.require(1), r.span(1), ev.as_dtype(r.require(0), r.span(0)), a.span);
}

// `torch.cuda.get_device_capability()`: the compute capability of the target, e.g. (9, 0)
// for sm_90a, so examples that pick their configs by architecture pick the target's.
Value device_capability(Evaluator& ev, CallArgs& a, const std::string&) {
    int cc = 0;
    for (char c : ev.target)
        if (c >= '0' && c <= '9') cc = cc * 10 + (c - '0');
    return Value::tuple({Value::integer(cc / 10), Value::integer(cc % 10)});
}

// `torch.cuda.is_available()`: a kernel compiled for a CUDA target runs on a CUDA device, so
// host code that branches on it takes the CUDA path (TileLang's examples exit otherwise).
Value cuda_available(Evaluator&, CallArgs&, const std::string&) { return Value::boolean(true); }

// `torch.cuda.current_device()`: the one device a kernel is compiled for.
Value current_device(Evaluator&, CallArgs&, const std::string&) { return Value::integer(0); }

// The reference GPU of the target's generation: device queries answer as if the kernel ran on
// it, never with the machine that compiles.
struct TargetGpu {
    const char* name;
    int sms;
};

TargetGpu target_gpu(const std::string& target) {
    int cc = 0;
    for (char c : target)
        if (c >= '0' && c <= '9') cc = cc * 10 + (c - '0');
    if (cc >= 90) return {"NVIDIA H100", 132};
    if (cc >= 89) return {"NVIDIA L40S", 142};
    if (cc >= 86) return {"NVIDIA RTX A6000", 84};
    if (cc >= 80) return {"NVIDIA A100", 108};
    return {"NVIDIA T4", 40};
}

// `torch.cuda.get_device_name()`: examples test it for "Radeon" or "H100" to pick configs.
Value device_name(Evaluator& ev, CallArgs&, const std::string&) { return Value::str(target_gpu(ev.target).name); }

// `tilelang.carver.arch.driver.get_num_sms()`: persistent kernels size their grid by it.
Value num_sms(Evaluator& ev, CallArgs&, const std::string&) { return Value::integer(target_gpu(ev.target).sms); }

// `torch.cuda.get_device_properties(device)`: a host object whose attributes (host_attr_shim)
// describe the target's reference GPU; examples read `.major`, `.minor` to pick configs and
// `.multi_processor_count` to size persistent grids.
constexpr const char* kDeviceProperties = "torch.cuda.get_device_properties()";

Value device_properties(Evaluator&, CallArgs&, const std::string&) {
    auto o = std::make_shared<OpaqueObj>();
    o->what = kDeviceProperties;
    return Value::make(VK::Opaque, o);
}

// `tilelang.layout.make_swizzled_layout(buf)` and the MMA swizzle helpers: TileLang's names for
// T.make_swizzled_layout, a layout annotation of a shared buffer that only avoids bank conflicts.
Value swizzled_layout(Evaluator& ev, CallArgs& a, const std::string&) {
    CallArgs fwd = a;
    return ev.call(*tile_attr(ev, "make_swizzled_layout", a.span), fwd);
}

using ShimFn = Value (*)(Evaluator&, CallArgs&, const std::string&);

ShimFn find_shim(const std::string& what) {
    static const std::pair<const char*, ShimFn> shims[] = {
        {"tilelang.math.next_power_of_2", next_power_of_2},
        {"tilelang.next_power_of_2", next_power_of_2},  // `tilelang/__init__.py` re-exports tilelang.math
        {"tilelang.math.cdiv", cdiv},
        {"tvm.DataType", data_type},
        {"tilelang.DataType", data_type},
        {"tvm.tir.const", tir_const},
        {"tvm.tirx.const", tir_const},
        {"tvm.tir.reinterpret", tir_reinterpret},
        {"tvm.tirx.reinterpret", tir_reinterpret},
        {"torch.cuda.get_device_capability", device_capability},
        {"torch.cuda.is_available", cuda_available},
        {"torch.cuda.current_device", current_device},
        {"torch.cuda.get_device_name", device_name},
        {"torch.cuda.get_device_properties", device_properties},
        {"tilelang.carver.arch.driver.get_num_sms", num_sms},
        {"tilelang.carver.arch.get_num_sms", num_sms},
        {"tilelang.layout.make_swizzled_layout", swizzled_layout},
        {"tilelang.cuda.intrinsics.make_mma_swizzle_layout", swizzled_layout},
        {"tilelang.cuda.intrinsics.layout.make_mma_swizzle_layout", swizzled_layout},
        {"tilelang.cuda.intrinsics.layout.mma_layout.make_mma_swizzle_layout", swizzled_layout},
    };
    for (const auto& [name, fn] : shims)
        if (what == name) return fn;
    return nullptr;
}

}  // namespace

std::optional<Value> call_host_shim(Evaluator& ev, const std::string& what, CallArgs& args) {
    if (auto t = make_host_tensor(ev, what, args)) return t;
    if (auto v = call_iket(ev, what, args)) return v;
    ShimFn fn = find_shim(what);
    if (!fn) return std::nullopt;
    return fn(ev, args, what);
}

std::optional<Value> host_attr_shim(Evaluator& ev, const std::string& what, const std::string& name) {
    if (what != kDeviceProperties) return std::nullopt;
    int cc = 0;
    for (char c : ev.target)
        if (c >= '0' && c <= '9') cc = cc * 10 + (c - '0');
    if (name == "major") return Value::integer(cc / 10);
    if (name == "minor") return Value::integer(cc % 10);
    if (name == "multi_processor_count") return Value::integer(target_gpu(ev.target).sms);
    if (name == "name") return Value::str(target_gpu(ev.target).name);
    return std::nullopt;
}

}  // namespace tp::eval
