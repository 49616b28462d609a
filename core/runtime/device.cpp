// Device properties, context, buffers, tensors and kernel launches; see device.h.
#include "runtime/device.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace tp::runtime {

namespace {

const CudaDriver& driver_or_throw() {
    const CudaDriver& d = cuda_driver();
    if (!d.loaded) throw CudaError(CUDA_ERROR_NO_DEVICE, d.why);
    return d;
}

}  // namespace

CudaError::CudaError(CUresult c, const std::string& what)
    : std::runtime_error(what), code(c), sticky(cu_error_is_sticky(c)) {}

void cu_check(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) throw CudaError(r, std::string(what) + ": " + cu_error_text(r));
}

std::string DeviceInfo::target() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }

std::string DeviceInfo::best_target() const { return cc_major == 9 && cc_minor == 0 ? "sm_90a" : target(); }

double DeviceInfo::peak_dram_gbps() const {
    if (mem_clock_khz <= 0 || bus_width_bits <= 0) return 0;
    return 2.0 * mem_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

std::optional<DeviceInfo> query_device(int ordinal, std::string* why) {
    int n = cuda_device_count(why);
    if (n == 0) return std::nullopt;
    if (ordinal < 0 || ordinal >= n) {
        if (why) *why = "device " + std::to_string(ordinal) + " does not exist (" + std::to_string(n) + " found)";
        return std::nullopt;
    }
    const CudaDriver& d = cuda_driver();
    CUdevice dev = 0;
    if (CUresult r = d.cuDeviceGet(&dev, ordinal); r != CUDA_SUCCESS) {
        if (why) *why = "cuDeviceGet failed: " + cu_error_text(r);
        return std::nullopt;
    }
    DeviceInfo info;
    info.ordinal = ordinal;
    char name[256] = {};
    d.cuDeviceGetName(name, sizeof(name) - 1, dev);
    info.name = name;
    auto attr = [&](int a) {
        int v = 0;
        return d.cuDeviceGetAttribute(&v, a, dev) == CUDA_SUCCESS ? v : 0;
    };
    info.cc_major = attr(kAttrCcMajor);
    info.cc_minor = attr(kAttrCcMinor);
    info.sm_count = attr(kAttrSmCount);
    info.l2_bytes = attr(kAttrL2CacheBytes);
    info.max_smem_optin = attr(kAttrMaxSharedPerBlockOptin);
    info.clock_khz = attr(kAttrClockRateKHz);
    info.mem_clock_khz = attr(kAttrMemoryClockKHz);
    info.bus_width_bits = attr(kAttrMemoryBusWidth);
    d.cuDeviceTotalMem(&info.total_bytes, dev);
    char bus[32] = {};
    if (d.cuDeviceGetPCIBusId && d.cuDeviceGetPCIBusId(bus, sizeof(bus) - 1, dev) == CUDA_SUCCESS) info.pci_bus_id = bus;
    // Free memory needs a context; the primary one is cheap to retain and shared.
    CUcontext ctx = nullptr;
    if (d.cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS) {
        d.cuCtxSetCurrent(ctx);
        size_t total = 0;
        d.cuMemGetInfo(&info.free_bytes, &total);
        d.cuDevicePrimaryCtxRelease(dev);
    }
    return info;
}

DeviceContext::DeviceContext(int ordinal) {
    const CudaDriver& d = driver_or_throw();
    std::string why;
    auto info = query_device(ordinal, &why);
    if (!info) throw CudaError(CUDA_ERROR_NO_DEVICE, why);
    info_ = *info;
    cu_check(d.cuDeviceGet(&dev_, ordinal), "cuDeviceGet");
    cu_check(d.cuDevicePrimaryCtxRetain(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
    cu_check(d.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
}

DeviceContext::~DeviceContext() {
    const CudaDriver& d = cuda_driver();
    if (ctx_ && d.loaded) d.cuDevicePrimaryCtxRelease(dev_);
}

void DeviceContext::synchronize() { cu_check(cuda_driver().cuCtxSynchronize(), "cuCtxSynchronize"); }

DeviceBuffer::DeviceBuffer(size_t bytes) : size_(bytes) {
    const CudaDriver& d = driver_or_throw();
    // A zero-byte tensor still gets a distinct, valid pointer.
    cu_check(d.cuMemAlloc(&ptr_, bytes ? bytes : 16), "cuMemAlloc");
}

DeviceBuffer::~DeviceBuffer() {
    if (ptr_) cuda_driver().cuMemFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), size_(o.size_) {
    o.ptr_ = 0;
    o.size_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
        if (ptr_) cuda_driver().cuMemFree(ptr_);
        ptr_ = o.ptr_;
        size_ = o.size_;
        o.ptr_ = 0;
        o.size_ = 0;
    }
    return *this;
}

void DeviceBuffer::upload(const void* src, size_t bytes) {
    if (bytes > size_) throw std::invalid_argument("upload of " + std::to_string(bytes) + " bytes into a buffer of " +
                                                   std::to_string(size_));
    if (bytes) cu_check(cuda_driver().cuMemcpyHtoD(ptr_, src, bytes), "cuMemcpyHtoD");
}

void DeviceBuffer::download(void* dst, size_t bytes) const {
    if (bytes > size_) throw std::invalid_argument("download of " + std::to_string(bytes) + " bytes from a buffer of " +
                                                   std::to_string(size_));
    if (bytes) cu_check(cuda_driver().cuMemcpyDtoH(dst, ptr_, bytes), "cuMemcpyDtoH");
}

void DeviceBuffer::fill_byte(unsigned char v) {
    if (size_) cu_check(cuda_driver().cuMemsetD8(ptr_, v, size_), "cuMemsetD8");
}

DeviceTensor DeviceTensor::from_host(const HostTensor& h) {
    DeviceTensor t{h.dtype, h.shape, DeviceBuffer(h.nbytes())};
    t.buffer.upload(h.data(), h.nbytes());
    return t;
}

HostTensor DeviceTensor::to_host() const {
    HostTensor h(dtype, shape);
    buffer.download(h.data(), h.nbytes());
    return h;
}

std::string LaunchConfig::describe() const {
    std::ostringstream s;
    s << "grid (" << grid[0] << ", " << grid[1] << ", " << grid[2] << ") block (" << block[0] << ", " << block[1]
      << ", " << block[2] << ") smem " << dynamic_smem;
    return s.str();
}

LaunchConfig make_launch_config(const std::vector<int64_t>& grid, const std::vector<int64_t>& threads,
                                int64_t dynamic_smem) {
    LaunchConfig c;
    if (grid.size() > 3 || threads.size() > 3) throw std::invalid_argument("more than 3 launch dimensions");
    static const int64_t kGridMax[3] = {2147483647LL, 65535, 65535};
    for (size_t i = 0; i < grid.size(); ++i) {
        if (grid[i] <= 0) throw std::invalid_argument("grid extent " + std::to_string(i) + " is not a known positive constant");
        if (grid[i] > kGridMax[i])
            throw std::invalid_argument("grid extent " + std::to_string(i) + " = " + std::to_string(grid[i]) +
                                        " exceeds the CUDA limit of " + std::to_string(kGridMax[i]));
        c.grid[i] = static_cast<unsigned>(grid[i]);
    }
    int64_t total = 1;
    for (size_t i = 0; i < threads.size(); ++i) {
        if (threads[i] <= 0) throw std::invalid_argument("thread extent " + std::to_string(i) + " is not positive");
        c.block[i] = static_cast<unsigned>(threads[i]);
        total *= threads[i];
    }
    if (total > 1024) throw std::invalid_argument(std::to_string(total) + " threads per block exceeds 1024");
    if (dynamic_smem < 0) throw std::invalid_argument("negative dynamic shared memory");
    c.dynamic_smem = static_cast<unsigned>(dynamic_smem);
    return c;
}

void KernelArgs::add_pointer(CUdeviceptr p) { add_bytes(&p, sizeof(p)); }
void KernelArgs::add_i32(int32_t v) { add_bytes(&v, sizeof(v)); }
void KernelArgs::add_i64(int64_t v) { add_bytes(&v, sizeof(v)); }
void KernelArgs::add_f32(float v) { add_bytes(&v, sizeof(v)); }
void KernelArgs::add_f64(double v) { add_bytes(&v, sizeof(v)); }
void KernelArgs::add_bytes(const void* data, size_t bytes) {
    starts_.push_back(slots_.size());
    size_t n = std::max<size_t>(1, (bytes + 7) / 8);
    slots_.resize(slots_.size() + n, 0);
    std::memcpy(&slots_[starts_.back()], data, bytes);
}

void** KernelArgs::pointers() {
    // cuLaunchKernel reads each argument through its pointer, sized by the kernel's
    // signature; little-endian slots make a 4-byte read of an 8-byte slot correct.
    ptrs_.clear();
    for (size_t s : starts_) ptrs_.push_back(&slots_[s]);
    return ptrs_.data();
}

LoadedKernel::LoadedKernel(const std::vector<uint8_t>& image, const std::string& kernel_name)
    : LoadedKernel(image, std::vector<std::string>{kernel_name}) {}

LoadedKernel::LoadedKernel(const std::vector<uint8_t>& image, const std::vector<std::string>& kernel_names) : names_(kernel_names) {
    const CudaDriver& d = driver_or_throw();
    if (image.empty()) throw std::invalid_argument("no cubin to load (the compile stopped before the cubin stage)");
    if (kernel_names.empty()) throw std::invalid_argument("no kernel to look up in the cubin");
    std::vector<uint8_t> buf = image;
    buf.push_back(0);  // PTX images must be NUL-terminated; harmless for cubin
    cu_check(d.cuModuleLoadData(&module_, buf.data()), "cuModuleLoadData");
    for (const auto& name : kernel_names) {
        CUfunction f = nullptr;
        CUresult r = d.cuModuleGetFunction(&f, module_, name.c_str());
        if (r != CUDA_SUCCESS) {
            d.cuModuleUnload(module_);
            module_ = nullptr;
            cu_check(r, ("cuModuleGetFunction(`" + name + "`)").c_str());
        }
        funcs_.push_back(f);
    }
    smem_optin_.assign(funcs_.size(), 0);
}

bool LoadedKernel::global(const char* name, CUdeviceptr& ptr, size_t& bytes) const {
    const CudaDriver& d = cuda_driver();
    return module_ && d.cuModuleGetGlobal && d.cuModuleGetGlobal(&ptr, &bytes, module_, name) == CUDA_SUCCESS;
}

LoadedKernel::~LoadedKernel() {
    if (module_) cuda_driver().cuModuleUnload(module_);
}

void LoadedKernel::launch(size_t kernel, const LaunchConfig& cfg, KernelArgs& args, CUstream stream) {
    const CudaDriver& d = cuda_driver();
    CUfunction func = funcs_.at(kernel);
    // Above 48 KB of dynamic shared memory the kernel must opt in explicitly.
    if (cfg.dynamic_smem > 48 * 1024 && cfg.dynamic_smem > smem_optin_[kernel]) {
        cu_check(d.cuFuncSetAttribute(func, kFuncMaxDynamicSharedBytes, static_cast<int>(cfg.dynamic_smem)),
                 "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
        smem_optin_[kernel] = cfg.dynamic_smem;
    }
    cu_check(d.cuLaunchKernel(func, cfg.grid[0], cfg.grid[1], cfg.grid[2], cfg.block[0], cfg.block[1], cfg.block[2], cfg.dynamic_smem, stream,
                              args.pointers(), nullptr),
             "cuLaunchKernel");
}

KernelAttributes LoadedKernel::attributes(size_t kernel) const {
    const CudaDriver& d = cuda_driver();
    CUfunction func = funcs_.at(kernel);
    KernelAttributes a;
    d.cuFuncGetAttribute(&a.registers, kFuncNumRegs, func);
    d.cuFuncGetAttribute(&a.static_smem, kFuncSharedSizeBytes, func);
    d.cuFuncGetAttribute(&a.local_bytes, kFuncLocalSizeBytes, func);
    d.cuFuncGetAttribute(&a.max_threads, kFuncMaxThreadsPerBlock, func);
    return a;
}

}  // namespace tp::runtime
