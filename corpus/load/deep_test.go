package load_test

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/synth"
)

// nested is a JSON array nested depth levels deep.
func nested(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// TestLoadDeeplyNestedLine: a line nested a million levels deep (2 MB of
// brackets: a corrupt or hostile file) is one bad line with a warning
// naming its file and line, in every reader, and the rest of the file
// still loads. The scanners descend by recursion: before they stopped at
// jsonscan.MaxDepth, a line like this (20 million deep) overflowed the
// stack and killed the process, losing the whole corpus. At exactly
// MaxDepth, encoding/json's own limit, a line is still read.
func TestLoadDeeplyNestedLine(t *testing.T) {
	deep := nested(1_000_000)
	ccUser := `{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"s1","timestamp":"2025-01-01T00:00:00Z"}`
	codexMeta := `{"timestamp":"2026-01-05T09:00:00.000Z","type":"session_meta","payload":{"id":"019c0000-aaaa-7bbb-8ccc-000000000009","cwd":"/w"}}`
	codexUser := `{"timestamp":"2026-01-05T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`
	smithUser := `{"role":"user","content":[{"type":"text","text":"hi"}],"id":"a"}`
	tests := []struct {
		name, file string
		lines      []string
		bad        int // the deep line's number
	}{
		{"claude-code", "s1.jsonl", []string{ccUser, `{"type":"user","x":` + deep + `}`}, 2},
		{"codex", "rollout-2026-01-05T09-00-00-019c0000-aaaa-7bbb-8ccc-000000000009.jsonl",
			[]string{codexMeta, codexUser, `{"timestamp":"2026-01-05T09:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":` + deep + `}}`}, 3},
		{"smith", "t.jsonl", []string{smithUser, `{"role":"user","content":[{"type":"text","text":"x","extra":` + deep + `}],"id":"b"}`}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), tc.file, strings.Join(tc.lines, "\n")+"\n")
			ss, err := load.Load([]string{p}, corpus.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(ss) != 1 || len(ss[0].Messages) == 0 {
				t.Fatalf("the good lines did not load: %d sessions", len(ss))
			}
			found := false
			for _, w := range ss[0].Warnings {
				if w.Line == tc.bad && w.File == p && (strings.Contains(w.Message, "nested deeper than 10000") || strings.Contains(w.Message, "exceeded max depth")) {
					found = true
				}
			}
			if !found {
				t.Errorf("no warning for line %d's depth: %+v", tc.bad, ss[0].Warnings)
			}
		})
	}
}

// TestScannerDepthLimit: the shared scanner accepts what encoding/json
// accepts at the limit and refuses one level more, as it does.
func TestScannerDepthLimit(t *testing.T) {
	for _, depth := range []int{jsonscan.MaxDepth, jsonscan.MaxDepth + 1} {
		b := []byte(nested(depth))
		s := &jsonscan.Scanner{B: b}
		ok := s.Skip()
		if want := depth <= jsonscan.MaxDepth; ok != want {
			t.Errorf("depth %d: Skip %v (%v), want %v", depth, ok, s.Err, want)
		}
	}
}

// TestLoadClaiDeepContent: a clai row whose content_json holds a part
// whose arguments nest a million levels is kept as one unknown block with
// a warning, and the workspace's other rows load (the fast part decoder
// skips arguments by recursion; past the limit it leaves the row to
// encoding/json, which refuses it).
func TestLoadClaiDeepContent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "clai.db")
	if err := synth.WriteClai(p, synth.ClaiProfile{Sessions: 1, Turns: 3, ToolCalls: 1, UserBytes: 50, AssistantBytes: 100, ToolBytes: 100}, 1); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	var rowid int64
	if err := db.QueryRow(`SELECT rowid FROM assistant_messages ORDER BY rowid LIMIT 1`).Scan(&rowid); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE assistant_messages SET content_json = ? WHERE rowid = ?`, `[{"type":"tool_call","tool_call_id":"c","tool_name":"bash","arguments":`+nested(1_000_000)+`}]`, rowid); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ss, err := load.Load([]string{p}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	msgs, found := 0, false
	for _, s := range ss {
		msgs += len(s.Messages)
		for _, w := range s.Warnings {
			if strings.Contains(w.Message, "content_json is not a JSON array") && strings.Contains(w.Message, "exceeded max depth") {
				found = true
			}
		}
	}
	if !found || msgs < 2 {
		t.Errorf("deep content_json: warning found %v, %d messages loaded", found, msgs)
	}
}
