package claudecode_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/realcorpus"
)

// realCorpus is shared/corpus-real beside the checkout (package
// realcorpus finds it).
var realCorpus = realcorpus.Root()

// realFile is rel under the real corpus; the test skips when it is absent
// (fails under CALIB_REQUIRE_REAL_CORPUS=1).
func realFile(t *testing.T, rel string) string {
	t.Helper()
	return realcorpus.Dir(t, rel)
}

// sessionCounts is what the tests pin per loaded session.
type sessionCounts struct {
	ID        string
	Messages  int
	Sidechain int // messages marked Sidechain
	Tool      int // RoleTool messages
	ToolUses  int
	Results   int
	Summaries int // messages marked Summary
	Events    int // Recorded.Compactions
}

func countSession(s *corpus.Session) sessionCounts {
	c := sessionCounts{ID: s.ID, Messages: len(s.Messages), Events: len(s.Recorded.Compactions)}
	for _, m := range s.Messages {
		if m.Sidechain {
			c.Sidechain++
		}
		if m.Role == corpus.RoleTool {
			c.Tool++
		}
		if m.Summary {
			c.Summaries++
		}
		for _, b := range m.Blocks {
			switch b.Kind {
			case corpus.KindToolUse:
				c.ToolUses++
			case corpus.KindToolResult:
				c.Results++
			}
		}
	}
	return c
}

func TestClaudeCodeRealCounts(t *testing.T) {
	tests := []struct {
		file string
		want []sessionCounts
	}{
		{"claude-code/0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl", []sessionCounts{
			{"0a725fb5-6378-432a-9e84-9f3f49d4043d", 406, 0, 194, 194, 194, 1, 1},
			{"0a725fb5-6378-432a-9e84-9f3f49d4043d/sidechain-1", 22, 22, 10, 15, 15, 0, 0},
		}},
		{"claude-code/f67ab274-e83b-41ac-ac85-77488d6b5c28.jsonl", []sessionCounts{
			{"f67ab274-e83b-41ac-ac85-77488d6b5c28", 557, 0, 260, 260, 260, 2, 2},
		}},
		{"claude-code/9034225e-c367-4ab6-b1eb-1f478a7ae27a.jsonl", []sessionCounts{
			{"9034225e-c367-4ab6-b1eb-1f478a7ae27a", 373, 0, 176, 176, 176, 1, 1},
			{"9034225e-c367-4ab6-b1eb-1f478a7ae27a/sidechain-1", 32, 32, 15, 15, 15, 0, 0},
			{"9034225e-c367-4ab6-b1eb-1f478a7ae27a/sidechain-2", 58, 58, 28, 28, 28, 0, 0},
		}},
		{"claude-code/b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl", []sessionCounts{
			{"b3533c53-3dba-422e-8f02-d0d42214ade0", 30, 0, 6, 15, 15, 0, 2},
		}},
		{"claude-code/fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl", []sessionCounts{
			{"fc491683-57ba-4bbf-afd0-3362025e7aa7", 35, 0, 6, 11, 11, 0, 1},
		}},
		{"codex/sample_codex_session.jsonl", []sessionCounts{
			{"019b64e5-57fa-7463-b644-fba7e456f905", 3, 0, 0, 0, 0, 0, 0},
		}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			ss, err := load.Load([]string{realFile(t, tt.file)}, corpus.Options{Strict: true})
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			var got []sessionCounts
			for _, s := range ss {
				got = append(got, countSession(s))
				for _, w := range s.Warnings {
					t.Errorf("unexpected warning %s:%d: %s", w.File, w.Line, w.Message)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("counts:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// The tool_use totals per file are the ones SOURCES.md states (counted
// there independently of calib): main thread plus sidechains.
func TestClaudeCodeRealToolTotals(t *testing.T) {
	for file, want := range map[string]int{
		"claude-code/0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl": 209,
		"claude-code/f67ab274-e83b-41ac-ac85-77488d6b5c28.jsonl": 260,
		"claude-code/9034225e-c367-4ab6-b1eb-1f478a7ae27a.jsonl": 219,
	} {
		ss, err := load.Load([]string{realFile(t, file)}, corpus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		uses, results := 0, 0
		for _, s := range ss {
			c := countSession(s)
			uses += c.ToolUses
			results += c.Results
		}
		if uses != want || results != want {
			t.Errorf("%s: %d tool_use, %d tool_result; SOURCES.md says %d each", file, uses, results, want)
		}
	}
}

func TestClaudeCodeRealCompactions(t *testing.T) {
	type ev struct {
		Strategy, Trigger    string
		Line, At             int
		Before, After, Saved int
		Cleared              int
		HasSummary           bool
	}
	tests := []struct {
		file string
		want []ev
	}{
		// SOURCES.md: microcompact_boundary lines 39 and 52, 49.
		{"claude-code/b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl", []ev{
			{"microcompact", "auto", 39, 19, 71221, 0, 40455, 6, false},
			{"microcompact", "auto", 52, 23, 77232, 0, 38744, 5, false},
		}},
		{"claude-code/fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl", []ev{
			{"microcompact", "auto", 49, 21, 71221, 0, 35442, 6, false},
		}},
		// SOURCES.md: isCompactSummary lines 451; 384, 599; 479.
		{"claude-code/0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl", []ev{
			{"compact", "", 451, 317, 0, 0, 0, 0, true},
		}},
		{"claude-code/f67ab274-e83b-41ac-ac85-77488d6b5c28.jsonl", []ev{
			{"compact", "", 384, 288, 0, 0, 0, 0, true},
			{"compact", "", 599, 457, 0, 0, 0, 0, true},
		}},
		{"claude-code/9034225e-c367-4ab6-b1eb-1f478a7ae27a.jsonl", []ev{
			{"compact", "", 479, 272, 0, 0, 0, 0, true},
		}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			ss, err := load.Load([]string{realFile(t, tt.file)}, corpus.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := ss[0]
			var got []ev
			for i, c := range s.Recorded.Compactions {
				if c.Index != i {
					t.Errorf("compaction %d has Index %d", i, c.Index)
				}
				got = append(got, ev{c.Strategy, c.Trigger, c.Line, c.AtMessage, c.TokensBefore, c.TokensAfter,
					c.TokensSaved, len(c.ClearedIDs), c.Summary != ""})
				if c.SummaryID != "" {
					m := s.Messages[c.AtMessage]
					if m.ID != c.SummaryID || !m.Summary || m.Line != c.Line {
						t.Errorf("compaction at line %d: message %d is %s line %d summary=%v, want the summary %s",
							c.Line, c.AtMessage, m.ID, m.Line, m.Summary, c.SummaryID)
					}
				}
				if c.AtMessage > 0 && s.Messages[c.AtMessage-1].Line > c.Line {
					t.Errorf("compaction at line %d: message before it is from line %d", c.Line, s.Messages[c.AtMessage-1].Line)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("compactions:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// Parallel tool results are written in completion order; the tool message
// holds them in tool_use order, and every id a microcompact cleared is a
// result that precedes the boundary.
func TestClaudeCodeRealParallelResults(t *testing.T) {
	ss, err := load.Load([]string{realFile(t, "claude-code/b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl")}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	checked := 0
	for i, m := range s.Messages {
		if m.Role != corpus.RoleTool {
			continue
		}
		prev := s.Messages[i-1]
		if prev.Role != corpus.RoleAssistant {
			t.Fatalf("tool message %d follows a %s message", i, prev.Role)
		}
		var uses, results []string
		for _, b := range prev.Blocks {
			if b.Kind == corpus.KindToolUse {
				uses = append(uses, b.ToolCallID)
			}
		}
		for _, b := range m.Blocks {
			results = append(results, b.ToolCallID)
		}
		if !slices.Equal(uses, results) {
			t.Errorf("message %d: results %v, want tool_use order %v", i, results, uses)
		}
		checked++
	}
	if checked != 6 {
		t.Errorf("checked %d tool messages, want 6", checked)
	}
	// Lines 26-29 hold the results of lines 22-25 in completion order
	// 23, 24, 25, 22; the merged message starts with the result of line 22.
	i := slices.IndexFunc(s.Messages, func(m corpus.Message) bool { return m.Line == 26 })
	if i != 16 || s.Messages[i].Blocks[0].ToolCallID != "toolu_01LWdQeBbzMivyDguM7XbJZq" || len(s.Messages[i].Blocks) != 4 {
		t.Errorf("the tool message of lines 26-29 is message %d, want 16 starting with line 22's result", i)
	}
	for _, c := range s.Recorded.Compactions {
		before := map[string]bool{}
		for _, m := range s.Messages[:c.AtMessage] {
			for _, b := range m.Blocks {
				if b.Kind == corpus.KindToolResult {
					before[b.ToolCallID] = true
				}
			}
		}
		for _, id := range c.ClearedIDs {
			if !before[id] {
				t.Errorf("boundary at line %d clears %s, which has no result before message %d", c.Line, id, c.AtMessage)
			}
		}
	}
}

func TestClaudeCodeRealMeta(t *testing.T) {
	ss, err := load.Load([]string{realFile(t, "claude-code/fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl")}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := ss[0].Meta
	want := corpus.Meta{AgentVersion: "2.1.20", Model: "claude-opus-4-5-20251101", Provider: "anthropic",
		Cwd: "/Users/gray/Projects/barebones-phantom-reads", Title: "WPD Analysis: Pipeline Refactor Review & File Read Issues"}
	got := m
	got.CreatedAt, got.UpdatedAt = want.CreatedAt, want.UpdatedAt
	if got != want {
		t.Errorf("meta:\n got %+v\nwant %+v", got, want)
	}
	if m.CreatedAt.IsZero() || !m.UpdatedAt.After(m.CreatedAt) {
		t.Errorf("times: created %v updated %v", m.CreatedAt, m.UpdatedAt)
	}
	// The one thinking block keeps its signature.
	found := false
	for _, msg := range ss[0].Messages {
		for _, b := range msg.Blocks {
			if b.Kind == corpus.KindThinking {
				found = true
				if b.Text == "" || b.Signature == "" {
					t.Errorf("thinking block at line %d: text %d bytes, signature %d bytes", msg.Line, len(b.Text), len(b.Signature))
				}
			}
		}
	}
	if !found {
		t.Error("no thinking block loaded (line 62 has one)")
	}
}

// What the real 2.1.x logs show (README): at each microcompact_boundary,
// Claude Code cleared every tool result not yet cleared except the newest
// four, counted in tool_use order, and listed them in that order. The
// loaded messages reproduce that order exactly.
func TestClaudeCodeRealMicrocompactKeepsNewestFour(t *testing.T) {
	for _, file := range []string{
		"claude-code/b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl",
		"claude-code/fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl",
	} {
		ss, err := load.Load([]string{realFile(t, file)}, corpus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := ss[0]
		cleared := map[string]bool{}
		for _, c := range s.Recorded.Compactions {
			answered := map[string]bool{}
			var uses []string
			for _, m := range s.Messages[:c.AtMessage] {
				for _, b := range m.Blocks {
					switch b.Kind {
					case corpus.KindToolUse:
						uses = append(uses, b.ToolCallID)
					case corpus.KindToolResult:
						answered[b.ToolCallID] = true
					}
				}
			}
			var done, want []string
			for _, id := range uses {
				if answered[id] {
					done = append(done, id)
				}
			}
			for _, id := range done[:len(done)-4] {
				if !cleared[id] {
					want = append(want, id)
				}
			}
			if !slices.Equal(c.ClearedIDs, want) {
				t.Errorf("%s line %d: cleared %v, want all but the newest 4: %v", file, c.Line, c.ClearedIDs, want)
			}
			for _, id := range c.ClearedIDs {
				cleared[id] = true
			}
		}
	}
}
