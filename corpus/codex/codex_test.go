package codex_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/realcorpus"
)

func TestCodexRollout(t *testing.T) {
	p := filepath.Join("testdata", "rollout-2026-01-05T09-00-00-019c0000-aaaa-7bbb-8ccc-000000000001.jsonl")
	ss := loadOne(t, p)
	if len(ss) != 1 {
		t.Fatalf("%d sessions", len(ss))
	}
	s := ss[0]
	if s.ID != "019c0000-aaaa-7bbb-8ccc-000000000001" || s.Format != corpus.FormatCodex || s.Meta.Model != "gpt-5.2-codex" ||
		s.Meta.AgentVersion != "0.80.0" || s.Meta.Provider != "openai" || s.Meta.Cwd != "/work/demo" {
		t.Errorf("session: id %s meta %+v", s.ID, s.Meta)
	}
	var got []string
	for _, m := range s.Messages {
		r := string(m.Role)
		if m.Synthetic {
			r += "*"
		}
		var kinds []string
		for _, b := range m.Blocks {
			kinds = append(kinds, string(b.Kind))
		}
		got = append(got, fmt.Sprintf("%s@%d[%s]", r, m.Line, strings.Join(kinds, ",")))
	}
	want := []string{
		"system@2[text]", "user*@3[text]", "user@5[text]",
		"assistant@7[thinking,tool_use,tool_use]", "tool@10[tool_result,tool_result]",
		"assistant@13[text]", "assistant@15[tool_use,tool_use]", "tool@19[tool_result]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages:\n got %v\nwant %v", got, want)
	}
	a := s.Messages[3]
	if a.Blocks[0].Text != "**Running tests**" || a.Blocks[0].Signature != "gAAAAB" ||
		string(a.Blocks[1].Args) != `{"command":["go","test"]}` || a.Blocks[1].ToolName != "shell" {
		t.Errorf("assistant blocks: %+v", a.Blocks)
	}
	// Outputs stay in the order Codex recorded (and sent) them.
	tool := s.Messages[4]
	if tool.Blocks[0].ToolCallID != "call_2" || tool.Blocks[0].Text != "vet: ok" || tool.Blocks[0].IsError ||
		tool.Blocks[1].ToolCallID != "call_1" || tool.Blocks[1].Text != "FAIL demo" || !tool.Blocks[1].IsError {
		t.Errorf("tool blocks: %+v", tool.Blocks)
	}
	if got := string(s.Messages[6].Blocks[0].Args); got != "*** Begin Patch\n*** End Patch" {
		t.Errorf("custom tool input = %q", got)
	}
	cs := s.Recorded.Compactions
	if len(cs) != 1 || cs[0].Strategy != "compacted" || cs[0].Line != 14 || cs[0].AtMessage != 6 ||
		!strings.HasSuffix(cs[0].Summary, "\nTests fail in demo.") {
		t.Errorf("compactions: %+v", cs)
	}
	wantWarn := []string{
		"14: compacted line without replacement_history (Codex before remote compaction, or a damaged line): the retained history is not recorded, only the summary (120 bytes)",
		"15: tool call call_3 (apply_patch) has no output",
		"18: unknown line type brand_new_line (1 occurrence(s), first at this line) skipped; the log may come from a newer Codex",
		"19: output for call_id call_9, which never occurs in this log",
	}
	if got := warnLines(s.Warnings); !slices.Equal(got, wantWarn) {
		t.Errorf("warnings:\n got %q\nwant %q", got, wantWarn)
	}
}

// The real Codex sample (cli 0.77.0) holds three user messages and no
// model output: two are Codex's own injected context.
func TestCodexReal(t *testing.T) {
	ss, err := load.Load([]string{realFile(t, "codex/sample_codex_session.jsonl")}, corpus.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	var synthetic []bool
	for _, m := range s.Messages {
		synthetic = append(synthetic, m.Synthetic)
	}
	if !slices.Equal(synthetic, []bool{true, true, false}) {
		t.Errorf("synthetic flags %v, want AGENTS.md and environment context marked", synthetic)
	}
	if s.Meta.Model != "gpt-5.2-codex" || s.Meta.AgentVersion != "0.77.0" || s.Meta.Provider != "openai" {
		t.Errorf("meta %+v", s.Meta)
	}
	if !strings.HasPrefix(s.Messages[2].Blocks[0].Text, "can you analyse the MD files") {
		t.Errorf("user prompt: %q", s.Messages[2].Blocks[0].Text[:40])
	}
}

// realFile is rel under shared/corpus-real; the test skips when it is
// absent (fails under CALIB_REQUIRE_REAL_CORPUS=1).
func realFile(t *testing.T, rel string) string {
	t.Helper()
	return realcorpus.Dir(t, rel)
}

// warnLines renders warnings as "line: message" for exact comparison.
func warnLines(ws []corpus.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, fmt.Sprintf("%d: %s", w.Line, w.Message))
	}
	return out
}

// loadOne loads one file and checks every warning names it.
func loadOne(t *testing.T, p string) []*corpus.Session {
	t.Helper()
	ss, err := load.Load([]string{p}, corpus.Options{})
	if err != nil {
		t.Fatalf("load %s: %v", p, err)
	}
	for _, s := range ss {
		for _, w := range s.Warnings {
			if w.File != p {
				t.Errorf("warning names file %q, want %q", w.File, p)
			}
		}
	}
	return ss
}
