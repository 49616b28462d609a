// Entry of tileplay_gpu_tests: without a CUDA device it prints exactly "[SKIP] no CUDA device"
// and exits 0, which CTest's SKIP_REGULAR_EXPRESSION marks as skipped (never passed).
#include <gtest/gtest.h>

#include <cstdio>

#include "runtime/cuda_driver.h"

int main(int argc, char** argv) {
    std::string why;
    if (tp::runtime::cuda_device_count(&why) == 0) {
        std::printf("[SKIP] no CUDA device\n");
        std::fprintf(stderr, "(%s)\n", why.c_str());
        return 0;
    }
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
