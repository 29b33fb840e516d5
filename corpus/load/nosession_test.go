package load_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

// A log in which no line gave a message and some line was damaged is an
// error naming the file, not a session of 0 messages; its damaged lines
// come back as warnings. One good line, or a log of only metadata lines
// with nothing damaged, still loads.
func TestNoSessionFromDamagedLines(t *testing.T) {
	good := `{"role":"user","content":[{"type":"text","text":"hi"}]}`
	for _, tc := range []struct {
		name, content string
		sessions      int
		warnings      int // *corpus.FileWarning returned
		fails         bool
	}{
		{"smith, every line damaged", `{"role":"user","content":"x"}` + "\n" + `{"role":"user", bad` + "\n", 0, 2, true},
		{"claude code, every line damaged", `{"parentUuid":null,"sessionId":"s1", bad` + "\n" + `{"parentUuid":null,"sessionId":"s1","type":"user","message":5}` + "\n", 0, 2, true},
		{"codex, every line damaged", `{"type":"session_meta","payload": bad` + "\n" + `{"type":"response_item","payload":5}` + "\n", 0, 2, true},
		{"one good line", good + "\n" + `{"role":"user", bad` + "\n", 1, 0, false},
		{"claude code, metadata only", `{"type":"summary","summary":"s","leafUuid":"u1"}` + "\n", 1, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "x.jsonl", tc.content)
			ss, err := load.Load([]string{p}, corpus.Options{})
			var fe *corpus.FileError
			if got := errors.As(err, &fe); got != tc.fails || got && (fe.Path != p || !strings.Contains(fe.Err.Error(), "no session: no line gave a message")) {
				t.Fatalf("error %v, want failure %v", err, tc.fails)
			}
			warnings := 0
			for _, e := range splitJoined(err) {
				if w, ok := e.(*corpus.FileWarning); ok && w.Path == p && w.Line > 0 {
					warnings++
				}
			}
			if len(ss) != tc.sessions || warnings != tc.warnings {
				t.Errorf("%d sessions and %d line warnings, want %d and %d", len(ss), warnings, tc.sessions, tc.warnings)
			}
		})
	}
}

func splitJoined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, splitJoined(e)...)
		}
		return out
	}
	if err == nil {
		return nil
	}
	return []error{err}
}
