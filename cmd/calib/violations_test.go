package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
)

// violatingTranscript writes the first 1,400 messages of the tool-heavy
// transcript scripts/gen_sessions.go writes, on which smith-legacy breaks
// an invariant: at request 615 a cut result plus smith's marker grows the
// history from 120,224 to 120,239 tokens (smith's behaviour, which the
// replay reports; the README gives these figures for the 4,000-message
// transcript, of which this is the start).
func violatingTranscript(t *testing.T) string {
	t.Helper()
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
	return path
}

// TestCompareAnnotatesViolations: compare exits 1 when a policy broke an
// invariant, and under --format github says so with an ::error, as replay
// does (it exited 1 with no annotation).
func TestCompareAnnotatesViolations(t *testing.T) {
	path := violatingTranscript(t)
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

// TestSweepAnnotatesViolations: a sweep, and the merge of its rows, say
// which set broke an invariant on which session and the command that
// shows it, on standard error and with a ::warning per such row under
// --format github, and exit 0 (the violations column is the finding;
// both said nothing before). Only max_tokens=120000 breaks one on this
// transcript (with result_bytes=1999 too, at request 615: 120,181 to
// 120,195 tokens); the command named carries the fixed --set as well.
// --quiet hides the line, as it hides every warning.
func TestSweepAnnotatesViolations(t *testing.T) {
	path := violatingTranscript(t)
	shard := filepath.Join(t.TempDir(), "rows.jsonl")
	code, out, errOut := runCalib(t, "sweep", path, "-p", "smith-legacy", "--grid", "max_tokens=120000,200000",
		"--set", "result_bytes=1999", "--format", "github", "--out", shard)
	replay := "calib replay --policy smith-legacy --set result_bytes=1999,max_tokens=120000 "
	wantErr := "calib: warning: 1 invariant violation(s) in 1 of 2 set(s) (the violations column); first: set 0 on session s001; " + replay + path + " shows them\n"
	wantNotes := []string{"::warning file=" + path + ",title=invariant violations::set 0 (max_tokens=120000) broke 1 invariant(s) on session s001; " +
		replay + path + " shows them"}
	if code != 0 || !strings.HasSuffix(errOut, wantErr) || !slices.Equal(violationNotes(out), wantNotes) {
		t.Errorf("sweep: exit %d, stderr %q, notes %q; want 0, ...%q, %q", code, errOut, violationNotes(out), wantErr, wantNotes)
	}
	code, out, errOut = runCalib(t, "merge", shard, "--format", "github")
	wantErr = "calib: warning: 1 invariant violation(s) in 1 of 2 set(s) (the violations column); first: set 0 on session s001; " + replay + "FILE shows them\n"
	wantNotes = []string{"::warning title=invariant violations::set 0 (max_tokens=120000) broke 1 invariant(s) on session s001; " + replay + "FILE shows them"}
	if code != 0 || errOut != wantErr || !slices.Equal(violationNotes(out), wantNotes) {
		t.Errorf("merge: exit %d, stderr %q, notes %q; want 0, %q, %q", code, errOut, violationNotes(out), wantErr, wantNotes)
	}
	if code, _, errOut = runCalib(t, "merge", shard, "-q"); code != 0 || errOut != "" {
		t.Errorf("merge -q: exit %d, stderr %q; want 0 and nothing", code, errOut)
	}
}

// violationNotes are out's annotations about invariants.
func violationNotes(out string) []string {
	var ls []string
	for _, l := range annotationLines(out) {
		if strings.Contains(l, "title=invariant violations::") {
			ls = append(ls, l)
		}
	}
	return ls
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

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/a/s001.jsonl": "/tmp/a/s001.jsonl",
		"k=v,k2=0.5":        "k=v,k2=0.5",
		"my logs/s.jsonl":   "'my logs/s.jsonl'",
		"it's.jsonl":        `'it'\''s.jsonl'`,
		"stub=[cleared]":    "'stub=[cleared]'",
		"":                  "''",
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %q; want %q", in, got, want)
		}
	}
}
