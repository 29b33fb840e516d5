package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
)

// TestCompareAnnotatesViolations: compare exits 1 when a policy broke an
// invariant, and under --format github says so with an ::error, as replay
// does (it exited 1 with no annotation). smith-legacy breaks one on the
// first 1,400 messages of the tool-heavy transcript scripts/gen_sessions.go
// writes: at request 615 a cut result plus smith's marker grows the
// history from 120,224 to 120,239 tokens (smith's behaviour, which the
// replay reports; the README gives these figures for the 4,000-message
// transcript, of which this is the start).
func TestCompareAnnotatesViolations(t *testing.T) {
	p := synth.ToolHeavy
	p.Turns = 1
	var msgs []corpus.Message
	for seed := uint64(0); len(msgs) < 1400; seed++ {
		msgs = append(msgs, synth.Smith(p, seed)...)
	}
	path := filepath.Join(t.TempDir(), "s001.jsonl")
	if err := synth.WriteSmithTranscript(path, msgs[:1400]); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCalib(t, "compare", path, "--policies", "smith-legacy", "--format", "github", "-q")
	want := "::error title=invariant violations::smith-legacy broke 1 invariant(s); calib replay --policy smith-legacy on the sessions shows them\n"
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(errOut, "calib: 1 invariant violation(s)") {
		t.Errorf("exit %d, stdout annotations %q, stderr %q; want 1, %q", code, annotationLines(out), errOut, want)
	}
	code, _, errOut = runCalib(t, "replay", path, "-p", "smith-legacy", "-q")
	if want := "request 615: grew-the-history: compaction went from 120224 to 120239 tokens"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("replay: exit %d, stderr %q; want 1 and %q", code, errOut, want)
	}
}

func annotationLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "::") {
			ls = append(ls, l)
		}
	}
	return ls
}
