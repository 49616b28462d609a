// The GPU runtime's host-side logic: timing statistics, rates, launch geometry, and clear
// messages where there is no driver or device.
#include <gtest/gtest.h>

#include "runtime/device.h"
#include "runtime/timing.h"
#include "tileplay/doctor.h"

namespace {

using namespace tp::runtime;

TEST(Timing, MedianMinSpread) {
    TimingStats s = summarize_times({5, 1, 3, 2, 4});
    EXPECT_EQ(s.n, 5);
    EXPECT_DOUBLE_EQ(s.median_ms, 3);
    EXPECT_DOUBLE_EQ(s.min_ms, 1);
    EXPECT_DOUBLE_EQ(s.max_ms, 5);
    EXPECT_DOUBLE_EQ(s.mean_ms, 3);
    // p10 = 1.4, p90 = 4.6 -> 3.2 / 3
    EXPECT_NEAR(s.spread_pct, 100.0 * 3.2 / 3, 1e-9);
    EXPECT_DOUBLE_EQ(summarize_times({1, 2}).median_ms, 1.5);
    EXPECT_EQ(summarize_times({}).n, 0);
}

TEST(Timing, Rates) {
    EXPECT_NEAR(tflops(2.0 * 4096 * 4096 * 4096, 0.2), 687.19, 0.01);
    EXPECT_NEAR(gbps(3.0 * 4 * (1 << 28), 0.741), 4347.13, 0.01);
    EXPECT_EQ(gbps(100, 0), 0);
}

TEST(Launch, ConfigFromCompilerExtents) {
    LaunchConfig c = make_launch_config({1048576}, {256}, 0);
    EXPECT_EQ(c.grid[0], 1048576u);
    EXPECT_EQ(c.grid[1], 1u);
    EXPECT_EQ(c.block[0], 256u);
    EXPECT_EQ(c.describe(), "grid (1048576, 1, 1) block (256, 1, 1) smem 0");
    EXPECT_THROW(make_launch_config({-1}, {128}, 0), std::invalid_argument);
    EXPECT_THROW(make_launch_config({4, 70000}, {128}, 0), std::invalid_argument);
    EXPECT_THROW(make_launch_config({4}, {32, 64}, 0), std::invalid_argument);
    EXPECT_EQ(make_launch_config({8, 8}, {128}, 100 * 1024).dynamic_smem, 100u * 1024);
}

TEST(Launch, KernelArgsKeepEachArgumentInItsOwnSlot) {
    KernelArgs a;
    a.add_pointer(0x1234);
    a.add_i32(-7);
    a.add_f32(1.5f);
    void** p = a.pointers();
    EXPECT_EQ(*static_cast<CUdeviceptr*>(p[0]), 0x1234u);
    EXPECT_EQ(*static_cast<int32_t*>(p[1]), -7);
    EXPECT_EQ(*static_cast<float*>(p[2]), 1.5f);
}

TEST(Driver, NoDeviceIsAClearMessage) {
    std::string why;
    int n = cuda_device_count(&why);
    if (n > 0) GTEST_SKIP() << "a CUDA device is present";
    EXPECT_FALSE(why.empty());
    EXPECT_FALSE(query_device(0).has_value());
    try {
        DeviceBuffer b(16);
        FAIL() << "allocation without a device succeeded";
    } catch (const CudaError& e) {
        EXPECT_EQ(e.code, CUDA_ERROR_NO_DEVICE);
        EXPECT_FALSE(e.sticky);
    }
    EXPECT_TRUE(cu_error_is_sticky(CUDA_ERROR_ILLEGAL_ADDRESS));
    EXPECT_FALSE(cu_error_is_sticky(1));
}

TEST(Doctor, ReportsEveryItem) {
    auto lines = tp::doctor_report(false);
    std::vector<std::string> items;
    for (const auto& l : lines) {
        items.push_back(l.item);
        EXPECT_FALSE(l.text.empty()) << l.item;
    }
    for (const char* want : {"driver", "toolkit", "nvrtc", "cublas", "nvdisasm"})
        EXPECT_NE(std::find(items.begin(), items.end(), want), items.end()) << want;
    if (cuda_device_count() == 0) {
        EXPECT_EQ(lines[0].item, "gpu");
        EXPECT_FALSE(lines[0].ok);
        EXPECT_NE(lines[0].text.find("no CUDA device"), std::string::npos);
    }
}

}  // namespace
