#!/usr/bin/env bash
# Runs the sm_90a FlashAttention harness (wgmma_fa_test) on the GPU machine in one step: the
# binary carried in <bin-dir> when it loads there (a build from another image may lack its
# glibc), else a fresh nvcc build; then the log's failures and timing table, and a SASS
# summary (HGMMA present, no local-memory spills). Usage: run_fa.sh <bin-dir> <results-dir> [name filter]
set -uo pipefail
bin=${1:?usage: run_fa.sh <bin-dir> <results-dir> [filter]}
res=${2:?usage: run_fa.sh <bin-dir> <results-dir> [filter]}
filter=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$res"
exe="$bin/wgmma_fa_test"
if [ ! -x "$exe" ] || ldd "$exe" 2>&1 | grep -q "not found"; then
    echo "carried binary unusable here: building with $nvcc"
    exe="$res/wgmma_fa_test"
    "$nvcc" -std=c++17 -O3 -lineinfo -gencode arch=compute_90a,code=sm_90a -I"$root/core/codegen/cuda/runtime" -Xptxas -v \
        --threads 4 "$here/wgmma_fa_test.cu" -o "$exe" >"$res/ptxas-wgmma_fa_test.txt" 2>&1 || {
        tail -30 "$res/ptxas-wgmma_fa_test.txt"; exit 1; }
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv >"$res/gpu.txt" 2>&1 || true
start=$(date +%s)
timeout -k 10 540 "$exe" "$filter" >"$res/wgmma_fa.log" 2>&1
rc=$?
echo "wgmma_fa_test: rc=$rc in $(( $(date +%s) - start ))s"
grep -E '^\[FAIL\]' "$res/wgmma_fa.log" | head -20
grep -cE '^\[PASS\]' "$res/wgmma_fa.log" | sed 's/^/passed checks: /'
sed -n '/^== /,$p' "$res/wgmma_fa.log"
# No table (hang, crash): show the tail instead.
grep -q '^== ' "$res/wgmma_fa.log" || tail -30 "$res/wgmma_fa.log"
if command -v cuobjdump >/dev/null || [ -x /usr/local/cuda/bin/cuobjdump ]; then
    objdump_bin=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
    "$objdump_bin" -sass "$exe" >"$res/wgmma_fa.sass" 2>&1
    echo "SASS (all kernels):"
    grep -oE 'HGMMA\.[0-9A-Za-z]+|WARPGROUP\.[A-Z]+|\bSTL(\.[0-9A-Z]+)?\b|\bLDL(\.[0-9A-Z]+)?\b' "$res/wgmma_fa.sass" | sort | uniq -c
fi
exit $rc
