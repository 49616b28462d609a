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
            echo "FAIL compile $base $t"; echo "$out"; fail=1; continue
        fi
        if ! out=$("$ptxas" -arch="$t" "$tmp/$base.$t.ptx" -o "$tmp/$base.$t.cubin" 2>&1); then
            echo "FAIL ptxas $base $t"; echo "$out"; fail=1; continue
        fi
        n=$((n + 1))
    done
done
echo "ptxas accepted $n sample/target pairs"
exit $fail
