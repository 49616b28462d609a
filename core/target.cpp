// Target table: values from ../shared/reference/gpus.md (one example GPU per architecture).
#include "target.h"

namespace tp {

std::string Target::nvrtc_arch() const { return name; }

std::optional<Target> parse_target(const std::string& name) {
    Target t;
    t.name = name;
    const int KB = 1024;
    if (name == "sm_75") {
        t.sm = 75; t.example_gpu = "T4"; t.sm_count = 40; t.smem_per_sm = 64 * KB; t.max_smem_per_block = 64 * KB;
        t.max_threads_per_sm = 1024; t.max_blocks_per_sm = 16; t.dram_gbps = 320; t.fp16_tflops = 65;
    } else if (name == "sm_80") {
        t.sm = 80; t.example_gpu = "A100"; t.sm_count = 108; t.smem_per_sm = 164 * KB; t.max_smem_per_block = 163 * KB;
        t.max_threads_per_sm = 2048; t.max_blocks_per_sm = 32; t.dram_gbps = 2039; t.fp16_tflops = 312;
    } else if (name == "sm_86") {
        t.sm = 86; t.example_gpu = "A10"; t.sm_count = 72; t.smem_per_sm = 100 * KB; t.max_smem_per_block = 99 * KB;
        t.max_threads_per_sm = 1536; t.max_blocks_per_sm = 16; t.dram_gbps = 600; t.fp16_tflops = 125;
    } else if (name == "sm_89") {
        t.sm = 89; t.example_gpu = "L4"; t.sm_count = 58; t.smem_per_sm = 100 * KB; t.max_smem_per_block = 99 * KB;
        t.max_threads_per_sm = 1536; t.max_blocks_per_sm = 24; t.dram_gbps = 300; t.fp16_tflops = 121;
    } else if (name == "sm_90" || name == "sm_90a") {
        t.sm = 90; t.arch_specific = name == "sm_90a"; t.example_gpu = "H200"; t.sm_count = 132;
        t.smem_per_sm = 228 * KB; t.max_smem_per_block = 232448; t.max_threads_per_sm = 2048;
        t.max_blocks_per_sm = 32; t.dram_gbps = 4800; t.fp16_tflops = 989;
    } else {
        return std::nullopt;
    }
    return t;
}

}  // namespace tp
