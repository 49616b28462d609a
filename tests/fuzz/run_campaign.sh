#!/usr/bin/env bash
# One libFuzzer campaign on a target of the fuzz build (tests/fuzz/README.md):
#   tests/fuzz/run_campaign.sh TARGET SECONDS [libFuzzer flags...]
# TARGET is parser, compile or worker. The corpus grows in build-fuzz/corpus/TARGET (seeded
# from build-fuzz/seeds/TARGET, see seed_corpus.sh); crashes, timeouts and leaks go to
# build-fuzz/findings/TARGET; the log to build-fuzz/logs/TARGET-<time>.log. Fork mode keeps
# the campaign going after a finding, so one run reports all it finds.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${TILEPLAY_FUZZ_BUILD:-$here/build-fuzz}
target=${1:?usage: run_campaign.sh parser|compile|worker SECONDS [libFuzzer flags...]}
seconds=${2:?usage: run_campaign.sh parser|compile|worker SECONDS [libFuzzer flags...]}
shift 2
bin=$build/tests/tileplay_fuzz_$target
[ -x "$bin" ] || { echo "run_campaign: no $bin; build it: cmake --preset fuzz && ninja -C build-fuzz tileplay_fuzz_$target" >&2; exit 1; }
[ -d "$build/seeds/$target" ] || "$here/tests/fuzz/seed_corpus.sh" "$build/seeds"
corpus=$build/corpus/$target findings=$build/findings/$target logs=$build/logs
mkdir -p "$corpus" "$findings" "$logs"
dict=()
[ "$target" != worker ] && dict=(-dict="$here/tests/fuzz/tilelang.dict")
[ "$target" = worker ] && dict=(-dict="$here/tests/fuzz/worker.dict")
log=$logs/$target-$(date -u +%Y%m%dT%H%M%S).log
echo "run_campaign: $target for ${seconds}s, log $log"
# A kernel compile is bounded by the trace step budget and the size limits; 20 s is a hang.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1} \
    "$bin" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$seconds" \
    -timeout=20 -rss_limit_mb=3072 -max_len=65536 -print_final_stats=1 "${dict[@]}" \
    -artifact_prefix="$findings/" "$@" "$corpus" "$build/seeds/$target" 2>&1 | tee "$log" | grep -E "INITED|DONE|deadly signal|ERROR: |SUMMARY" || true
echo "run_campaign: last status: $(grep -E '^#[0-9]+' "$log" | tail -1)"
echo "run_campaign: findings in $findings: $(ls "$findings" | wc -l)"
