#!/usr/bin/env bash
# Sweep scaling, measured on the calib binary over synthetic smith sessions:
#   1. speed-up of --jobs 2 over --jobs 1 (32 sets over 30 MB; 64 sets over 126 MB);
#   2. peak memory of a 1,000-point sweep against a one-set sweep (and one
#      replay) of the corpus;
#   3. wall time of 1,000 parameter sets of smith-staged over 50 sessions of
#      2,000 messages (skip with QUICK=1).
# Usage: scripts/bench_sweep.sh      Needs go and /usr/bin/time (GNU time).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/calib-sweep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/calib" ./cmd/calib
go run scripts/gen_sessions.go "$tmp/c10" 10 2000
go run scripts/gen_sessions.go "$tmp/c50" 50 2000
echo "corpus: 10 sessions x 2,000 messages = $(du -sh "$tmp/c10" | cut -f1); 50 sessions = $(du -sh "$tmp/c50" | cut -f1)"

measure() { # label, command...: prints wall seconds and peak RSS
	local label=$1; shift
	/usr/bin/time -f "%e %M" -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	read -r secs kb <"$tmp/t"
	printf '%-44s %8.2f s %8.1f MB\n' "$label" "$secs" "$(awk -v k="$kb" 'BEGIN{print k/1024}')"
	echo "$secs $kb" >"$tmp/last"
}

# ~30 MB corpus, 32-set grid: the --jobs 2 / --jobs 1 target of issue 9.
go run scripts/gen_sessions.go "$tmp/c30" 8 600
grid32=(--grid compact_at=0.6..0.95:0.05 --grid window_turns=1..4)
measure "sweep 32 sets x 8 sessions (30 MB), --jobs 1" "$tmp/calib" sweep -q -p smith-staged "${grid32[@]}" --jobs 1 "$tmp/c30"
j1=$(cut -d' ' -f1 "$tmp/last")
measure "sweep 32 sets x 8 sessions (30 MB), --jobs 2" "$tmp/calib" sweep -q -p smith-staged "${grid32[@]}" --jobs 2 "$tmp/c30"
j2=$(cut -d' ' -f1 "$tmp/last")
echo "speed-up --jobs 2 / --jobs 1 (30 MB, 32 sets): $(awk -v a="$j1" -v b="$j2" 'BEGIN{printf "%.2fx", a/b}')"

grid64=(--grid compact_at=0.6..0.95:0.05 --grid window_turns=1..4 --grid old_result_bytes=512,2048)
measure "sweep 64 sets x 10 sessions, --jobs 1" "$tmp/calib" sweep -q -p smith-staged "${grid64[@]}" --jobs 1 "$tmp/c10"
j1=$(cut -d' ' -f1 "$tmp/last")
measure "sweep 64 sets x 10 sessions, --jobs 2" "$tmp/calib" sweep -q -p smith-staged "${grid64[@]}" --jobs 2 "$tmp/c10"
j2=$(cut -d' ' -f1 "$tmp/last")
echo "speed-up --jobs 2 / --jobs 1: $(awk -v a="$j1" -v b="$j2" 'BEGIN{printf "%.2fx", a/b}')"

# A replay streams the sessions (one file in flight per loader); a sweep
# keeps them all, since every set replays each. What must not grow with
# the grid is a sweep's memory against a one-set sweep of the same corpus.
measure "replay (one policy) of 10 sessions" "$tmp/calib" replay -q -p smith-staged --jobs 1 "$tmp/c10"
measure "sweep 1 set x 10 sessions, --jobs 1" "$tmp/calib" sweep -q -p smith-staged --grid compact_at=0.8 --jobs 1 "$tmp/c10"
r=$(cut -d' ' -f2 "$tmp/last")
grid1000=(--grid compact_at=0.6..0.95:0.05 --grid window_turns=1..5 --grid old_result_bytes=256,512,1024,2048,4096 --grid thinking_window=1..5)
measure "sweep 1,000 sets x 10 sessions, --jobs 1" "$tmp/calib" sweep -q -p smith-staged "${grid1000[@]}" --jobs 1 "$tmp/c10"
s=$(cut -d' ' -f2 "$tmp/last")
echo "peak RSS, 1,000-set sweep / one-set sweep: $(awk -v a="$s" -v b="$r" 'BEGIN{printf "%.2fx", a/b}')"

if [ "${QUICK:-0}" != 1 ]; then
	measure "sweep 1,000 sets x 50 sessions x 2,000 msgs" "$tmp/calib" sweep -q -p smith-staged "${grid1000[@]}" --jobs 2 "$tmp/c50"
fi
