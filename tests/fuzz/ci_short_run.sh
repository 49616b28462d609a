#!/usr/bin/env bash
# CI's short libFuzzer run (tests/fuzz/README.md): the parser target, its front end built with
# clang's coverage and AddressSanitizer instrumentation (about 35 s on 2 cores: the whole
# instrumented core takes hours, which is why the long campaigns run by hand), fuzzed for
# SECONDS from the samples, tests/errors and the regression corpus. A crash, a sanitizer report
# or a hang fails the test and leaves the input under BUILD/fuzz-ci/findings, to reproduce with
# `BUILD/fuzz-ci/fuzz_parser FILE` and copy into tests/fuzz/corpus/parser once fixed.
#   tests/fuzz/ci_short_run.sh BUILD_DIR SECONDS
# Exits 77 (CTest's skip) with "[SKIP] ..." where clang cannot link libFuzzer.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: ci_short_run.sh BUILD_DIR SECONDS}
seconds=${2:?usage: ci_short_run.sh BUILD_DIR SECONDS}
out=$build/fuzz-ci
mkdir -p "$out"
cxx=${TILEPLAY_FUZZ_CXX:-clang++}
if ! command -v "$cxx" >/dev/null || ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
    "$cxx" -x c++ -fsanitize=fuzzer - -o "$out/probe" 2>/dev/null; then
    echo "[SKIP] no clang with libFuzzer ($cxx; scripts/setup installs clang and libclang-rt-dev)"
    exit 77
fi
srcs=("$here"/core/frontend/*.cpp "$here/core/diag/diagnostics.cpp" "$here/core/diag/source.cpp" "$here/tests/fuzz/fuzz_parser.cpp")
"$cxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address -I"$here/core" -I"$here/core/include" \
    "${srcs[@]}" -o "$out/fuzz_parser"
seeds=$out/seeds corpus=$out/corpus findings=$out/findings
rm -rf "$seeds" "$corpus" "$findings"
mkdir -p "$seeds" "$corpus" "$findings"
cp "$here"/samples/*.py "$here"/tests/errors/*.py "$here"/tests/fuzz/corpus/parser/* "$seeds/" 2>/dev/null || true
echo "ci_short_run: parser target, ${seconds}s from $(ls "$seeds" | wc -l) seeds"
set +e
ASAN_OPTIONS=detect_leaks=0 "$out/fuzz_parser" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -dict="$here/tests/fuzz/tilelang.dict" -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "$seeds" > "$out/log" 2>&1
rc=$?
set -e
grep -E "INITED|DONE|stat::number_of_executed_units|stat::peak_rss|ERROR: |SUMMARY" "$out/log" || true
if [ $rc -ne 0 ] || [ -n "$(ls -A "$findings")" ]; then
    echo "ci_short_run: FAILED (rc $rc); inputs in $findings, log $out/log"
    tail -40 "$out/log"
    exit 1
fi
echo "ci_short_run: no findings"
