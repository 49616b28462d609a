#!/usr/bin/env bash
# CI's short libFuzzer runs (tests/fuzz/README.md). The whole core built with coverage and
# AddressSanitizer takes about 25 minutes on 2 cores, too long for CI, so:
#   ci_short_run.sh build BUILD_DIR
#     compiles with clang, coverage and ASan only the code each target is mostly about (the
#     front end and diagnostics; the worker's request loop and JSON checks) plus the three
#     targets, and links compile and worker against the ordinary build's libtileplay_core.a for
#     the rest (evaluator, passes, code generation, interpreter: uninstrumented, so a crash,
#     abort, internal error or hang there is caught but an ASan report or coverage is not).
#   ci_short_run.sh run BUILD_DIR parser|compile|worker SECONDS
#     fuzzes that target for SECONDS from the samples, tests/errors and its regression corpus.
# A finding fails the run and stays in BUILD_DIR/fuzz-ci/TARGET/findings: reproduce it with
# `BUILD_DIR/fuzz-ci/fuzz_TARGET FILE`, fix it and copy it into tests/fuzz/corpus/TARGET.
# Exits 77 (CTest's skip) with "[SKIP] ..." where clang cannot link libFuzzer.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?usage: ci_short_run.sh build BUILD_DIR | run BUILD_DIR TARGET SECONDS}
build=$(cd "${2:?missing BUILD_DIR}" && pwd)
out=$build/fuzz-ci
cxx=${TILEPLAY_FUZZ_CXX:-clang++}
flags=(-std=c++20 -O1 -gline-tables-only -fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer
    -I"$here/core" -I"$here/core/include" -DTILEPLAY_VERSION=\"ci-fuzz\" -DTILEPLAY_SOURCE_DIR=\"$here\")
front=("$here"/core/frontend/*.cpp "$here/core/diag/diagnostics.cpp" "$here/core/diag/source.cpp")
worker=("$here"/core/worker/{server,json_limits,reply_schema,worker_state}.cpp)

objects() {  # objects FILES...: the object names under $out/obj, one a line
    for f in "$@"; do echo "$out/obj/$(echo "${f#"$here"/}" | tr '/' '_').o"; done
}

build_all() {
    rm -rf "$out" && mkdir -p "$out/obj"  # no binary of an earlier build outlives a skip
    if ! command -v "$cxx" >/dev/null || ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
        "$cxx" -x c++ -fsanitize=fuzzer - -o "$out/probe" 2>/dev/null; then
        echo "[SKIP] no clang with libFuzzer ($cxx; scripts/setup installs clang and libclang-rt-dev)"
        exit 77
    fi
    local core=$build/core/libtileplay_core.a
    [ -f "$core" ] || { echo "ci_short_run: no $core; build $build first" >&2; exit 1; }
    local srcs=("${front[@]}" "${worker[@]}" "$here"/tests/fuzz/fuzz_{parser,compile,worker}.cpp)
    # Two compilers at a time: CI's machine has two cores and runs other tests beside this one.
    for f in "${srcs[@]}"; do printf '%s\0-o\0%s\0' "$f" "$(objects "$f")"; done |
        xargs -0 -n 3 -P 2 "$cxx" "${flags[@]}" -c
    mapfile -t fo < <(objects "${front[@]}")
    mapfile -t wo < <(objects "${worker[@]}")
    local link=("$cxx" -fsanitize=fuzzer,address)
    "${link[@]}" "${fo[@]}" "$(objects "$here/tests/fuzz/fuzz_parser.cpp")" -o "$out/fuzz_parser"
    "${link[@]}" "${fo[@]}" "$(objects "$here/tests/fuzz/fuzz_compile.cpp")" "$core" -lpthread -ldl -o "$out/fuzz_compile"
    "${link[@]}" "${fo[@]}" "${wo[@]}" "$(objects "$here/tests/fuzz/fuzz_worker.cpp")" "$core" -lpthread -ldl -o "$out/fuzz_worker"
    echo "ci_short_run: built $out/fuzz_{parser,compile,worker}"
}

run_one() {
    local target=${1:?missing TARGET} seconds=${2:?missing SECONDS}
    local bin=$out/fuzz_$target dir=$out/$target
    [ -x "$bin" ] || { echo "[SKIP] no $bin (the fuzz_short_build test skipped or failed)"; exit 77; }
    rm -rf "$dir" && mkdir -p "$dir/seeds" "$dir/corpus" "$dir/findings"
    local dict=$here/tests/fuzz/tilelang.dict
    if [ "$target" = worker ]; then
        cp "$here"/tests/fuzz/corpus/worker/* "$dir/seeds/"
        dict=$here/tests/fuzz/worker.dict
    else
        cp "$here"/samples/*.py "$here"/tests/errors/*.py "$here/tests/fuzz/corpus/$target"/* "$dir/seeds/"
    fi
    echo "ci_short_run: $target target, ${seconds}s from $(ls "$dir/seeds" | wc -l) seeds"
    set +e
    ASAN_OPTIONS=detect_leaks=0 "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
        -dict="$dict" -print_final_stats=1 -artifact_prefix="$dir/findings/" "$dir/corpus" "$dir/seeds" >"$dir/log" 2>&1
    local rc=$?
    set -e
    grep -E "INITED|DONE|stat::number_of_executed_units|stat::peak_rss|ERROR: |SUMMARY" "$dir/log" || true
    if [ $rc -ne 0 ] || [ -n "$(ls -A "$dir/findings")" ]; then
        echo "ci_short_run: FAILED (rc $rc); inputs in $dir/findings, log $dir/log"
        tail -40 "$dir/log"
        exit 1
    fi
    echo "ci_short_run: no findings"
}

case $mode in
build) build_all ;;
run) run_one "${3:-}" "${4:-}" ;;
*) echo "usage: ci_short_run.sh build BUILD_DIR | run BUILD_DIR TARGET SECONDS" >&2; exit 2 ;;
esac
