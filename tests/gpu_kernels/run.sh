#!/usr/bin/env bash
# Runs the harness built by build.sh. Usage: run.sh <build-dir> <results-dir> [gemm size]
# Correctness first (layout, reductions, FA2, GEMM checks), every binary under a timeout,
# so a hung or faulting kernel costs one step, never the run. Logs and a summary go to
# <results-dir>; the compact tables are printed last.
set -uo pipefail
bin=${1:?usage: run.sh <build-dir> <results-dir> [gemm size]}
res=${2:?usage: run.sh <build-dir> <results-dir> [gemm size]}
size=${3:-4096}
mkdir -p "$res"
bin=$(cd "$bin" && pwd)
# cuBLAS: the toolkit's lib64, or the wheels PyTorch brings.
extra=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu; do
    [ -e "$d/libcublas.so.13" ] && extra="$extra:$d"
done
if command -v python3 >/dev/null; then
    for d in $(python3 - <<'PY' 2>/dev/null
import glob, site, os
roots = site.getsitepackages() + [site.getusersitepackages()]
for r in roots:
    for p in glob.glob(os.path.join(r, "nvidia", "**", "libcublas.so*"), recursive=True):
        print(os.path.dirname(p))
PY
    ); do extra="$extra:$d"; done
fi
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}$extra"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > "$res/gpu.txt" 2>&1 || true
summary="$res/summary.txt"
: > "$summary"
step() {  # step <name> <timeout-seconds> <command...>
    local name=$1 limit=$2; shift 2
    local start=$(date +%s)
    timeout -k 10 "$limit" "$@" > "$res/$name.log" 2>&1
    local rc=$? took=$(( $(date +%s) - start ))
    local verdict=PASS
    [ $rc -ne 0 ] && verdict="FAIL(rc=$rc)"
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && verdict="TIMEOUT(${limit}s)"
    grep -q '^\[SKIP\] .*no CUDA device' "$res/$name.log" && verdict=SKIP
    printf '%-12s %-16s %4ss  %s\n' "$name" "$verdict" "$took" "$(grep -cE '^\[FAIL\]' "$res/$name.log") failed checks" | tee -a "$summary"
}
step layout 60 "$bin/layout_test"
step reduce 120 "$bin/reduce_test"
step fa2 240 "$bin/fa2_test"
step gemm 420 "$bin/gemm_bench" "$size"
echo
for n in layout reduce fa2 gemm; do
    grep -E '^\[FAIL\]' "$res/$n.log" | head -20
done
echo
for n in fa2 gemm; do
    sed -n '/^== /,$p' "$res/$n.log"
done
echo
cat "$summary"
