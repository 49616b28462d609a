// GPU targets: the architectures the code generator knows, their feature flags and resource
// limits (../shared/reference/gpus.md), used for early feature checks and budgets.
#pragma once

#include <optional>
#include <string>

namespace tp {

struct Target {
    std::string name;        // "sm_80", "sm_90a"
    int sm = 80;             // 75, 80, 86, 89, 90
    bool arch_specific = false;  // the "a" suffix: wgmma, setmaxnreg
    std::string example_gpu;
    int sm_count = 0;
    int smem_per_sm = 0;          // bytes
    int max_smem_per_block = 0;   // bytes, opt-in maximum
    int regs_per_sm = 65536;
    int max_threads_per_sm = 0;
    int max_blocks_per_sm = 0;
    double dram_gbps = 0;
    double fp16_tflops = 0;

    bool has_cp_async() const { return sm >= 80; }
    bool has_bf16_mma() const { return sm >= 80; }
    bool has_mma_m16n8k16() const { return sm >= 80; }
    bool has_tma() const { return sm >= 90; }
    bool has_wgmma() const { return sm >= 90 && arch_specific; }
    std::string nvrtc_arch() const;  // "sm_90a" -> "sm_90a", for --gpu-architecture
};

std::optional<Target> parse_target(const std::string& name);

}  // namespace tp
