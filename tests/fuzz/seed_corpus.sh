#!/usr/bin/env bash
# Builds the starting corpora of a fuzz campaign in OUT (default build-fuzz/seeds):
#   OUT/parser, OUT/compile: the samples, tests/errors, tests/frontend, the regression
#     corpora, and every .py under TileLang's examples/ when its mirror is there;
#   OUT/worker: the worker regression corpus (JSON lines).
# TileLang's examples are read from the bare mirror with `git archive` into OUT only; they
# are never copied into this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$here/build-fuzz/seeds}
mirror=${TILELANG_MIRROR:-/work/.mirror/tile-ai+tilelang/repo}
mkdir -p "$out/parser" "$out/compile" "$out/worker"

copy_py() {  # copy_py DEST FILES... (flattened names: dir_sub_file.py)
    local dest=$1; shift
    for f in "$@"; do
        [ -f "$f" ] || continue
        cp "$f" "$dest/$(echo "${f#"$here"/}" | tr '/' '_')"
    done
}
for d in parser compile; do
    copy_py "$out/$d" "$here"/samples/*.py "$here"/tests/errors/*.py "$here"/tests/frontend/*.py
    cp "$here"/tests/fuzz/corpus/parser/* "$here"/tests/fuzz/corpus/compile/* "$out/$d/" 2>/dev/null || true
done
cp "$here"/tests/fuzz/corpus/worker/* "$out/worker/"

if git --git-dir="$mirror" rev-parse HEAD >/dev/null 2>&1; then
    tmp=$(mktemp -d)
    git --git-dir="$mirror" archive HEAD examples | tar -x -C "$tmp"
    mapfile -t examples < <(find "$tmp/examples" -name '*.py' -size -200k)
    for f in "${examples[@]}"; do
        name="tilelang_$(echo "${f#"$tmp"/examples/}" | tr '/' '_')"
        cp "$f" "$out/parser/$name"
        cp "$f" "$out/compile/$name"
    done
    echo "seed_corpus: ${#examples[@]} TileLang examples from $mirror ($(git --git-dir="$mirror" rev-parse --short HEAD))"
    rm -rf "$tmp"
else
    echo "seed_corpus: no TileLang mirror at $mirror; seeds from this repository only" >&2
fi
for d in parser compile worker; do echo "seed_corpus: $out/$d: $(ls "$out/$d" | wc -l) files"; done
