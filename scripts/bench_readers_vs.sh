#!/usr/bin/env bash
# Loading speed of the Gemini CLI and opencode readers, this tree against an
# earlier commit, in one run: BenchmarkLoadGemini and BenchmarkLoadOpencode
# (a 64 MB synthetic chat and database) from each tree's test binary, on one
# core, alternating old and new ROUNDS times so that a busy (shared) machine
# slows both alike. MB/cpu-s (CPU time per byte) is the figure to compare.
#
# Usage: scripts/bench_readers_vs.sh OLD_REF      (e.g. a commit before a change)
#        ROUNDS=N BENCHTIME=Nx scripts/bench_readers_vs.sh OLD_REF   (defaults 3, 3x)
set -euo pipefail
cd "$(dirname "$0")/.."
old_ref=${1:?usage: scripts/bench_readers_vs.sh OLD_REF}
rounds=${ROUNDS:-3}
benchtime=${BENCHTIME:-3x}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/calib-readers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/old"
git archive "$old_ref" | tar -x -C "$tmp/old"
for pkg in gemini opencode; do
	(cd "$tmp/old" && go test -c -o "$tmp/old-$pkg.test" "./corpus/$pkg")
	go test -c -o "$tmp/new-$pkg.test" "./corpus/$pkg"
done
for round in $(seq "$rounds"); do
	for pkg in gemini opencode; do
		bench='BenchmarkLoadGemini$'
		[ "$pkg" = opencode ] && bench='BenchmarkLoadOpencode$'
		for tree in old new; do
			# Run from the package folder, as go test does (testdata paths).
			(cd "corpus/$pkg" && "$tmp/$tree-$pkg.test" -test.run '^$' -test.bench "$bench" \
				-test.benchtime "$benchtime" -test.cpu 1 -test.count 1) |
				awk -v t="$tree" -v r="$round" '/^Benchmark/ {print "round " r " " t ": " $0}'
		done
	done
done
