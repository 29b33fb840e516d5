#!/usr/bin/env bash
# compare against one replay per policy, 2 jobs: issue 14's target is
# `calib compare` over 10 presets in less than 1.5x the time of the 10
# single-policy replays it stands for (each of which loads the corpus
# again), on a 200 MB synthetic smith corpus.
#
# Usage: scripts/bench_compare.sh   SESSIONS=N MESSAGES=M (default 8 4000:
# about 200 MB) REPEAT=N (default 1) runs of each command, fastest kept.
# Needs go and /usr/bin/time (GNU time). On a shared machine the CPU ratio
# (user+sys) is the steadier figure. Exit status 1 (an invariant violation
# reported: smith-legacy breaks 2 on this corpus) does not stop the run.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/calib-compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/calib" ./cmd/calib
go run scripts/gen_sessions.go "$tmp/c" "${SESSIONS:-8}" "${MESSAGES:-4000}" >/dev/null
files=("$tmp"/c/*.jsonl)
echo "corpus: ${#files[@]} smith transcripts, $(du -sh "$tmp/c" | cut -f1)"
cat "${files[@]}" >/dev/null # warm the page cache

policies=(smith-staged smith-legacy aider anthropic-context-editing cline gemini-cli goose opencode openhands swe-agent)
list=$(IFS=,; echo "${policies[*]}")
best() { sort -g | head -1; }
for ((i = 0; i < ${REPEAT:-1}; i++)); do
	/usr/bin/time -f "%e %U %S %M" -a -o "$tmp/compare" "$tmp/calib" compare -q -j 2 --policies "$list" --format json "${files[@]}" >/dev/null || [ $? -eq 1 ]
	for p in "${policies[@]}"; do
		/usr/bin/time -f "%e %U %S %M" -a -o "$tmp/replay-$p" "$tmp/calib" replay -q -j 2 --policy "$p" --format json "${files[@]}" >/dev/null || [ $? -eq 1 ]
	done
done
sum=0
sumc=0
for p in "${policies[@]}"; do
	w=$(grep '^[0-9]' "$tmp/replay-$p" | awk '{print $1}' | best)
	u=$(grep '^[0-9]' "$tmp/replay-$p" | awk '{print $2+$3}' | best)
	printf 'replay %-26s best wall %7.2f s   cpu %7.2f s\n' "$p" "$w" "$u"
	sum=$(awk -v a="$sum" -v b="$w" 'BEGIN{print a+b}')
	sumc=$(awk -v a="$sumc" -v b="$u" 'BEGIN{print a+b}')
done
c=$(grep '^[0-9]' "$tmp/compare" | awk '{print $1}' | best)
cc=$(grep '^[0-9]' "$tmp/compare" | awk '{print $2+$3}' | best)
m=$(grep '^[0-9]' "$tmp/compare" | awk '{print $4}' | sort -g | head -1)
printf 'sum of the 10 replays             wall %7.2f s   cpu %7.2f s\n' "$sum" "$sumc"
printf 'compare (10 policies)             wall %7.2f s   cpu %7.2f s   max RSS %d MB\n' "$c" "$cc" $((m / 1024))
awk -v c="$c" -v s="$sum" -v cc="$cc" -v sc="$sumc" 'BEGIN{printf "compare / sum of replays: wall %.2fx, cpu %.2fx (target < 1.5x)\n", c/s, cc/sc}'
