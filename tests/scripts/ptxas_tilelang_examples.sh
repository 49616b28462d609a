#!/usr/bin/env bash
# Compiles a list of TileLang's own examples (norms, softmax, FlashAttention forward, GEMMs,
# top-k, fp8 cast, fp8 GEMMs) to PTX for sm_80, sm_90 and sm_90a (the producer/consumer path: the attention
# and GEMM ones must use wgmma and TMA there) (fp8: sm_89 and sm_90, fp8 GEMMs sm_90a too; sm_80 must give the
# FeatureNeedsTarget diagnostic) at the sizes their main() uses, and assembles each
# with ptxas: real-world kernels must lower completely (no NotYetLowered) and give PTX the
# assembler accepts. SOURCE is a TileLang checkout, its examples/ directory, or a bare git
# repository (HEAD:examples is extracted to a temporary directory; TileLang's files never
# enter this tree).
# usage: ptxas_tilelang_examples.sh SOURCE TILEC [CUDA_HOME]
set -u
src=${1:-}; tilec=${2:-}; cuda=${3:-/usr/local/cuda}
ptxas=$cuda/bin/ptxas
if [[ -z "$tilec" || ! -x "$tilec" ]]; then echo "usage: $0 SOURCE TILEC [CUDA_HOME]" >&2; exit 2; fi
if [ ! -x "$ptxas" ]; then echo "[SKIP] no ptxas at $ptxas"; exit 0; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
dir=""
if [[ -n "$src" && -d "$src/examples" ]]; then
    dir="$src/examples"
elif [[ -n "$src" && -d "$src" ]] && git -C "$src" rev-parse --is-bare-repository 2>/dev/null | grep -q true; then
    git -C "$src" archive HEAD examples 2>/dev/null | tar -x -C "$tmp" && dir="$tmp/examples"
elif [[ -n "$src" && -d "$src" ]]; then
    dir="$src"
fi
if [[ -z "$dir" || ! -d "$dir" ]]; then echo "[SKIP] no TileLang examples at ${src:-<unset>}"; exit 0; fi

# file | kernel factory | -D parameters (from each example's main / test function) | targets
cases=(
    "norm/rms_norm.py|rms_norm|M=1024 N=1024 blk_m=1|sm_80 sm_90"
    "norm/rms_norm.py|rms_norm_splitk|M=1024 N=1024 blk_m=1 blk_k=512|sm_80 sm_90"
    "online_softmax/online_softmax.py|softmax_kernel||sm_80 sm_90"
    "norm/layernorm.py|_layernorm_fwd|N=4096 D=8192|sm_80 sm_90"
    "norm/layernorm.py|_layernorm_bwd|N=4096 D=8192|sm_80 sm_90"
    "flash_attention/example_mha_fwd_bshd.py|flashattn|batch=8 heads=32 seq_len=4096 dim=128 is_causal=False block_M=128 block_N=128 num_stages=1 threads=128|sm_80 sm_90 sm_90a"
    "flash_attention/example_mha_fwd_bhsd.py|flashattn|batch=1 heads=1 seq_q=256 seq_kv=256 dim=64 is_causal=False block_M=64 block_N=64 num_stages=1 threads=128|sm_80 sm_90 sm_90a"
    "flash_attention/example_mha_fwd_bhsd.py|flashattn|batch=1 heads=1 seq_q=256 seq_kv=256 dim=64 is_causal=True block_M=128 block_N=128 num_stages=2 threads=256|sm_80 sm_90 sm_90a"
    "flash_attention/example_gqa_fwd_bshd.py|flashattn|batch=1 heads=64 seq_len=4096 dim=128 is_causal=False groups=16 block_M=64 block_N=64 num_stages=2 threads=128|sm_80 sm_90 sm_90a"
    "gemm/example_gemm.py|matmul|M=1024 N=1024 K=1024 block_M=128 block_N=128 block_K=32|sm_80 sm_90a"
    "gemm/example_gemm_autotune.py|matmul|M=4096 N=4096 K=4096 block_M=128 block_N=256 block_K=64 num_stages=3 thread_num=256 enable_rasteration=True|sm_90a"
    "topk/example_topk.py|tl_topk|M=320 N=128 topk=6 blk_m=64|sm_80 sm_90"
    "topk/example_topk.py|tl_topk|M=320 N=128 topk=6 blk_m=128 threads=256|sm_80 sm_90"
    "cast/example_per_token_cast_to_fp8.py|per_token_cast_to_fp8|M=8192 N=8192 blk_m=8|sm_89 sm_90"
    "gemm_fp8/example_tilelang_gemm_fp8.py|matmul|M=1024 N=1024 K=1024 block_M=128 block_N=128 block_K=64 dtype=float8_e4m3|sm_89 sm_90 sm_90a"
    "gemm_fp8/example_tilelang_gemm_fp8.py|matmul|M=1024 N=1024 K=1024 block_M=128 block_N=128 block_K=64 dtype=float8_e5m2|sm_89 sm_90a"
    "gemm_fp8/example_tilelang_gemm_fp8_2xAcc.py|matmul|M=1024 N=1024 K=8192 block_M=128 block_N=128 block_K=64 dtype=float8_e4m3|sm_90 sm_90a"
)
fail=0; n=0
for c in "${cases[@]}"; do
    IFS='|' read -r file kernel defs targets <<<"$c"
    if [ ! -f "$dir/$file" ]; then echo "FAIL missing $file"; fail=1; continue; fi
    args=(); for d in $defs; do args+=(-D "$d"); done
    for t in $targets; do
        out="$tmp/$(echo "$file.$kernel.$n.$t" | tr '/' '_')"
        if ! log=$("$tilec" compile "$dir/$file" -k "$kernel" "${args[@]}" --arch "$t" --emit ptx -o "$out.ptx" 2>&1); then
            echo "FAIL compile $file ($kernel, $t)"; echo "$log" | head -20; fail=1; continue
        fi
        if ! log=$("$ptxas" -arch="$t" "$out.ptx" -o "$out.cubin" 2>&1); then
            echo "FAIL ptxas $file ($kernel, $t)"; echo "$log" | head -20; fail=1; continue
        fi
        if [ "$t" = sm_90a ] && { ! grep -q "wgmma.mma_async" "$out.ptx" || ! grep -q "cp.async.bulk.tensor" "$out.ptx"; }; then
            echo "FAIL $file ($kernel, $t): not on the TMA + wgmma path"; fail=1; continue
        fi
        n=$((n + 1))
    done
done
# fp8 on sm_80 is a user error with its own diagnostic, not a crash or an NVRTC error.
log=$("$tilec" compile "$dir/cast/example_per_token_cast_to_fp8.py" -D M=8192 -D N=8192 -D blk_m=8 --arch sm_80 --emit ptx 2>&1)
if [ $? -ne 1 ] || ! echo "$log" | grep -q 'needs sm_89, but the target is sm_80 \[FeatureNeedsTarget\]'; then
    echo "FAIL fp8 cast on sm_80 should report FeatureNeedsTarget"; echo "$log" | head -10; fail=1
fi
echo "ptxas accepted $n TileLang example/target pairs"
exit $fail
