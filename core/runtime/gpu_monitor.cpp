// NVML sampling of clocks, power and throttle reasons during a benchmark; see gpu_monitor.h.
#include "runtime/gpu_monitor.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace tp::runtime {

namespace {

using NvmlReturn = int;
using NvmlDevice = void*;
constexpr int kClockSm = 1, kClockMem = 2, kTempGpu = 0;

struct Nvml {
    bool ok = false;
    std::string why;
    NvmlReturn (*init)() = nullptr;
    NvmlReturn (*by_bus_id)(const char*, NvmlDevice*) = nullptr;
    NvmlReturn (*by_index)(unsigned, NvmlDevice*) = nullptr;
    NvmlReturn (*clock)(NvmlDevice, int, unsigned*) = nullptr;
    NvmlReturn (*max_clock)(NvmlDevice, int, unsigned*) = nullptr;
    NvmlReturn (*power)(NvmlDevice, unsigned*) = nullptr;
    NvmlReturn (*power_limit)(NvmlDevice, unsigned*) = nullptr;
    NvmlReturn (*temperature)(NvmlDevice, int, unsigned*) = nullptr;
    NvmlReturn (*reasons)(NvmlDevice, unsigned long long*) = nullptr;
};

template <typename Fn>
bool sym(void* lib, Fn& f, const char* a, const char* b = nullptr) {
    void* p = dlsym(lib, a);
    if (!p && b) p = dlsym(lib, b);
    f = reinterpret_cast<Fn>(p);
    return p != nullptr;
}

// Loaded once per process; NVML's own init is reference-counted and cheap to keep.
const Nvml& nvml() {
    static const Nvml n = [] {
        Nvml l;
        void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            l.why = "NVML (libnvidia-ml.so.1) is not installed";
            return l;
        }
        bool bound = sym(lib, l.init, "nvmlInit_v2", "nvmlInit") &&
                     sym(lib, l.by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId") &&
                     sym(lib, l.by_index, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex") &&
                     sym(lib, l.clock, "nvmlDeviceGetClockInfo") && sym(lib, l.power, "nvmlDeviceGetPowerUsage");
        if (!bound) {
            l.why = "libnvidia-ml.so.1 lacks the clock and power queries";
            return l;
        }
        sym(lib, l.max_clock, "nvmlDeviceGetMaxClockInfo");
        sym(lib, l.power_limit, "nvmlDeviceGetEnforcedPowerLimit");
        sym(lib, l.temperature, "nvmlDeviceGetTemperature");
        sym(lib, l.reasons, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
        if (NvmlReturn r = l.init(); r != 0) {
            l.why = "nvmlInit failed with status " + std::to_string(r);
            return l;
        }
        l.ok = true;
        return l;
    }();
    return n;
}

double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace

std::vector<std::string> throttle_reason_names(unsigned long long reasons) {
    // Idle (bit 0) and the application-clock setting (bit 1) are not slowdowns of a busy GPU.
    static const std::pair<unsigned long long, const char*> names[] = {
        {0x4, "power cap"},          {0x8, "hardware slowdown"},      {0x10, "sync boost"},
        {0x20, "thermal (software)"}, {0x40, "thermal (hardware)"},  {0x80, "power brake"},
    };
    std::vector<std::string> out;
    for (const auto& [bit, name] : names)
        if (reasons & bit) out.push_back(name);
    return out;
}

nlohmann::json GpuConditions::to_json() const {
    if (!available) return {{"available", false}, {"why", why}};
    return {{"available", true},
            {"samples", samples},
            {"sm_clock_mhz", {{"min", sm_clock_min_mhz}, {"median", sm_clock_median_mhz}, {"max", sm_clock_max_mhz}}},
            {"sm_clock_max_rated_mhz", sm_clock_max_rated_mhz},
            {"mem_clock_mhz", mem_clock_median_mhz},
            {"power_w", {{"mean", power_mean_w}, {"max", power_max_w}, {"limit", power_limit_w}}},
            {"temperature_max_c", temperature_max_c},
            {"throttle", throttle}};
}

std::string GpuConditions::describe() const {
    if (!available) return "clocks unknown (" + why + ")";
    char buf[200];
    std::snprintf(buf, sizeof buf, "SM %.0f-%.0f MHz (median %.0f), %.0f W mean of %.0f W cap, %.0f C", sm_clock_min_mhz,
                  sm_clock_max_mhz, sm_clock_median_mhz, power_mean_w, power_limit_w, temperature_max_c);
    std::string s = buf;
    if (!throttle.empty()) {
        s += ", throttled:";
        for (const auto& t : throttle) s += " " + t;
    }
    return s;
}

GpuMonitor::GpuMonitor(std::string pci_bus_id, int period_ms) : bus_id_(std::move(pci_bus_id)), period_ms_(period_ms) {}

GpuMonitor::~GpuMonitor() {
    if (running_.exchange(false) && thread_.joinable()) thread_.join();
}

void GpuMonitor::start() {
    const Nvml& n = nvml();
    samples_.clear();
    if (!n.ok) {
        why_ = n.why;
        return;
    }
    NvmlDevice dev = nullptr;
    NvmlReturn r = bus_id_.empty() ? n.by_index(0, &dev) : n.by_bus_id(bus_id_.c_str(), &dev);
    if (r != 0 || !dev) {
        why_ = "NVML does not know the device " + (bus_id_.empty() ? std::string("0") : bus_id_) + " (status " +
               std::to_string(r) + ")";
        return;
    }
    device_ = dev;
    running_ = true;
    thread_ = std::thread([this] { loop(); });
}

void GpuMonitor::loop() {
    const Nvml& n = nvml();
    while (running_) {
        Sample s;
        n.clock(device_, kClockSm, &s.sm_mhz);
        n.clock(device_, kClockMem, &s.mem_mhz);
        n.power(device_, &s.power_mw);
        if (n.temperature) n.temperature(device_, kTempGpu, &s.temp_c);
        if (n.reasons) n.reasons(device_, &s.reasons);
        {
            std::lock_guard<std::mutex> lock(mu_);
            samples_.push_back(s);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(period_ms_));
    }
}

GpuConditions GpuMonitor::stop() {
    GpuConditions c;
    if (running_.exchange(false) && thread_.joinable()) thread_.join();
    if (!device_) {
        c.why = why_.empty() ? "the monitor was not started" : why_;
        return c;
    }
    const Nvml& n = nvml();
    std::vector<double> sm, mem;
    unsigned long long reasons = 0;
    double power_sum = 0;
    for (const auto& s : samples_) {
        sm.push_back(s.sm_mhz);
        mem.push_back(s.mem_mhz);
        power_sum += s.power_mw / 1000.0;
        c.power_max_w = std::max(c.power_max_w, s.power_mw / 1000.0);
        c.temperature_max_c = std::max<double>(c.temperature_max_c, s.temp_c);
        reasons |= s.reasons;
    }
    c.samples = static_cast<int>(samples_.size());
    if (c.samples == 0) {
        c.why = "no samples (the run was shorter than one period)";
        return c;
    }
    c.available = true;
    c.sm_clock_min_mhz = *std::min_element(sm.begin(), sm.end());
    c.sm_clock_max_mhz = *std::max_element(sm.begin(), sm.end());
    c.sm_clock_median_mhz = median_of(sm);
    c.mem_clock_median_mhz = median_of(mem);
    c.power_mean_w = power_sum / c.samples;
    unsigned v = 0;
    if (n.max_clock && n.max_clock(device_, kClockSm, &v) == 0) c.sm_clock_max_rated_mhz = v;
    if (n.power_limit && n.power_limit(device_, &v) == 0) c.power_limit_w = v / 1000.0;
    c.throttle = throttle_reason_names(reasons);
    return c;
}

}  // namespace tp::runtime
