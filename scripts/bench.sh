#!/usr/bin/env bash
# Loading speed of smith transcripts: calib's load.Load (corpus/load) against a plain
# Python json.loads-per-line loop over the same synthetic tool-heavy files,
# side by side in one run, at 50, 200 and 500 MB, with peak memory.
#
# Usage: scripts/bench.sh [SIZES_MB...]     (default: 50 200 500)
#        REPEAT=N scripts/bench.sh            (runs per loader and size, best kept; default 3)
# Needs: go, python3; uses /usr/bin/time for peak RSS when present.
# Each load runs in its own process, one at a time (one core each); the two
# loaders alternate, so a busy machine slows both alike, and the fastest of
# REPEAT runs is reported (peak RSS is the largest seen).
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(50 200 500)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/calib-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/bench_load" scripts/bench_load.go
timev=()
[ -x /usr/bin/time ] && timev=(/usr/bin/time -f 'peak RSS %M KB cpu %U %S')

# MB/s is wall clock; cpu_MB/s divides by the process's user+sys CPU time,
# which is what a busy (shared) machine does not distort.
printf '%-6s %-8s %10s %10s %10s %12s %10s\n' size loader MB/s cpu_MB/s seconds peak_RSS_MB RSS/input
for mb in "${sizes[@]}"; do
	dir="$tmp/set-$mb"
	"$tmp/bench_load" gen "$dir" "$mb" >/dev/null
	files=("$dir"/*.jsonl)
	bytes=$(cat "${files[@]}" | wc -c)
	cat "${files[@]}" >/dev/null # warm the page cache for both loaders
	declare -A best_secs best_rate best_rss best_cpu
	for ((run = 0; run < ${REPEAT:-3}; run++)); do
		for loader in python go; do
			if [ "$loader" = python ]; then
				cmd=(python3 scripts/jsonl_baseline.py "${files[@]}")
			else
				cmd=("$tmp/bench_load" load "${files[@]}")
			fi
			out=$("${timev[@]}" "${cmd[@]}" 2>"$tmp/err") || { cat "$tmp/err" >&2; exit 1; }
			secs=$(sed -n 's/.* \([0-9.]*\) s, .*/\1/p' <<<"$out")
			rate=$(sed -n 's/.* s, \([0-9.]*\) MB\/s.*/\1/p' <<<"$out")
			rss=$(sed -n 's/peak RSS \([0-9]*\) KB.*/\1/p' "$tmp/err")
			cpu=$(sed -n 's/.* cpu \([0-9.]*\) \([0-9.]*\)$/\1 \2/p' "$tmp/err" | awk -v b="$bytes" '{ if ($1+$2 > 0) printf "%.1f", b/($1+$2)/1e6 }')
			if [ -n "$cpu" ] && awk -v a="$cpu" -v b="${best_cpu[$loader]:-0}" 'BEGIN{exit !(a>b)}'; then
				best_cpu[$loader]=$cpu
			fi
			if [ -z "${best_secs[$loader]:-}" ] || awk -v a="$secs" -v b="${best_secs[$loader]}" 'BEGIN{exit !(a<b)}'; then
				best_secs[$loader]=$secs
				best_rate[$loader]=$rate
			fi
			if [ -n "$rss" ] && [ "$rss" -gt "${best_rss[$loader]:-0}" ]; then
				best_rss[$loader]=$rss
			fi
		done
	done
	for loader in python go; do
		rss=${best_rss[$loader]:-}
		if [ -n "$rss" ]; then
			rssmb=$(awk -v k="$rss" 'BEGIN{printf "%.0f", k*1024/1e6}')
			ratio=$(awk -v k="$rss" -v b="$bytes" 'BEGIN{printf "%.2f", k*1024/b}')
		else
			rssmb="-"
			ratio="-"
		fi
		printf '%-6s %-8s %10s %10s %10s %12s %10s\n' "${mb}MB" "$loader" "${best_rate[$loader]}" "${best_cpu[$loader]:--}" "${best_secs[$loader]}" "$rssmb" "$ratio"
	done
	py=${best_rate[python]}
	rate=${best_rate[go]}
	pycpu=${best_cpu[python]:-}
	gocpu=${best_cpu[go]:-}
	unset best_secs best_rate best_rss best_cpu
	printf '%-6s %-8s %10s %10s\n' "" "go/py" "$(awk -v g="$rate" -v p="$py" 'BEGIN{printf "%.2fx", g/p}')" \
		"$(awk -v g="$gocpu" -v p="$pycpu" 'BEGIN{if (p > 0) printf "%.2fx", g/p; else print "-"}')"
	rm -rf "$dir"
done
