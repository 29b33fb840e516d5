//go:build ignore

// gen_sessions writes N smith transcripts of M messages each (tool-heavy
// synthetic sessions) into DIR, for scripts/bench_sweep.sh. Excluded from go
// build/test by its build tag.
//
//	go run scripts/gen_sessions.go DIR N M
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: gen_sessions DIR SESSIONS MESSAGES")
		os.Exit(2)
	}
	dir := os.Args[1]
	n, err1 := strconv.Atoi(os.Args[2])
	m, err2 := strconv.Atoi(os.Args[3])
	if err1 != nil || err2 != nil || n < 1 || m < 1 {
		fmt.Fprintln(os.Stderr, "gen_sessions: SESSIONS and MESSAGES must be positive integers")
		os.Exit(2)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	p := synth.ToolHeavy
	p.Turns = 1
	for i := range n {
		var msgs []corpus.Message
		for seed := uint64(i * 1000); len(msgs) < m; seed++ {
			msgs = append(msgs, synth.Smith(p, seed)...)
		}
		msgs = msgs[:m]
		// End on a complete turn boundary is not needed: a transcript may
		// stop anywhere (smith's own log is a prefix of the run).
		path := filepath.Join(dir, fmt.Sprintf("s%03d.jsonl", i+1))
		if err := synth.WriteSmithTranscript(path, msgs); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
