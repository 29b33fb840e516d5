package codex_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/codex"
)

// FuzzCodexRead feeds the rollout reader any bytes (its line decoder is
// checked against encoding/json by FuzzDecodeLine): on any input it must
// never panic or fail the file, return one codex session, and point every
// warning and message at a line of the input.
// Its seeds (the fixture, its lines damaged) run in every `go test`.
func FuzzCodexRead(f *testing.F) {
	fixture, err := os.ReadFile(filepath.Join("testdata", "rollout-2026-01-05T09-00-00-019c0000-aaaa-7bbb-8ccc-000000000001.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fixture)
	lines := bytes.Split(fixture, []byte("\n"))
	for i := range lines {
		damaged := bytes.Join(append(append([][]byte{}, lines[:i]...), append([][]byte{lines[i][:len(lines[i])/2]}, lines[i+1:]...)...), []byte("\n"))
		f.Add(damaged)
	}
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call_output","call_id":"x","output":5}}`))
	f.Add([]byte(`{"type":"compacted","payload":{"message":null}}` + "\n" + `{"type":"mystery","payload":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ss, err := codex.Read("f.jsonl", bytes.NewReader(b), corpus.Options{})
		if err != nil {
			t.Fatalf("read failed: %v", err)
		}
		if len(ss) != 1 || ss[0].Format != corpus.FormatCodex {
			t.Fatalf("got %d sessions, want one codex session", len(ss))
		}
		n := bytes.Count(b, []byte("\n")) + 1
		for _, w := range ss[0].Warnings {
			if w.File != "f.jsonl" || w.Line < 0 || w.Line > n {
				t.Errorf("warning %+v points outside the %d-line input", w, n)
			}
		}
		for _, m := range ss[0].Messages {
			if m.Line < 1 || m.Line > n {
				t.Errorf("message %s at line %d of %d", m.ID, m.Line, n)
			}
		}
	})
}
