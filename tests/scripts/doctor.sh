#!/usr/bin/env bash
# `tilec doctor` exits 0 with or without a GPU, reports every item as ok or missing, and says
# "no CUDA device" clearly where there is none. `tilec bench` then says the same and exits 0.
set -u
tilec=$1
out=$("$tilec" doctor --no-torch) || { echo "doctor exited $?"; exit 1; }
echo "$out"
for item in driver toolkit nvrtc cublas nvdisasm; do
    echo "$out" | grep -Eq "^$item +(ok|missing) " || { echo "FAIL: no line for $item"; exit 1; }
done
if echo "$out" | grep -Eq '^gpu +missing'; then
    echo "$out" | grep -q 'no CUDA device' || { echo "FAIL: no 'no CUDA device' message"; exit 1; }
    bench=$("$tilec" bench "$2/samples/vector_add.py") || { echo "FAIL: bench without a GPU exited $?"; exit 1; }
    echo "$bench" | grep -q '^no CUDA device' || { echo "FAIL: bench said: $bench"; exit 1; }
fi
"$tilec" doctor --json --no-torch | python3 -c 'import json,sys; d=json.load(sys.stdin); assert all({"item","ok","text"} <= set(x) for x in d)' \
    || { echo "FAIL: doctor --json"; exit 1; }
echo PASS
