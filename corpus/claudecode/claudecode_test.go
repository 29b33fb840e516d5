package claudecode_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

// warnLines renders warnings as "line: message" for exact comparison.
func warnLines(ws []corpus.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, fmt.Sprintf("%d: %s", w.Line, w.Message))
	}
	return out
}

// loadLines writes lines as the log NAME in a temporary folder and loads
// it with loadOne, returning its one session and the file's path (which
// its warnings must name).
func loadLines(t *testing.T, name string, lines []string) (*corpus.Session, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ss := loadOne(t, p)
	if len(ss) != 1 {
		t.Fatalf("%s: %d sessions, want 1", name, len(ss))
	}
	return ss[0], p
}

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

// Each bad input loads (never fails) and gives exactly the warnings listed,
// with the lines they point at.
func TestClaudeCodeBadInput(t *testing.T) {
	tests := []struct {
		file     string
		sessions []sessionCounts
		warnings [][]string // per session
	}{
		{"cut_mid_line.jsonl",
			[]sessionCounts{{"s-bad", 3, 0, 1, 1, 1, 0, 0}},
			[][]string{{"4: the log is cut mid-line: the last line (57 bytes, no newline) is not complete JSON; line skipped"}}},
		{"sidechain_result.jsonl",
			[]sessionCounts{
				{"s-bad", 3, 0, 1, 1, 2, 0, 0},
				{"s-bad/sidechain-1", 3, 3, 0, 1, 0, 0, 0},
			},
			[][]string{
				{"5: tool_result for toolu_ls answers a tool_use in a sidechain (subagent) run (line 4), not in its own thread"},
				nil,
			}},
		{"boundary_unknown_ids.jsonl",
			[]sessionCounts{{"s-bad", 5, 0, 2, 2, 2, 0, 1}},
			[][]string{{"4: microcompact_boundary names 2 tool id(s) that do not occur before it in this thread (first: toolu_ghost)"}}},
		{"unknown_type.jsonl",
			[]sessionCounts{{"s-bad", 3, 0, 0, 0, 0, 0, 0}},
			[][]string{{
				"3: unknown line type marble-origami-commit (3 occurrence(s), first at this line) skipped; the log may come from a newer Claude Code",
				"4: unknown content block server_tool_use (1 occurrence(s), first at this line) skipped; the log may come from a newer Claude Code",
			}}},
		{"unpaired.jsonl",
			[]sessionCounts{{"s-bad", 3, 0, 1, 2, 2, 0, 0}},
			[][]string{{
				"3: tool_use toolu_b (Bash) has no tool_result",
				"5: invalid JSON (unexpected end of line); line skipped",
				"6: tool_result for tool_use id toolu_nowhere, which never occurs in this log",
			}}},
		// A subagent file whose run compacts: the boundary (parentUuid null,
		// no agentId) joins the run through logicalParentUuid.
		{"subagent_compact.jsonl",
			[]sessionCounts{{"s-sub/agent-z9", 6, 6, 1, 1, 1, 1, 1}},
			[][]string{nil}},
		{"empty_content.jsonl",
			[]sessionCounts{{"s-empty", 2, 0, 0, 0, 0, 0, 0}},
			[][]string{{
				"2: assistant message with no content blocks; line skipped",
				"3: user message with no content blocks (the API never receives one); line skipped",
			}}},
		{"compact_2x.jsonl",
			[]sessionCounts{{"s-bad", 7, 0, 1, 2, 2, 1, 1}},
			[][]string{nil}},
		// A type that is not a string and a message that is not an object
		// say what they hold (they read "unknown line type (none)" and
		// "has no message"); the thread goes on past them.
		{"wrong_kinds.jsonl",
			[]sessionCounts{{"s-kinds", 2, 0, 0, 0, 0, 0, 0}},
			[][]string{{
				"2: type is 5, not a string naming the line's type; line skipped",
				`3: assistant line's message is "Hello, as a string", not an object; line skipped`,
			}}},
		// Metadata of another kind than a string (written by hand in the
		// documented line format: no real log has one) read as absent, as
		// before, but said once per field, with how many lines and where
		// first: a cwd lost in silence changed which paths messages name.
		// A tool_use input that is not an object is kept, and said: no
		// path or command can be read from it for the loss signals.
		{"odd_meta.jsonl",
			[]sessionCounts{{"s-odd", 5, 0, 1, 1, 1, 0, 0}},
			[][]string{{
				"1: cwd is 5, not a string (2 times, first at this line); read as absent",
				"2: message.model is 7, not a string (once); read as absent",
				`3: version is {"major":2}, not a string (once); read as absent`,
				`4: tool_use input is "a.go", not an object (once); kept as recorded, but no path, command or URL is read from it`,
			}}},
		// Timestamps in another form: one warning for the file, and the
		// lines load without a time (TestClaudeCodeBadTimestamps).
		{"bad_timestamps.jsonl",
			[]sessionCounts{{"s-time", 5, 0, 0, 0, 0, 0, 0}},
			[][]string{{
				`2: timestamp "2026-02-01 10:00:05" is not an RFC 3339 time like 2026-01-28T20:56:10.594Z (3 malformed, first at this line); those records are read without a time, and the cache model takes no expiry across them`,
			}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ss := loadOne(t, filepath.Join("testdata", tt.file))
			var got []sessionCounts
			for _, s := range ss {
				got = append(got, countSession(s))
			}
			if !slices.Equal(got, tt.sessions) {
				t.Errorf("counts:\n got %+v\nwant %+v", got, tt.sessions)
			}
			for i, s := range ss {
				if i < len(tt.warnings) && !slices.Equal(warnLines(s.Warnings), tt.warnings[i]) {
					t.Errorf("session %s warnings:\n got %q\nwant %q", s.ID, warnLines(s.Warnings), tt.warnings[i])
				}
			}
		})
	}
}

func TestClaudeCodeStrictFailsOnWarning(t *testing.T) {
	p := filepath.Join("testdata", "cut_mid_line.jsonl")
	ss, err := load.Load([]string{p}, corpus.Options{Strict: true})
	if err == nil || !strings.Contains(err.Error(), p+":4: the log is cut mid-line") {
		t.Fatalf("err = %v, want the cut line named", err)
	}
	if len(ss) != 1 || len(ss[0].Messages) != 3 {
		t.Errorf("strict load still returns what it read; got %d sessions", len(ss))
	}
}

// A 2.x log: one API response over three lines, parallel results in
// completion order, a tool_result holding text and an image, a manual
// compact_boundary with postTokens and its summary, a synthetic message.
func TestClaudeCode2x(t *testing.T) {
	s := loadOne(t, filepath.Join("testdata", "compact_2x.jsonl"))[0]
	var roles []string
	for _, m := range s.Messages {
		r := string(m.Role)
		if m.Synthetic {
			r += "*"
		}
		if m.Summary {
			r += "+summary"
		}
		roles = append(roles, fmt.Sprintf("%s@%d", r, m.Line))
	}
	want := []string{"user@2", "assistant@3", "tool@6", "assistant@8", "user@9", "user+summary@11", "assistant*@12"}
	if !slices.Equal(roles, want) {
		t.Errorf("messages:\n got %v\nwant %v", roles, want)
	}
	a := s.Messages[1]
	if len(a.Blocks) != 3 || a.Blocks[0].Kind != corpus.KindThinking || a.Blocks[0].Signature != "EqQBCkYIBxgC" ||
		a.Blocks[1].ToolCallID != "toolu_p" || a.Blocks[2].ToolCallID != "toolu_q" {
		t.Errorf("merged assistant message: %+v", a.Blocks)
	}
	if got := string(a.Blocks[1].Args); got != `{"file_path":"/work/p.png"}` {
		t.Errorf("tool_use Args = %s, want the input bytes as recorded", got)
	}
	tool := s.Messages[2]
	wantTool := []corpus.Block{
		{Kind: corpus.KindToolResult, ToolCallID: "toolu_p"},
		{Kind: corpus.KindImage, ToolCallID: "toolu_p", MediaType: "image/png", Source: "base64",
			MediaRef: "929e08d597feae564ce98003c4a47ff5239a5b93681d186eda3a9871e5b62644"},
		{Kind: corpus.KindToolResult, ToolCallID: "toolu_q", Text: "line one\nline two"},
	}
	if len(tool.Blocks) != len(wantTool) {
		t.Fatalf("tool message blocks: %+v", tool.Blocks)
	}
	for i := range wantTool {
		g, w := tool.Blocks[i], wantTool[i]
		if g.Kind != w.Kind || g.ToolCallID != w.ToolCallID || g.Text != w.Text || g.MediaType != w.MediaType ||
			g.Source != w.Source || g.MediaRef != w.MediaRef {
			t.Errorf("tool block %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if len(s.Recorded.Compactions) != 1 {
		t.Fatalf("compactions: %+v", s.Recorded.Compactions)
	}
	c := s.Recorded.Compactions[0]
	if c.Strategy != "compact" || c.Trigger != "manual" || c.TokensBefore != 168165 || c.TokensAfter != 23456 ||
		c.Line != 10 || c.AtMessage != 5 || c.SummaryID != "u5" || c.ID != "cb1" ||
		!strings.HasPrefix(c.Summary, "This session is being continued") {
		t.Errorf("compaction: %+v", c)
	}
}

// A project folder: the main log and its subagent file load as two
// sessions; other files in the folder are ignored.
func TestClaudeCodeProjectFolder(t *testing.T) {
	ss, err := load.Load([]string{filepath.Join("testdata", "project")}, corpus.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range ss {
		got = append(got, fmt.Sprintf("%s parent=%q kind=%q model=%s msgs=%d sidechain=%v",
			s.ID, s.Meta.Parent, s.Meta.Kind, s.Meta.Model, len(s.Messages), len(s.Messages) > 0 && s.Messages[0].Sidechain))
	}
	want := []string{
		`s-main parent="" kind="" model=claude-opus-4-5-20251101 msgs=4 sidechain=false`,
		`s-main/agent-a1b2c3 parent="s-main" kind="subagent" model=claude-haiku-4-5 msgs=4 sidechain=true`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("sessions:\n got %q\nwant %q", got, want)
	}
}

// A folder of logs loads every file recognised by content, in lexical
// order except that a session comes before its subagents; SOURCES.md is not
// a log and is passed over.
func TestClaudeCodeRealFolder(t *testing.T) {
	dir := realFile(t, ".")
	ss, err := load.Load([]string{dir}, corpus.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range ss {
		ids = append(ids, s.ID)
	}
	// claude-code/*.jsonl (1.0.53 and 2.1.x), then claude-code/projects/<id>/
	// (the phantom-reads sessions: 2.1.x subagents under <id>/subagents/,
	// 2.0.x agent-*.jsonl beside the main file: its name sorts first, but a
	// parent comes before its subagents), then codex/.
	want := []string{
		"0a725fb5-6378-432a-9e84-9f3f49d4043d",
		"0a725fb5-6378-432a-9e84-9f3f49d4043d/sidechain-1",
		"9034225e-c367-4ab6-b1eb-1f478a7ae27a",
		"9034225e-c367-4ab6-b1eb-1f478a7ae27a/sidechain-1",
		"9034225e-c367-4ab6-b1eb-1f478a7ae27a/sidechain-2",
		"b3533c53-3dba-422e-8f02-d0d42214ade0",
		"f67ab274-e83b-41ac-ac85-77488d6b5c28",
		"fc491683-57ba-4bbf-afd0-3362025e7aa7",
		"0357781f-d024-4cef-8496-56501c76afb3",
		"0357781f-d024-4cef-8496-56501c76afb3/agent-aee03d2",
		"03aa9bb5-a3e8-4390-8f41-00dda0d7f947",
		"27eaff45-a330-4a88-9213-3725c9f420d0",
		"27eaff45-a330-4a88-9213-3725c9f420d0/agent-aca2626",
		"2caf2337-66bf-41d1-ad27-9d2cab7bd2dc",
		"2caf2337-66bf-41d1-ad27-9d2cab7bd2dc/agent-99b9cd12",
		"2caf2337-66bf-41d1-ad27-9d2cab7bd2dc/agent-b0a81b9b",
		"2caf2337-66bf-41d1-ad27-9d2cab7bd2dc/agent-f905a488",
		"504216d1-8285-4ec4-92be-0db8dc92a18a",
		"504216d1-8285-4ec4-92be-0db8dc92a18a/agent-aa360a0",
		"9a91e9d0-b627-4bcb-b8f6-4e5d7c63118f",
		"b151f674-388c-48f0-9b04-0384f5a0bfb1",
		"b6240830-5041-465e-aad0-910c13cd9b6c",
		"b6240830-5041-465e-aad0-910c13cd9b6c/agent-1698e3ad",
		"b6240830-5041-465e-aad0-910c13cd9b6c/agent-375bb764",
		"b6240830-5041-465e-aad0-910c13cd9b6c/agent-a382dbae",
		"bf88e2ff-ac8b-4f29-8dbf-c2467325fe4e",
		"bf88e2ff-ac8b-4f29-8dbf-c2467325fe4e/agent-a57399f",
		"c172889a-aa67-452b-b5c9-81f1e500de7d",
		"c172889a-aa67-452b-b5c9-81f1e500de7d/agent-a8ad886",
		"c172889a-aa67-452b-b5c9-81f1e500de7d/agent-a930f76",
		"c172889a-aa67-452b-b5c9-81f1e500de7d/agent-aae21dd",
		"c172889a-aa67-452b-b5c9-81f1e500de7d/agent-ae12592",
		"d9add9a6-f2cd-42f6-8ae9-135bf8af37ec",
		"019b64e5-57fa-7463-b644-fba7e456f905",
	}
	if !slices.Equal(ids, want) {
		t.Errorf("sessions:\n got %q\nwant %q", ids, want)
	}
}

// An inline sidechain run is linked to the Task call that started it; it
// does not inherit the main session's title.
func TestClaudeCodeSidechainTitle(t *testing.T) {
	ss := loadOne(t, filepath.Join("testdata", "sidechain_result.jsonl"))
	if len(ss) != 2 || ss[1].Meta.Title != "Task toolu_task" || ss[1].Meta.Parent != "s-bad" || ss[0].Meta.Title != "" {
		t.Errorf("titles: %q / %q (parent %q)", ss[0].Meta.Title, ss[1].Meta.Title, ss[1].Meta.Parent)
	}
	real, err := load.Load([]string{realFile(t, "claude-code/9034225e-c367-4ab6-b1eb-1f478a7ae27a.jsonl")}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range real {
		titles = append(titles, s.Meta.Title)
	}
	want := []string{"Universal VSLA Interface: C17, Backends, Testing Plan", "Task toolu_01PQL1jS54m4uJjYeqLqcom3", "Task toolu_01JcNTPMJy7Cqh2fCyr91zLz"}
	if !slices.Equal(titles, want) {
		t.Errorf("titles %q, want %q", titles, want)
	}
}

// Each message, usage and compaction takes its own line's timestamp: a
// line with none, or one that is not RFC 3339, has the zero time, not the
// time of the line before it.
func TestClaudeCodeLineTimes(t *testing.T) {
	head := `"isSidechain":false,"sessionId":"s-t","version":"2.1.20","cwd":"/Users/u/p"`
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,` + head + `,"timestamp":"2026-01-28T20:56:15.150Z","message":{"role":"user","content":"hi"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1",` + head + `,"message":{"id":"m1","role":"assistant","model":"claude-opus-4-5","content":[{"type":"text","text":"no time"}],"usage":{"input_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`,
		`{"type":"system","subtype":"microcompact_boundary","uuid":"b1","parentUuid":"a1",` + head + `,"timestamp":"yesterday","microcompactMetadata":{"trigger":"auto","preTokens":1,"tokensSaved":1,"compactedToolIds":[]}}`,
		`{"type":"user","uuid":"u2","parentUuid":"b1",` + head + `,"timestamp":"not a time","message":{"role":"user","content":"again"}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"u2",` + head + `,"timestamp":"2026-01-28T20:57:00Z","message":{"id":"m2","role":"assistant","model":"claude-opus-4-5","content":[{"type":"text","text":"timed"}],"usage":{"input_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`,
	}
	s, _ := loadLines(t, "s-t.jsonl", lines)
	var got []string
	for _, m := range s.Messages {
		got = append(got, m.Time.Format(time.RFC3339))
	}
	for _, u := range s.Recorded.Usage {
		got = append(got, "done "+u.Done.Format(time.RFC3339))
	}
	for _, c := range s.Recorded.Compactions {
		got = append(got, "compaction "+c.CreatedAt.Format(time.RFC3339))
	}
	zero := time.Time{}.Format(time.RFC3339)
	want := []string{"2026-01-28T20:56:15Z", zero, zero, "2026-01-28T20:57:00Z", "done " + zero, "done 2026-01-28T20:57:00Z", "compaction " + zero}
	if !slices.Equal(got, want) {
		t.Errorf("times %q, want %q", got, want)
	}
}

// A malformed timestamp, or one that is not a string, leaves its line
// without a time (the cache model then judges no expiry across it); the
// lines around it keep theirs, and the session's span is that of the good
// ones.
func TestClaudeCodeBadTimestamps(t *testing.T) {
	s := loadOne(t, filepath.Join("testdata", "bad_timestamps.jsonl"))[0]
	at := func(hms string) time.Time {
		ts, err := time.Parse(time.RFC3339, "2026-02-01T"+hms+"Z")
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	want := []time.Time{at("10:00:00"), {}, {}, at("10:09:00"), {}} // the last's is a number
	for i, m := range s.Messages {
		if !m.Time.Equal(want[i]) {
			t.Errorf("message %d at line %d: time %v, want %v", i, m.Line, m.Time, want[i])
		}
	}
	if !s.Meta.CreatedAt.Equal(at("10:00:00")) || !s.Meta.UpdatedAt.Equal(at("10:09:00")) {
		t.Errorf("span %v to %v, want 10:00:00 to 10:09:00", s.Meta.CreatedAt, s.Meta.UpdatedAt)
	}
}

// TestClaudeCodeDuplicatedUseLine: a tool_use line written twice (a log
// appended to itself, a copy pasted in) is named as a reused id, and the
// later one is paired with the result: the earlier was also reported as
// having no tool_result, which it has.
func TestClaudeCodeDuplicatedUseLine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "compact_2x.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	dup := append(append(append([]string{}, lines[:5]...), lines[4]), lines[5:]...) // line 5, a tool_use, twice
	p := filepath.Join(t.TempDir(), "dup.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(dup, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	s := loadOne(t, p)[0]
	var got []string
	for _, w := range warnLines(s.Warnings) {
		if strings.Contains(w, "tool_use") {
			got = append(got, w)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "6: tool_use id ") || !strings.Contains(got[0], "already used at line 5; the later one is kept for pairing") {
		t.Errorf("warnings about tool uses %q; want the reused id at line 6 alone", got)
	}
}
