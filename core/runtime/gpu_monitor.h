// What the GPU was doing while a benchmark ran: SM and memory clocks, board power, the power
// cap, temperature and the throttle reasons NVML reports, sampled on a thread every few
// milliseconds. A figure is only comparable with another taken at the same clocks, so every
// bench result carries these. NVML (libnvidia-ml.so.1) is loaded with dlopen; without it the
// conditions say why they are missing, and nothing else changes.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace tp::runtime {

struct GpuConditions {
    bool available = false;
    std::string why;  // why there are no readings (no NVML, device not found)
    int samples = 0;
    double sm_clock_min_mhz = 0, sm_clock_median_mhz = 0, sm_clock_max_mhz = 0;
    double sm_clock_max_rated_mhz = 0;  // the board's maximum SM clock
    double mem_clock_median_mhz = 0;
    double power_mean_w = 0, power_max_w = 0, power_limit_w = 0;
    double temperature_max_c = 0;
    std::vector<std::string> throttle;  // reasons seen in any sample ("power cap", "thermal", ...)

    nlohmann::json to_json() const;
    std::string describe() const;  // "SM 1755-1980 MHz (median 1980), 512 W of 700 W, 48 C"
};

// Samples the device with this PCI bus id ("0000:19:00.0"; empty: NVML's device 0) between
// start() and stop(). Cheap when NVML is missing: start() records why and stop() returns it.
class GpuMonitor {
public:
    explicit GpuMonitor(std::string pci_bus_id, int period_ms = 10);
    ~GpuMonitor();
    GpuMonitor(const GpuMonitor&) = delete;
    GpuMonitor& operator=(const GpuMonitor&) = delete;

    void start();
    GpuConditions stop();

private:
    struct Sample {
        unsigned sm_mhz = 0, mem_mhz = 0, power_mw = 0, temp_c = 0;
        unsigned long long reasons = 0;
    };
    void loop();

    std::string bus_id_;
    int period_ms_;
    void* device_ = nullptr;
    std::string why_;
    std::atomic<bool> running_{false};
    std::thread thread_;
    std::mutex mu_;
    std::vector<Sample> samples_;
};

// Names of the NVML clock-event (throttle) reason bits set in `reasons`.
std::vector<std::string> throttle_reason_names(unsigned long long reasons);

}  // namespace tp::runtime
