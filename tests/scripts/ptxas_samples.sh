#!/usr/bin/env bash
# Compiles every sample to PTX for every target with tilec and assembles it with ptxas, so
# the PTX we emit is accepted by the real assembler on each architecture.
set -u
tilec=$1; root=$2; cuda=${3:-/usr/local/cuda}
ptxas=$cuda/bin/ptxas
if [ ! -x "$ptxas" ]; then echo "[SKIP] no ptxas at $ptxas"; exit 0; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
for f in "$root"/samples/*.py; do
    for t in sm_75 sm_80 sm_86 sm_89 sm_90 sm_90a; do
        base=$(basename "$f" .py)
        if ! out=$("$tilec" compile "$f" --arch "$t" --emit ptx -o "$tmp/$base.$t.ptx" 2>&1); then
            # A GPU schedule in the header may double-buffer past sm_75's 64 KB (the sample
            # says so); there the single-buffered schedule must compile.
            # A sample of a type the target lacks (fp8 before sm_89) must be refused as such.
            if grep -q FeatureNeedsTarget <<<"$out"; then
                echo "note: $base is refused on $t: $(grep -m1 -o 'error: .*' <<<"$out")"; continue
            fi
            if [ "$t" = sm_75 ] && grep -q SharedMemoryExceeded <<<"$out" &&
                out=$("$tilec" compile "$f" --arch "$t" --emit ptx -D num_stages=1 -o "$tmp/$base.$t.ptx" 2>&1); then
                echo "note: $base on $t with num_stages=1 (the header's schedule needs more shared memory)"
            else
                echo "FAIL compile $base $t"; echo "$out"; fail=1; continue
            fi
        fi
        if ! out=$("$ptxas" -arch="$t" "$tmp/$base.$t.ptx" -o "$tmp/$base.$t.cubin" 2>&1); then
            echo "FAIL ptxas $base $t"; echo "$out"; fail=1; continue
        fi
        n=$((n + 1))
    done
done
# The sm_90a producer/consumer path (TMA + wgmma + setmaxnreg) with Hopper-sized tiles.
for base in gemm gemm_bias_gelu gemm_fp8; do
    bk=64; [ "$base" = gemm_fp8 ] && bk=128  # 128 bytes of K either way
    if ! out=$("$tilec" compile "$root/samples/$base.py" --arch sm_90a --emit ptx -D block_M=128 -D block_N=256 -D block_K=$bk \
            -D num_stages=4 -D threads=256 -o "$tmp/$base.ws.ptx" 2>&1); then
        echo "FAIL compile $base sm_90a (warp-specialized)"; echo "$out"; fail=1; continue
    fi
    if ! grep -q "wgmma.mma_async" "$tmp/$base.ws.ptx" || ! out=$("$ptxas" -arch=sm_90a "$tmp/$base.ws.ptx" -o "$tmp/$base.ws.cubin" 2>&1); then
        echo "FAIL ptxas $base sm_90a (warp-specialized)"; echo "$out"; fail=1; continue
    fi
    n=$((n + 1))
done
# Attention on the sm_90a producer/consumer path (TMA 4-D boxes, wgmma, ping-pong named
# barriers), with the header's schedule, full and causal.
for causal in False True; do
    if ! out=$("$tilec" compile "$root/samples/flash_attention.py" --arch sm_90a --emit ptx -D is_causal=$causal \
            -o "$tmp/fa.$causal.ptx" 2>&1); then
        echo "FAIL compile flash_attention sm_90a is_causal=$causal (warp-specialized)"; echo "$out"; fail=1; continue
    fi
    if ! grep -q "wgmma.mma_async" "$tmp/fa.$causal.ptx" || ! grep -q "cp.async.bulk.tensor.4d" "$tmp/fa.$causal.ptx" ||
        ! out=$("$ptxas" -arch=sm_90a "$tmp/fa.$causal.ptx" -o "$tmp/fa.$causal.cubin" 2>&1); then
        echo "FAIL ptxas flash_attention sm_90a is_causal=$causal (warp-specialized)"; echo "$out"; fail=1; continue
    fi
    n=$((n + 1))
done
echo "ptxas accepted $n sample/target pairs"
exit $fail
