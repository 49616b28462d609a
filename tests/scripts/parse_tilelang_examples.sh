#!/usr/bin/env bash
# Every .py file in TileLang's examples/ must parse with no diagnostics and, where python3
# parses it, give exactly CPython's ast.dump. SOURCE is an examples directory, a TileLang
# checkout, or a bare git repository (its HEAD:examples is extracted to a temporary
# directory and removed afterwards; TileLang's files never enter this tree).
# usage: parse_tilelang_examples.sh SOURCE UNIT_TEST_BINARY
set -euo pipefail
src="${1:-}"
bin="${2:-}"
if [[ -z "$bin" || ! -x "$bin" ]]; then
    echo "usage: $0 SOURCE UNIT_TEST_BINARY" >&2
    exit 2
fi

dir=""
tmp=""
if [[ -n "$src" && -d "$src/examples" ]]; then
    dir="$src/examples"
elif [[ -n "$src" && -d "$src" ]] && git -C "$src" rev-parse --is-bare-repository 2>/dev/null | grep -q true; then
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    if git -C "$src" archive HEAD examples 2>/dev/null | tar -x -C "$tmp"; then
        dir="$tmp/examples"
    fi
elif [[ -n "$src" && -d "$src" ]]; then
    dir="$src"
fi
if [[ -z "$dir" || ! -d "$dir" ]]; then
    echo "[SKIP] no TileLang examples at ${src:-<unset>}"
    exit 0
fi

count=$(find "$dir" -name '*.py' | wc -l)
echo "checking $count TileLang example files under $dir"
TILEPLAY_TILELANG_EXAMPLES="$dir" "$bin" --gtest_filter='ParserOracle.TileLangExamplesMatchCPython' --gtest_brief=1
