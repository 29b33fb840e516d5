package gemini_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

// No real Gemini CLI chat file is available to this project (see
// shared/corpus-real/SOURCES.md). The fixtures in testdata were written by
// hand from the documented shapes: google-gemini/gemini-cli
// packages/core/src/services/chatRecordingTypes.ts and
// chatRecordingService.ts at commit 04741d1d7383bce06c0f0a22101561b619a75dd3
// (records, re-appended updates, $set, $rewindTo, the legacy document), and
// packages/cli/src/ui/hooks/useGeminiStream.ts / useHistoryManager.ts for
// the info records that carry compression notices. They contain no user's
// session.

// shape renders a session's messages as role@line[kinds] for comparison.
func shape(s *corpus.Session) []string {
	var out []string
	for _, m := range s.Messages {
		var kinds []string
		for _, b := range m.Blocks {
			kinds = append(kinds, string(b.Kind))
		}
		out = append(out, fmt.Sprintf("%s@%d[%s]", m.Role, m.Line, strings.Join(kinds, ",")))
	}
	return out
}

func warnLines(ws []corpus.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, fmt.Sprintf("%d: %s", w.Line, w.Message))
	}
	return out
}

func loadOne(t *testing.T, p string, opts corpus.Options) *corpus.Session {
	t.Helper()
	ss, err := load.Load([]string{p}, opts)
	if err != nil {
		t.Fatalf("load %s: %v", p, err)
	}
	if len(ss) != 1 {
		t.Fatalf("%d sessions, want 1", len(ss))
	}
	for _, w := range ss[0].Warnings {
		if w.File != p {
			t.Errorf("warning names file %q, want %q", w.File, p)
		}
	}
	return ss[0]
}

// TestChatJSONL: the JSONL fixture loads clean (strict), with re-appended
// messages replaced in place, the rewound turn gone, tool results paired
// into a tool message, UI records left out of the history, three
// compression notices as recorded compactions and tokens as usage.
func TestChatJSONL(t *testing.T) {
	p := filepath.Join("testdata", "session-2026-01-05T09-00-0a1b2c3d.jsonl")
	s := loadOne(t, p, corpus.Options{Strict: true})
	if s.ID != "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d" || s.Format != corpus.FormatGemini || s.Meta.Model != "gemini-2.5-pro" ||
		s.Meta.Title != "Fix the failing demo test" || s.Meta.Kind != "main" ||
		s.Meta.CreatedAt.Format("15:04:05") != "09:00:00" || s.Meta.UpdatedAt.Format("15:04:05") != "09:20:01" {
		t.Errorf("session %s meta %+v", s.ID, s.Meta)
	}
	want := []string{
		"user@2[text]", "assistant@6[thinking,tool_use,tool_use]", "tool@6[tool_result,tool_result]",
		"assistant@8[text]", "user@10[text,image]", "assistant@12[text]", "user@17[text]",
	}
	if got := shape(s); !slices.Equal(got, want) {
		t.Errorf("messages:\n got %v\nwant %v", got, want)
	}
	a := s.Messages[1]
	if a.Blocks[0].Text != "Running the tests\nI will run the package tests and read the test file." ||
		a.Blocks[1].ToolCallID != "call_1" || a.Blocks[1].ToolName != "run_shell_command" ||
		string(a.Blocks[1].Args) != `{"command":"go test ./pkg/demo"}` {
		t.Errorf("assistant blocks %+v", a.Blocks)
	}
	r := s.Messages[2].Blocks
	if r[0].ToolCallID != "call_1" || r[0].Text != "--- FAIL: TestDemo (0.00s)\nFAIL demo" || r[0].IsError ||
		r[1].ToolCallID != "call_2" || r[1].Text != "File not found: /work/demo/pkg/demo/demo_test.go" || !r[1].IsError {
		t.Errorf("tool results %+v", r)
	}
	if img := s.Messages[4].Blocks[1]; img.MediaType != "image/png" || img.Source != "base64" || img.MediaRef != corpus.MediaHash("iVBORw0KGgo=") {
		t.Errorf("image %+v", img)
	}
	var cs []string
	for _, c := range s.Recorded.Compactions {
		cs = append(cs, fmt.Sprintf("%d %s %s/%s at %d %d->%d saved %d missing=%v", c.Line, c.ID, c.Trigger, c.Status, c.AtMessage,
			c.TokensBefore, c.TokensAfter, c.TokensSaved, c.SummaryMissing))
	}
	wantC := []string{
		"9 i1 auto/completed at 4 120000->30000 saved 90000 missing=true",
		"16 i2 manual/unknown at 6 0->0 saved 0 missing=true",
		"18 i3 auto/completed at 7 0->0 saved 0 missing=true",
	}
	if !slices.Equal(cs, wantC) {
		t.Errorf("compactions:\n got %q\nwant %q", cs, wantC)
	}
	var us []string
	for _, u := range s.Recorded.Usage {
		us = append(us, fmt.Sprintf("%d@%d %s in=%d read=%d out=%d reason=%d", u.Line, u.AtMessage, u.Model, u.InputTokens, u.CacheReadTokens, u.OutputTokens, u.ReasoningTokens))
	}
	wantU := []string{
		"6@1 gemini-2.5-pro in=4000 read=8000 out=160 reason=120",
		"8@3 gemini-2.5-pro in=1010 read=12000 out=25 reason=0",
		"12@5 gemini-2.5-flash in=31000 read=0 out=12 reason=0",
	}
	if !slices.Equal(us, wantU) {
		t.Errorf("usage:\n got %q\nwant %q", us, wantU)
	}
	// Gemini's total is the sum of the corpus fields.
	if u := s.Recorded.Usage[0]; u.Prompt()+u.OutputTokens != 12160 {
		t.Errorf("prompt+output = %d, want the recorded total 12160", u.Prompt()+u.OutputTokens)
	}
}

// TestChatLegacyJSON: the single-document .json of older builds gives the
// same messages as the same records in JSONL, with lines pointing into the
// pretty-printed document.
func TestChatLegacyJSON(t *testing.T) {
	p := filepath.Join("testdata", "session-2025-09-01T10-00-11111111.json")
	s := loadOne(t, p, corpus.Options{Strict: true})
	if s.ID != "11111111-2222-4333-8444-555555555555" || s.Meta.Title != "Fix the failing demo test" {
		t.Errorf("session %s meta %+v", s.ID, s.Meta)
	}
	// Each message's line is the line of its opening brace.
	want := []string{"user@7[text]", "assistant@17[thinking,tool_use,tool_use]", "tool@17[tool_result,tool_result]",
		"assistant@89[text]", "user@111[text,image]"}
	if got := shape(s); !slices.Equal(got, want) {
		t.Errorf("messages:\n got %v\nwant %v", got, want)
	}
	if len(s.Recorded.Compactions) != 1 || s.Recorded.Compactions[0].AtMessage != 4 || len(s.Recorded.Usage) != 2 {
		t.Errorf("compactions %+v usage %+v", s.Recorded.Compactions, s.Recorded.Usage)
	}
	// The file is indented (JSON.stringify(conversation, null, 2)); the
	// args are kept as the request carried them, compact, as the JSONL
	// recorder stores them: the indentation was measured as tokens.
	var args []string
	for _, b := range s.Messages[1].Blocks {
		if b.Kind == corpus.KindToolUse {
			args = append(args, string(b.Args))
		}
	}
	wantArgs := []string{`{"command":"go test ./pkg/demo"}`, `{"absolute_path":"/work/demo/pkg/demo/demo_test.go"}`}
	if !slices.Equal(args, wantArgs) {
		t.Errorf("args %q, want %q", args, wantArgs)
	}
}

const meta = `{"sessionId":"s1","projectHash":"p1","startTime":"2026-01-05T09:00:00.000Z","lastUpdated":"2026-01-05T09:00:00.000Z"}`

// TestChatBadInput: each damaged file loads what it can, with warnings
// that name the line and what was expected, and never fails the load.
func TestChatBadInput(t *testing.T) {
	user := func(id, text string) string {
		return `{"id":"` + id + `","timestamp":"2026-01-05T09:00:01.000Z","type":"user","content":"` + text + `"}`
	}
	tests := []struct {
		name, file, content string
		shape               []string
		warns               []string
	}{
		{"cut mid-line", "cut.jsonl", meta + "\n" + user("u1", "hi") + "\n" + `{"id":"g1","timestamp":"2026-01-05T09:00:02.000Z","type":"gem`,
			[]string{"user@2[text]"},
			[]string{"3: the chat file is cut mid-line: the last line (61 bytes, no newline) is not complete JSON; line skipped"}},
		{"invalid JSON", "bad.jsonl", meta + "\n" + `{"id":"u0",,}` + "\n" + "not json\n" + user("u1", "hi") + "\n",
			[]string{"user@4[text]"},
			[]string{"2: invalid JSON (invalid character ',' looking for beginning of object key string); line skipped",
				`3: expected a JSON object, got "not json"; line skipped`}},
		// A timestamp or token count of another type costs the message
		// its time or its usage, not the message.
		{"fields of other types", "types.jsonl", meta + "\n" + `{"id":"u0","timestamp":5,"type":"user","content":"x"}` + "\n" +
			`{"id":"g0","type":"gemini","content":"","toolCalls":{"id":"c"}}` + "\n" + "[1,2]\n" + user("u1", "hi") + "\n" +
			`{"id":"g1","timestamp":"2026-01-05T09:00:02.000Z","type":"gemini","content":"ok","tokens":{"input":"many","output":1,"cached":0}}` + "\n" +
			`{"id":"g2","timestamp":"2026-01-05T09:00:03.000Z","type":"gemini","content":"ok","tokens":[3]}` + "\n",
			[]string{"user@2[text]", "user@5[text]", "assistant@6[text]", "assistant@7[text]"},
			[]string{`2: timestamp "5" is not an RFC 3339 time like 2026-01-28T20:56:10.594Z (1 malformed, first at this line); those records are read without a time, and the cache model takes no expiry across them`,
				"3: toolCalls is a JSON object, expected a list; line skipped",
				`4: expected a JSON object, got "[1,2]"; line skipped`,
				"6: tokens.input holds string (expected a whole token count); the request's usage is ignored",
				"7: tokens holds array (expected an object of token counts); the request's usage is ignored"}},
		{"unknown records", "unknown.jsonl", meta + "\n" + user("u1", "hi") + "\n" +
			`{"id":"x1","timestamp":"2026-01-05T09:00:02.000Z","type":"tool_group","content":""}` + "\n" +
			`{"id":"x2","timestamp":"2026-01-05T09:00:02.000Z","type":"tool_group","content":""}` + "\n" +
			`{"checkpoint":3}` + "\n" +
			`{"id":"g1","timestamp":"2026-01-05T09:00:03.000Z","type":"gemini","content":[{"text":"ok"},{"executableCode":{"code":"1+1"}}]}` + "\n",
			[]string{"user@2[text]", "assistant@6[text,unknown]"},
			[]string{
				"3: unknown message type tool_group (2 occurrence(s), first at this line) skipped; the log may come from a newer Gemini CLI",
				"5: unknown record (no id, $set, $rewindTo or sessionId and projectHash) (1 occurrence(s), first at this line) skipped; the log may come from a newer Gemini CLI",
				"6: unknown content part {executableCode} (1 occurrence(s), first at this line) skipped; the log may come from a newer Gemini CLI",
			}},
		{"missing fields", "missing.jsonl", user("u1", "hi") + "\n" + `{"$rewindTo":"nope"}` + "\n" +
			`{"id":"m1","timestamp":"2026-01-05T09:00:02.000Z","content":"no type"}` + "\n" + user("u2", "again") + "\n",
			[]string{"user@4[text]"},
			[]string{
				"0: no session metadata record (expected a first line with sessionId and projectHash); the session id is taken from the file name",
				"2: $rewindTo names message nope, which does not occur before it; as Gemini CLI does, every earlier message is dropped",
				"3: message m1 has no type (expected user, gemini, info, error or warning); record skipped",
			}},
		{"unpaired tool call, bad tokens", "unpaired.jsonl", meta + "\n" + user("u1", "hi") + "\n" +
			`{"id":"g1","timestamp":"2026-01-05T09:00:03.000Z","type":"gemini","content":"","toolCalls":[{"name":"ls","args":{},"status":"success"},{"id":"c2","name":"glob","args":{"pattern":"*"},"status":"executing"}],"tokens":{"input":10,"cached":0,"total":10}}` + "\n",
			[]string{"user@2[text]", "assistant@3[tool_use]"},
			[]string{
				"3: tool call 1 (ls) has no id, so its result cannot be paired; call and result skipped",
				`3: tool call c2 (glob) has no result (status "executing"): the session ended or was cut before it finished`,
				"3: tokens has no output (expected a token count); the request's usage is ignored",
			}},
		// An empty id is no id: the call and its result are both
		// skipped (the result was kept, with no call to answer).
		{"empty call id", "emptyid.jsonl", meta + "\n" + user("u1", "hi") + "\n" +
			`{"id":"g1","timestamp":"2026-01-05T09:00:03.000Z","type":"gemini","content":"","toolCalls":[{"id":"","name":"read_file","args":{},"status":"success","result":[{"functionResponse":{"id":"","name":"read_file","response":{"output":"x"}}}]},{"id":"c2","name":"ls","args":{},"status":"success","result":[]}]}` + "\n",
			[]string{"user@2[text]", "assistant@3[tool_use]", "tool@3[tool_result]"},
			[]string{"3: tool call 1 (read_file) has no id, so its result cannot be paired; call and result skipped"}},
		// Arguments that are not an object are kept as recorded, and said:
		// no path or command can be read from them for the loss signals.
		// null (no arguments) is not said.
		{"args of other kinds", "args.jsonl", meta + "\n" + user("u1", "hi") + "\n" +
			`{"id":"g1","timestamp":"2026-01-05T09:00:03.000Z","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"read_file","args":"a.go","status":"success","result":[]},{"id":"c2","name":"ls","args":null,"status":"success","result":[]},{"id":"c3","name":"read_file","args":["b.go"],"status":"success","result":[]}]}` + "\n",
			[]string{"user@2[text]", "assistant@3[tool_use,tool_use,tool_use]", "tool@3[tool_result,tool_result,tool_result]"},
			[]string{`3: toolCalls args is "a.go", not an object (2 times, first at this line); kept as recorded, but no path, command or URL is read from it`}},
		{"malformed timestamps", "times.jsonl", `{"sessionId":"s1","projectHash":"p1","startTime":"Jan 5 09:00","lastUpdated":"2026-01-05T09:00:00.000Z"}` + "\n" +
			`{"id":"u1","timestamp":"2026-01-05 09:00:01","type":"user","content":"hi"}` + "\n" + user("u2", "again") + "\n",
			[]string{"user@2[text]", "user@3[text]"},
			[]string{`1: timestamp "Jan 5 09:00" is not an RFC 3339 time like 2026-01-28T20:56:10.594Z (2 malformed, first at this line); those records are read without a time, and the cache model takes no expiry across them`}},
		{"legacy cut", "cut.json", "{\n  \"sessionId\": \"s1\",\n  \"projectHash\": \"p1\",\n  \"messages\": [\n    " + user("u1", "hi") + ",\n    {\"id\": \"u2\", \"type\": \"us",
			[]string{"user@5[text]"},
			[]string{"6: the chat file is cut at line 6: the document ends before it is complete JSON; the 1 message(s) before the cut are kept"}},
		{"legacy invalid", "bad.json", "{\n  \"sessionId\": \"s1\",\n  \"projectHash\": \"p1\",\n  \"messages\": [\n    " + user("u1", "hi") + ",\n    7,\n    {\"id\": \"u2\" \"type\": \"user\"}\n  ]\n}\n",
			[]string{"user@5[text]"},
			[]string{
				"6: message is not a message record with an id (expected {id, timestamp, type, content}); skipped",
				"7: invalid JSON at line 7 (invalid character '\"' after object key:value pair); the 1 message(s) before it are kept, the rest of the document is skipped",
			}},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.file)
			if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			s := loadOne(t, p, corpus.Options{})
			if got := shape(s); !slices.Equal(got, tt.shape) {
				t.Errorf("messages:\n got %v\nwant %v", got, tt.shape)
			}
			if got := warnLines(s.Warnings); !slices.Equal(got, tt.warns) {
				t.Errorf("warnings:\n got %q\nwant %q", got, tt.warns)
			}
		})
	}
}

// TestSubagentChat: a subagent's chat, which Gemini CLI writes into a
// folder named for the parent session, names that parent.
func TestSubagentChat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chats", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "9f8e7d6c-0000-4000-8000-000000000002.jsonl")
	content := `{"sessionId":"9f8e7d6c-0000-4000-8000-000000000002","projectHash":"p1","startTime":"2026-01-05T09:00:00.000Z","lastUpdated":"2026-01-05T09:00:00.000Z","kind":"subagent","directories":["/work/demo"]}` + "\n" +
		`{"id":"u1","timestamp":"2026-01-05T09:00:01.000Z","type":"user","content":[{"text":"List the Go files"}]}` + "\n"
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	s := loadOne(t, p, corpus.Options{Strict: true})
	if s.Meta.Kind != "subagent" || s.Meta.Parent != "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d" {
		t.Errorf("meta %+v", s.Meta)
	}
}

// TestChatOnStdin: a chat piped to standard input is recognised by content
// and read like the file.
func TestChatOnStdin(t *testing.T) {
	for _, name := range []string{"session-2026-01-05T09-00-0a1b2c3d.jsonl", "session-2025-09-01T10-00-11111111.json"} {
		f, err := os.Open(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		ss, err := load.Load([]string{"-"}, corpus.Options{Stdin: f, Strict: true})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(ss) != 1 || ss[0].Format != corpus.FormatGemini || ss[0].Path != "-" || len(ss[0].Messages) < 5 {
			t.Errorf("%s on stdin: %d sessions %+v", name, len(ss), ss)
		}
	}
}
