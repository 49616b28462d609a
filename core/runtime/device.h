// The GPU side of a run: the device's properties, its primary context, device buffers and
// tensors, and a module loaded from a cubin with a launch that uses the kernel's declared grid,
// block and dynamic shared memory (opting in above 48 KB). Every driver error becomes a
// CudaError that says which call failed and whether the context is lost.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/cuda_driver.h"
#include "tensor/tensor.h"

namespace tp::runtime {

struct CudaError : std::runtime_error {
    CUresult code;
    bool sticky;  // the context is lost: the process must exit after reporting it
    CudaError(CUresult c, const std::string& what);
};

// Throws CudaError("<what>: <CUDA error>") unless r is CUDA_SUCCESS.
void cu_check(CUresult r, const char* what);

struct DeviceInfo {
    int ordinal = 0;
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    size_t total_bytes = 0, free_bytes = 0;
    int l2_bytes = 0;
    int max_smem_optin = 0;
    int clock_khz = 0, mem_clock_khz = 0, bus_width_bits = 0;
    std::string pci_bus_id;  // "0000:19:00.0", empty when the driver does not say

    std::string target() const;  // "sm_90": the architecture, as the doctor names it
    // The target `--arch auto` compiles for: the architecture-specific variant where it adds
    // instructions (sm_90a on Hopper: wgmma, setmaxnreg), else target().
    std::string best_target() const;
    // Peak DRAM bandwidth from the memory clock and bus width (DDR: x2), GB/s; 0 if unknown.
    double peak_dram_gbps() const;
};

// Queries device `ordinal` (creates no context except for the free-memory figure).
std::optional<DeviceInfo> query_device(int ordinal, std::string* why = nullptr);

// The device's primary context, made current on this thread for the object's lifetime.
class DeviceContext {
public:
    explicit DeviceContext(int ordinal = 0);
    ~DeviceContext();
    DeviceContext(const DeviceContext&) = delete;
    DeviceContext& operator=(const DeviceContext&) = delete;
    const DeviceInfo& info() const { return info_; }
    void synchronize();

private:
    CUdevice dev_ = 0;
    CUcontext ctx_ = nullptr;
    DeviceInfo info_;
};

// An owning device allocation.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t bytes);
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer&& o) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    CUdeviceptr ptr() const { return ptr_; }
    size_t size() const { return size_; }
    void upload(const void* src, size_t bytes);
    void download(void* dst, size_t bytes) const;
    void fill_byte(unsigned char v);

private:
    CUdeviceptr ptr_ = 0;
    size_t size_ = 0;
};

// A tensor in device memory with the dtype and shape of its host copy.
struct DeviceTensor {
    ir::DataType dtype;
    std::vector<int64_t> shape;
    DeviceBuffer buffer;

    static DeviceTensor from_host(const HostTensor& h);
    HostTensor to_host() const;
};

// Launch geometry: grid and block extents (1 for missing dimensions) and dynamic smem bytes.
struct LaunchConfig {
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};
    unsigned dynamic_smem = 0;
    std::string describe() const;  // "grid (1048576, 1, 1) block (256, 1, 1) smem 0"
};

// Builds a LaunchConfig from the compiler's extents; throws std::invalid_argument when an
// extent is unknown (-1), zero or too large.
LaunchConfig make_launch_config(const std::vector<int64_t>& grid, const std::vector<int64_t>& threads,
                                int64_t dynamic_smem);

// Kernel arguments in the order of the generated signature: device pointers and scalars.
class KernelArgs {
public:
    void add_pointer(CUdeviceptr p);
    void add_i32(int32_t v);
    void add_i64(int64_t v);
    void add_f32(float v);
    void add_f64(double v);
    // An argument passed by value as raw bytes (a 128-byte CUtensorMap for __grid_constant__).
    void add_bytes(const void* data, size_t bytes);
    void** pointers();  // what cuLaunchKernel wants; valid until the next add
    size_t size() const { return starts_.size(); }  // arguments added

private:
    std::vector<uint64_t> slots_;  // each argument stored in its own 8-byte slot(s)
    std::vector<size_t> starts_;   // first slot of each argument
    std::vector<void*> ptrs_;
};

struct KernelAttributes {
    int registers = -1;
    int static_smem = -1;
    int local_bytes = -1;
    int max_threads = -1;
};

// A module loaded from a cubin (or PTX) with its kernels looked up by name: one, or one per
// `T.Kernel` launch of a kernel function with several (launched by index, in program order).
class LoadedKernel {
public:
    LoadedKernel(const std::vector<uint8_t>& image, const std::string& kernel_name);
    LoadedKernel(const std::vector<uint8_t>& image, const std::vector<std::string>& kernel_names);
    ~LoadedKernel();
    LoadedKernel(const LoadedKernel&) = delete;
    LoadedKernel& operator=(const LoadedKernel&) = delete;

    // Sets the dynamic shared memory opt-in when needed, then launches on `stream` (null: the
    // default stream; libtileplay passes the caller's, e.g. torch's current stream).
    void launch(const LaunchConfig& cfg, KernelArgs& args, CUstream stream = nullptr) { launch(0, cfg, args, stream); }
    void launch(size_t kernel, const LaunchConfig& cfg, KernelArgs& args, CUstream stream = nullptr);
    KernelAttributes attributes(size_t kernel = 0) const;
    size_t count() const { return funcs_.size(); }
    const std::string& name(size_t kernel = 0) const { return names_.at(kernel); }
    // The address and size of the module's __device__ variable `name`; false when it has none
    // (or the driver lacks cuModuleGetGlobal).
    bool global(const char* name, CUdeviceptr& ptr, size_t& bytes) const;

private:
    CUmodule module_ = nullptr;
    std::vector<CUfunction> funcs_;
    std::vector<std::string> names_;
    std::vector<unsigned> smem_optin_;  // per kernel: dynamic smem already granted by cuFuncSetAttribute
};

}  // namespace tp::runtime
