#!/usr/bin/env bash
# The module cache keys on the embedded runtime headers' digest (cmake/embed_files.cmake), so
# the digest must change whenever a header's text or name does, or a stale module would be
# served for changed headers. Embeds a scratch folder of headers, edits it, embeds it again.
set -euo pipefail
root=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/rt"
digest() {
    cmake -DOUT="$work/out.cpp" -DDIR="$work/rt" -P "$root/cmake/embed_files.cmake"
    grep -o 'digest() { return "[0-9a-f]*"' "$work/out.cpp" | grep -o '[0-9a-f]\{32\}'
}
printf '#pragma once\nint a;\n' > "$work/rt/tp_a.cuh"
printf '// b; with a semicolon\n' > "$work/rt/tp_b.cuh"
d1=$(digest)
d1again=$(digest)
printf '#pragma once\nint a ;\n' > "$work/rt/tp_a.cuh"
d2=$(digest)
mv "$work/rt/tp_b.cuh" "$work/rt/tp_c.cuh"
d3=$(digest)
echo "digests: $d1 $d2 $d3"
[[ ${#d1} -eq 32 ]] || { echo "FAIL: no 32-digit digest"; exit 1; }
[[ "$d1" == "$d1again" ]] || { echo "FAIL: the same headers gave two digests"; exit 1; }
[[ "$d1" != "$d2" ]] || { echo "FAIL: an edited header kept the digest"; exit 1; }
[[ "$d2" != "$d3" ]] || { echo "FAIL: a renamed header kept the digest"; exit 1; }
grep -q 'R"tp_embed(// b; with a semicolon' "$work/out.cpp" || { echo "FAIL: a header's text was not embedded whole"; exit 1; }
echo "1 passed, 0 failed"
