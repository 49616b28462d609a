// The tutorial as data: one entry per section, in the order of the samples. On a GPU each
// section times the sample against its baselines; on the CPU it runs the interpreter at the
// sample's cpu-args and checks the result, so the whole tour finishes in a couple of minutes.
#include "tileplay/tutorial.h"

namespace tp {

const std::vector<TutorialSection>& tutorial_sections() {
    using K = KeyFigure;
    static const std::vector<TutorialSection> s = {
        {"environment", "environment check", "",
         {"doctor", "--json"},
         {"doctor", "--json", "--no-torch"},
         K::Doctor},
        {"vector_add", "vector add vs torch", "vector_add.py",
         {"bench", "{sample}", "--json"},
         {"run", "{sample}", "--device", "cpu", "--check", "--json"},
         K::Bench},
        {"gemm", "GEMM on Tensor Cores", "gemm.py",
         {"bench", "{sample}", "--json"},
         {"run", "{sample}", "--device", "cpu", "--check", "--json"},
         K::Bench},
        // The CPU sweep checks each config at cpu-args; four configs keep it short.
        {"sweep", "schedule sweep", "gemm.py",
         {"sweep", "{sample}", "-D", "block_M=64,128", "-D", "block_N=64,128", "-D", "num_stages=2,3", "--device",
          "gpu", "--json"},
         {"sweep", "{sample}", "-D", "block_M=64,128", "-D", "num_stages=2,3", "--device", "cpu", "--json"},
         K::Sweep},
        {"gemm_bias_gelu", "GEMM + bias + GELU", "gemm_bias_gelu.py",
         {"bench", "{sample}", "--json"},
         {"run", "{sample}", "--device", "cpu", "--check", "--json"},
         K::Bench},
        {"softmax", "softmax", "softmax.py",
         {"bench", "{sample}", "--json"},
         {"run", "{sample}", "--device", "cpu", "--check", "--json"},
         K::Bench},
        {"flash_causal", "FlashAttention, causal", "flash_attention.py",
         {"bench", "{sample}", "-D", "is_causal=True", "--json"},
         {"run", "{sample}", "-D", "is_causal=True", "--device", "cpu", "--check", "--json"},
         K::Bench},
        {"flash", "FlashAttention, non-causal", "flash_attention.py",
         {"bench", "{sample}", "-D", "is_causal=False", "--json"},
         {"run", "{sample}", "-D", "is_causal=False", "--device", "cpu", "--check", "--json"},
         K::Bench},
        // The same GEMM file on Hopper with the tiles its wgmma path wants (128x256x64, four
        // stages): TMA rings, two consumer warpgroups, a persistent grid. Timed on an sm_90 GPU;
        // elsewhere the compile is inspected (wgmma and bulk-copy counts), which needs no GPU.
        {"hopper", "GEMM on Hopper (sm_90a)", "gemm.py",
         {"bench", "{sample}", "--arch", "sm_90a", "-D", "block_M=128", "-D", "block_N=256", "-D", "block_K=64", "-D",
          "num_stages=4", "--json"},
         {"inspect", "{sample}", "--arch", "sm_90a", "--device", "cpu", "--json"},
         K::Bench, false, "sm_90", K::Inspect},
        {"autotune", "autotune", "gemm_autotune.py",
         {"{sample}", "--device", "gpu", "--json"},
         // Without a GPU nothing can be timed, so the CPU only checks a slice of the space.
         {"{sample}", "-T", "block_M=64,128", "-T", "num_stages=2,3", "--device", "cpu", "--json"},
         K::Sweep, true},
        {"debug_print", "debugging print", "debug_print.py",
         {"run", "{sample}", "--device", "gpu", "--json"},
         {"run", "{sample}", "--device", "cpu", "--json"},
         K::Printed},
        {"inspect", "inspection", "gemm.py",
         {"inspect", "{sample}", "--json"},
         {"inspect", "{sample}", "--json"},
         K::Inspect},
    };
    return s;
}

}  // namespace tp
