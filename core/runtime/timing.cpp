// CUDA-event timing with L2 flushing; see timing.h.
#include "runtime/timing.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <numeric>
#include <optional>

namespace tp::runtime {

namespace {

double quantile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0;
    double pos = q * static_cast<double>(sorted.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, sorted.size() - 1);
    double f = pos - static_cast<double>(lo);
    return sorted[lo] * (1 - f) + sorted[hi] * f;
}

// Reads a buffer of twice the L2 size, 16 bytes per load, and writes nothing (the sink is only
// written when the XOR of everything read equals a constant, which keeps the loads alive).
// PTX, so the driver JITs it without NVRTC.
const char* kL2EvictPtx = R"(.version 7.0
.target sm_70
.address_size 64
.visible .entry tp_l2_evict(.param .u64 tp_src, .param .u64 tp_n16, .param .u64 tp_sink)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [tp_src];
    ld.param.u64 %rd2, [tp_n16];
    ld.param.u64 %rd3, [tp_sink];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd3, %rd3;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, %nctaid.x;
    mul.wide.u32 %rd4, %r1, %r2;
    cvt.u64.u32 %rd5, %r3;
    add.u64 %rd4, %rd4, %rd5;
    mul.wide.u32 %rd6, %r4, %r2;
    mov.u32 %r5, 0;
$L_loop:
    setp.ge.u64 %p1, %rd4, %rd2;
    @%p1 bra $L_done;
    shl.b64 %rd7, %rd4, 4;
    add.u64 %rd8, %rd1, %rd7;
    ld.global.cg.v4.u32 {%r6, %r7, %r8, %r9}, [%rd8];
    xor.b32 %r5, %r5, %r6;
    xor.b32 %r5, %r5, %r7;
    xor.b32 %r5, %r5, %r8;
    xor.b32 %r5, %r5, %r9;
    add.u64 %rd4, %rd4, %rd6;
    bra $L_loop;
$L_done:
    setp.ne.u32 %p2, %r5, 2116102715;
    @%p2 bra $L_end;
    st.global.u32 [%rd3], %r5;
$L_end:
    ret;
}
)";

// Empties L2 between timed launches. Zeroing a buffer (cuMemset) would leave L2 full of
// dirty lines whose write-back then lands inside the next timed kernel (60 MB on an H200,
// a fifth of a softmax's own traffic); reading a clean buffer writes back whatever is dirty
// now, before the timer starts, and leaves only clean lines behind.
class L2Flusher {
public:
    explicit L2Flusher(const DeviceInfo& dev) {
        if (dev.l2_bytes <= 0) return;
        buf_ = DeviceBuffer(2 * static_cast<size_t>(dev.l2_bytes));
        const CudaDriver& d = cuda_driver();
        if (d.cuModuleLoadData(&mod_, kL2EvictPtx) == CUDA_SUCCESS &&
            d.cuModuleGetFunction(&fn_, mod_, "tp_l2_evict") == CUDA_SUCCESS) {
            sink_ = DeviceBuffer(16);
            blocks_ = std::max(1, dev.sm_count) * 8;
        } else {
            fn_ = nullptr;  // fall back to zeroing the buffer
        }
    }
    ~L2Flusher() {
        if (mod_) cuda_driver().cuModuleUnload(mod_);
    }
    L2Flusher(const L2Flusher&) = delete;
    L2Flusher& operator=(const L2Flusher&) = delete;

    std::string describe() const {
        if (!buf_.size()) return "not flushed (the device reports no L2 size)";
        char b[160];
        std::snprintf(b, sizeof b, "%s %zu MiB (2x L2) before each timed launch", fn_ ? "read" : "zeroed",
                      buf_.size() >> 20);
        return b;
    }

    void operator()() {
        if (!buf_.size()) return;
        const CudaDriver& d = cuda_driver();
        if (!fn_) {
            cu_check(d.cuMemsetD8Async(buf_.ptr(), 0, buf_.size(), nullptr), "cuMemsetD8Async");
            return;
        }
        CUdeviceptr src = buf_.ptr(), sink = sink_.ptr();
        unsigned long long n16 = buf_.size() / 16;
        void* args[] = {&src, &n16, &sink};
        cu_check(d.cuLaunchKernel(fn_, static_cast<unsigned>(blocks_), 1, 1, 256, 1, 1, 0, nullptr, args, nullptr),
                 "L2 flush launch");
    }

private:
    DeviceBuffer buf_, sink_;
    CUmodule mod_ = nullptr;
    CUfunction fn_ = nullptr;
    int blocks_ = 0;
};

}  // namespace

TimingStats summarize_times(std::vector<double> ms) {
    TimingStats s;
    s.samples_ms = ms;
    s.n = static_cast<int>(ms.size());
    if (ms.empty()) return s;
    std::sort(ms.begin(), ms.end());
    s.min_ms = ms.front();
    s.max_ms = ms.back();
    s.median_ms = quantile(ms, 0.5);
    s.mean_ms = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
    s.spread_pct = s.median_ms > 0 ? 100.0 * (quantile(ms, 0.9) - quantile(ms, 0.1)) / s.median_ms : 0;
    return s;
}

double tflops(double flops, double ms) { return flops > 0 && ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0; }
double gbps(double bytes, double ms) { return bytes > 0 && ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }

struct EventTimer::Impl {
    std::optional<L2Flusher> flusher;
};

EventTimer::EventTimer(const DeviceInfo& dev, bool flush_l2) : impl_(std::make_unique<Impl>()) {
    if (flush_l2) impl_->flusher.emplace(dev);
}

EventTimer::~EventTimer() = default;

std::string EventTimer::flush_description() const {
    return impl_->flusher ? impl_->flusher->describe() : "not flushed (--no-flush)";
}

std::vector<double> EventTimer::time(const std::function<void()>& launch, int n, const std::string& what) {
    const CudaDriver& d = cuda_driver();
    n = std::max(1, n);
    // All n samples are enqueued before one wait: the host never leaves the GPU idle inside a
    // window, and each window holds the launch alone (the flush runs before its start event).
    std::vector<CUevent> ev(2 * static_cast<size_t>(n), nullptr);
    auto destroy = [&] {
        for (CUevent e : ev)
            if (e) d.cuEventDestroy(e);
    };
    std::vector<double> out;
    try {
        for (auto& e : ev) cu_check(d.cuEventCreate(&e, 0), "cuEventCreate");
        for (int i = 0; i < n; ++i) {
            if (impl_->flusher) (*impl_->flusher)();
            cu_check(d.cuEventRecord(ev[2 * i], nullptr), "cuEventRecord");
            launch();
            cu_check(d.cuEventRecord(ev[2 * i + 1], nullptr), "cuEventRecord");
        }
        cu_check(d.cuEventSynchronize(ev.back()), ("timed launches of " + what).c_str());
        for (int i = 0; i < n; ++i) {
            float ms = 0;
            cu_check(d.cuEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]), "cuEventElapsedTime");
            out.push_back(ms);
        }
    } catch (...) {
        destroy();
        throw;
    }
    destroy();
    return out;
}

}  // namespace tp::runtime
