#!/usr/bin/env bash
# Runs only the sm_90a GEMM schedule candidates (wgmma_gemm_variants, built by build.sh), each
# variant in its own process under a timeout, so a hang or fault costs one row. Logs go to
# <results-dir>/wgv-*.log; the table (one row per variant) and any failed check print last.
# Usage: run_gemm_variants.sh <build-dir> <results-dir> [size] [-- extra args, e.g. --panel 10]
set -uo pipefail
bin=$(cd "${1:?usage: run_gemm_variants.sh <build-dir> <results-dir> [size] [-- args]}" && pwd)
res=${2:?usage: run_gemm_variants.sh <build-dir> <results-dir> [size] [-- args]}
size=${3:-4096}
shift $(( $# < 3 ? $# : 3 ))
[ "${1:-}" = "--" ] && shift
mkdir -p "$res"
# cuBLAS / cuBLASLt: the toolkit's lib64, or the wheels PyTorch brings (as run.sh does).
extra=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu; do
    [ -e "$d/libcublasLt.so.13" ] && extra="$extra:$d"
done
if command -v python3 >/dev/null; then
    for d in $(python3 -c 'import glob, site, os
for r in site.getsitepackages() + [site.getusersitepackages()]:
    for p in glob.glob(os.path.join(r, "nvidia", "**", "libcublas*.so*"), recursive=True): print(os.path.dirname(p))' 2>/dev/null | sort -u); do
        extra="$extra:$d"
    done
fi
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}$extra"
"$bin/wgmma_gemm_variants" --list > "$res/wgv-list.txt" 2>&1
i=0
status=0
logs=()
while IFS= read -r name; do
    case "$name" in "#"* | "[SKIP]"* | "") continue ;; esac
    i=$((i + 1))
    log="$res/wgv-$i.log"
    timeout -k 10 120 "$bin/wgmma_gemm_variants" "$size" "$@" "$name" > "$log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        status=1
        echo "[FAIL] wgv-$i ($name): exit $rc$([ $rc -eq 124 ] || [ $rc -eq 137 ] && echo ' TIMEOUT')"
    fi
    logs+=("$log")
done < "$res/wgv-list.txt"
[ $i -eq 0 ] && { cat "$res/wgv-list.txt"; exit 1; }
grep -hE '^\[(FAIL|SKIP)\]' "${logs[@]}"
grep -hE 'clusters of' "${logs[@]}" | sort -u
# Each log: the header, its own checks, then one timing row (starting "base " or "ext ").
sed -n '/^== /p;/^variant /p' "${logs[0]}"
for l in "${logs[@]}"; do
    grep -E '^(base|ext) ' "$l"
done
sed -n '/^targets/p' "${logs[0]}"
exit $status
