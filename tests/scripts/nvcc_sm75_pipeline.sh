#!/usr/bin/env bash
# The sm_75 register-staged pipeline through nvcc (not NVRTC): the tutorial GEMM is emitted as
# CUDA for sm_75 at whole, edge and unaligned sizes, must use the staged copies (tp::copy_g2r /
# tp::copy_r2s), and must build with `nvcc -arch=sm_75` with no register spills (the staged
# tile stays in registers across the mma work; a spill would cost what the overlap gains).
# nvcc finds the real cuda_fp16.h first, so a temporary include dir maps it to tp_half.cuh,
# as NVRTC does (runtime/nvrtc.cpp).
# usage: nvcc_sm75_pipeline.sh TILEC SOURCE_DIR [CUDA_HOME]
set -u
tilec=$1; root=$2; cuda=${3:-/usr/local/cuda}
nvcc=$cuda/bin/nvcc
if [ ! -x "$nvcc" ]; then echo "[SKIP] no nvcc at $nvcc"; exit 0; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/shim"
for h in cuda_fp16.h cuda_bf16.h; do echo '#include "tp_half.cuh"' > "$tmp/shim/$h"; done
fail=0; n=0
for defs in "M=256 N=256 K=256" "M=200 N=136 K=200 num_stages=3" "M=136 N=200 K=190"; do
    args=(); for d in $defs; do args+=(-D "$d"); done
    name=$(echo "$defs" | tr ' =' '_-')
    cu="$tmp/$name.cu"
    if ! out=$("$tilec" compile "$root/samples/gemm.py" --arch sm_75 --emit cuda "${args[@]}" -o "$cu" 2>&1); then
        echo "FAIL compile $defs"; echo "$out"; fail=1; continue
    fi
    if ! grep -q 'tp::copy_g2r<' "$cu" || ! grep -q 'tp::copy_r2s<' "$cu" || grep -q 'cp_async' "$cu"; then
        echo "FAIL $defs: not the register-staged form"; fail=1; continue
    fi
    if ! log=$("$nvcc" -arch=sm_75 -std=c++17 -I "$tmp/shim" -I "$root/core/codegen/cuda/runtime" -cubin \
            -Xptxas -v -o "$tmp/$name.cubin" "$cu" 2>&1); then
        echo "FAIL nvcc $defs"; echo "$log" | head -20; fail=1; continue
    fi
    if ! echo "$log" | grep -q ' 0 bytes spill stores'; then
        echo "FAIL $defs: spills"; echo "$log" | grep -E 'spill|registers'; fail=1; continue
    fi
    echo "ok $defs: $(echo "$log" | grep -o 'Used [0-9]* registers')"
    n=$((n + 1))
done
echo "nvcc built $n sm_75 register-staged GEMMs"
exit $fail
