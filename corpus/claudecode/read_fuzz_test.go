package claudecode_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/claudecode"
)

// FuzzClaudeCodeRead feeds the whole-log reader any bytes (its line
// scanner is checked against encoding/json by FuzzCCDecodeLine). On any
// input it must never panic or fail the file, and point every warning and
// message at a line of the input; every session it returns is a Claude
// Code session. Its seeds (the fixtures, each cut in half) run in every
// `go test`.
func FuzzClaudeCodeRead(f *testing.F) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, p := range fixtures {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ss, err := claudecode.Read("f.jsonl", bytes.NewReader(b), corpus.Options{})
		if err != nil {
			t.Fatalf("read failed: %v", err)
		}
		n := bytes.Count(b, []byte("\n")) + 1
		for _, s := range ss {
			if s.Format != corpus.FormatClaudeCode {
				t.Errorf("session %s has format %s", s.ID, s.Format)
			}
			for _, w := range s.Warnings {
				if w.File != "f.jsonl" || w.Line < 0 || w.Line > n {
					t.Errorf("warning %+v points outside the %d-line input", w, n)
				}
			}
			for _, m := range s.Messages {
				if m.Line < 1 || m.Line > n {
					t.Errorf("message %s at line %d of %d", m.ID, m.Line, n)
				}
			}
		}
	})
}
