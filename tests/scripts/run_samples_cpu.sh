#!/usr/bin/env bash
# Runs every samples/*.py on the CPU interpreter at its header's cpu-args. Samples whose
# header names a baseline run with --check (compared with the independent C++ reference);
# the others must simply run cleanly. Usage: run_samples_cpu.sh TILEC SOURCE_DIR
set -u
tilec="$1"
root="$2"
fail=0
count=0
for f in "$root"/samples/*.py; do
    [ -e "$f" ] || continue
    count=$((count + 1))
    args=(run --device cpu "$f")
    if grep -qE '^#\s*tileplay:\s*baseline' "$f"; then
        args+=(--check)
    fi
    start=$(date +%s%N)
    if out=$("$tilec" "${args[@]}" 2>&1); then
        ms=$(( ($(date +%s%N) - start) / 1000000 ))
        echo "[PASS] $(basename "$f") (${ms} ms)"
        echo "$out" | grep -E '^(check|time):' | sed 's/^/    /'
    else
        fail=$((fail + 1))
        echo "[FAIL] $(basename "$f"): tilec ${args[*]}"
        echo "$out" | sed 's/^/    /'
    fi
done
if [ "$count" -eq 0 ]; then
    echo "no samples found under $root/samples"
    exit 1
fi
echo "$count sample(s), $fail failure(s)"
[ "$fail" -eq 0 ]
