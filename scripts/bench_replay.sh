#!/usr/bin/env bash
# End-to-end replay against inspect on the same files, one core: issue 9's
# target is `replay --policy smith-staged --format json` in at most 1.2x
# the time of `inspect --format json` on a 200 MB synthetic smith corpus.
# Both commands load the same files the same way, so the ratio is what the
# replay, its metrics, invariants and output add to the load.
#
# Usage: scripts/bench_replay.sh          REPEAT=N (default 5) runs per command
# Needs go and /usr/bin/time (GNU time). The two commands alternate and the
# fastest run of each is kept, so a busy shared machine slows both alike;
# the CPU ratio (user+sys) is the steadier figure on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/calib-replay.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/calib" ./cmd/calib
go run scripts/gen_sessions.go "$tmp/c" 8 4000 >/dev/null
files=("$tmp"/c/*.jsonl)
echo "corpus: ${#files[@]} smith transcripts, $(du -sh "$tmp/c" | cut -f1)"
cat "${files[@]}" >/dev/null # warm the page cache

export GOMAXPROCS=1
best() { sort -g | head -1; }
for ((i = 0; i < ${REPEAT:-5}; i++)); do
	/usr/bin/time -f "%e %U %S" -a -o "$tmp/inspect" "$tmp/calib" inspect -q --format json "${files[@]}" >/dev/null
	/usr/bin/time -f "%e %U %S" -a -o "$tmp/replay" "$tmp/calib" replay -q --policy smith-staged --format json "${files[@]}" >/dev/null
done
for c in inspect replay; do
	awk '{print $1}' "$tmp/$c" | best >"$tmp/$c.wall"
	awk '{print $2+$3}' "$tmp/$c" | best >"$tmp/$c.cpu"
	printf '%-8s best wall %6.2f s   best cpu %6.2f s\n' "$c" "$(cat "$tmp/$c.wall")" "$(cat "$tmp/$c.cpu")"
done
awk -v r="$(cat "$tmp/replay.wall")" -v i="$(cat "$tmp/inspect.wall")" 'BEGIN{printf "replay / inspect, wall: %.2fx\n", r/i}'
awk -v r="$(cat "$tmp/replay.cpu")" -v i="$(cat "$tmp/inspect.cpu")" 'BEGIN{printf "replay / inspect, cpu:  %.2fx\n", r/i}'
