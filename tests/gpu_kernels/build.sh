#!/usr/bin/env bash
# Builds the standalone Tensor-Core harness (not part of CMake) with nvcc into the
# directory given as $1, for every target the compiler supports (override with
# TP_ARCHS="80 90"). Each binary's ptxas report (registers, spills) goes to $1/ptxas-*.txt.
set -euo pipefail
out=${1:?usage: build.sh <output-dir>}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
archs=${TP_ARCHS:-"75 80 86 89 90"}
mkdir -p "$out"
gencode=()
for a in $archs; do gencode+=(-gencode "arch=compute_$a,code=sm_$a"); done
flags=(-std=c++17 -O3 -lineinfo "${gencode[@]}" -I"$root/core/codegen/cuda/runtime" -Xptxas -v
       -Xcompiler -static-libstdc++ -Xcompiler -static-libgcc --threads 2)
jobs=${TP_JOBS:-2}
build_one() {
    local name=$1; shift
    if "$nvcc" "${flags[@]}" "$here/$name.cu" -o "$out/$name" "$@" >"$out/ptxas-$name.txt" 2>&1; then
        echo "built $out/$name"
    else
        echo "FAILED $name (see $out/ptxas-$name.txt)"; tail -20 "$out/ptxas-$name.txt"; return 1
    fi
}
pids=()
build_one layout_test & pids+=($!)
build_one reduce_test & pids+=($!)
[ "$jobs" -le 2 ] && { wait "${pids[@]}" || exit 1; pids=(); }
build_one fa2_test & pids+=($!)
build_one gemm_bench -lcublas & pids+=($!)
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
# NVRTC check: the headers as the code generator compiles them (in memory, every target).
mkdir -p "$out/runtime"
cp "$root"/core/codegen/cuda/runtime/tp_*.cuh "$out/runtime/"
cuda_home=$(cd "$(dirname "$nvcc")/.." && pwd)
if "$nvcc" -std=c++17 -O1 "$here/nvrtc_check.cpp" -o "$out/nvrtc_check" -lnvrtc -Xlinker -rpath="$cuda_home/lib64" \
        -Xcompiler -static-libstdc++ -Xcompiler -static-libgcc >"$out/build-nvrtc_check.txt" 2>&1; then
    "$out/nvrtc_check" "$out/runtime" "$cuda_home/include" || status=1
else
    echo "FAILED nvrtc_check (see $out/build-nvrtc_check.txt)"; status=1
fi
if grep -h "spill stores" "$out"/ptxas-*.txt | grep -qv " 0 bytes spill stores"; then
    echo "note: some kernels spill registers (see $out/ptxas-*.txt)"
fi
cp "$here/run.sh" "$out/"
exit $status
