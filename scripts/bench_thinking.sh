#!/usr/bin/env bash
# anthropic-context-editing end to end on long sessions (README, Speed: the
# clear-thinking stage): one synthetic Claude Code session of tiny messages
# per size (LINES lines, alternating user and assistant text of a few
# characters, no tool results), `replay -p anthropic-context-editing
# --format json` with the build of BASE (before) and of the working tree
# (after), alternating, one core. Prints the median wall and CPU (user+sys)
# seconds of each build, and fails unless both wrote the same bytes.
# SHAPE=thinking gives every reply a thinking block before its text and
# makes 24 of every 25 user lines the agent's own (isMeta): real turns of
# 25 steps, whose thinking the stage drops at the next; SHAPE=one-turn makes
# every user line but the first the agent's own: one real turn, whose
# thinking stays. SHAPE=results puts RESULTS tool steps (a Bash call and its
# result of RESULT_CHARS characters) right after the first user line, then
# plain lines: with PRESET=gemini-cli, RESULTS=7 RESULT_CHARS=36000 and with
# PRESET=swe-agent, RESULTS=7 RESULT_CHARS=2, the clear stage's blind spots
# (README, Speed: the clear stage's result marks).
#
# Usage: scripts/bench_thinking.sh [LINES...]   (default: 25000 50000)
#   BASE=commit (default 0fa68c6, the tree before the thinking sum),
#   PRESET=name (default anthropic-context-editing), REPEAT=N (default 3),
#   SHAPE=plain|thinking|one-turn|results (default plain),
#   RESULTS=N (default 7), RESULT_CHARS=N (default 2).
# Needs go, git and /usr/bin/time (GNU time).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/calib-thinking.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(25000 50000)
base=${BASE:-0fa68c6}
preset=${PRESET:-anthropic-context-editing}
shape=${SHAPE:-plain}
case $shape in plain | thinking | one-turn | results) ;; *)
	echo "SHAPE=$shape: want plain, thinking, one-turn or results" >&2
	exit 2
	;;
esac

mkdir "$tmp/base"
git archive "$base" | tar -x -C "$tmp/base"
(cd "$tmp/base" && go build -o "$tmp/before" ./cmd/calib)
go build -o "$tmp/after" ./cmd/calib

# session LINES FILE: Claude Code lines of a user turn and a one-word reply
# (with SHAPE's thinking and agent's own user lines).
session() {
	awk -v n="$1" -v shape="$shape" -v results="${RESULTS:-7}" -v rchars="${RESULT_CHARS:-2}" 'BEGIN {
		prev = "null"
		out = ""
		for (k = 0; k < rchars; k++)
			out = out "x"
		for (i = 0; i < n; i++) {
			id = sprintf("m%06d", i)
			ts = sprintf("2026-02-01T%02d:%02d:%02d.000Z", int(i / 3600) % 24, int(i / 60) % 60, i % 60)
			common = sprintf("\"parentUuid\":%s,\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/w\",\"sessionId\":\"s1\",\"version\":\"2.1.22\",\"uuid\":\"%s\",\"timestamp\":\"%s\"", prev, id, ts)
			meta = (shape == "thinking" && i % 50 != 0) || (shape == "one-turn" && i > 0) ? ",\"isMeta\":true" : ""
			think = shape == "thinking" || shape == "one-turn" ? sprintf("{\"type\":\"thinking\",\"thinking\":\"think %d\",\"signature\":\"sig\"},", i) : ""
			if (shape == "results" && i >= 1 && i <= 2 * results && i % 2 == 1)
				printf "{%s,\"type\":\"assistant\",\"message\":{\"model\":\"claude-opus-4-5-20251101\",\"id\":\"msg_%d\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":\"Bash\",\"input\":{\"command\":\"ls\"}}],\"stop_reason\":\"tool_use\"}}\n", common, i, i
			else if (shape == "results" && i >= 1 && i <= 2 * results)
				printf "{%s,\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_%d\",\"content\":\"%s\"}]}}\n", common, i - 1, out
			else if (i % 2 == 0)
				printf "{%s%s,\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"turn %d\"}}\n", common, meta, i
			else
				printf "{%s,\"type\":\"assistant\",\"message\":{\"model\":\"claude-opus-4-5-20251101\",\"id\":\"msg_%d\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[%s{\"type\":\"text\",\"text\":\"ok %d\"}],\"stop_reason\":null}}\n", common, i, think, i
			prev = "\"" id "\""
		}
	}' >"$2"
}

export GOMAXPROCS=1
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for n in "${sizes[@]}"; do
	f="$tmp/s$n.jsonl"
	session "$n" "$f"
	for ((i = 0; i < ${REPEAT:-3}; i++)); do
		for b in before after; do
			/usr/bin/time -f "%e %U %S" -a -o "$tmp/$b.$n" "$tmp/$b" replay -q -p "$preset" --format json "$f" >"$tmp/$b.out"
		done
		cmp -s "$tmp/before.out" "$tmp/after.out" || { echo "$n lines: the two builds wrote different output" >&2; exit 1; }
	done
	for b in before after; do
		printf '%6d lines  %-6s  median wall %6.2f s  cpu %6.2f s\n' "$n" "$b" \
			"$(awk '{print $1}' "$tmp/$b.$n" | median)" "$(awk '{print $2 + $3}' "$tmp/$b.$n" | median)"
	done
done
