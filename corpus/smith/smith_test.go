package smith_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/synth"
)

func smithWriteFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func smithLoadOne(t *testing.T, p string) *corpus.Session {
	t.Helper()
	ss, err := load.Load([]string{p}, corpus.Options{})
	if err != nil {
		t.Fatalf("Load(%s): %v", p, err)
	}
	if len(ss) != 1 {
		t.Fatalf("Load(%s): %d sessions, want 1", p, len(ss))
	}
	return ss[0]
}

// The example lines of smith.md §1.3, one per block kind.
const specTranscript = `{"role":"user","content":[{"type":"text","text":"Run the specs and fix whatever fails"}],"synthetic":false,"id":"3f9a0c51d2e87b46"}
{"role":"assistant","content":[{"type":"thinking","text":"Run the suite first.","signature":"ErUBCkYIARgCIkDx3s+Signature/Bytes=="},{"type":"text","text":"Running the specs."},{"type":"tool_use","tool_call_id":"toolu_01XyZ","tool_name":"bash","tool_args":{"command":"crystal spec"}}],"synthetic":false,"id":"a1b2c3d4e5f60718"}
{"role":"tool","content":[{"type":"tool_result","text":"312 examples, 1 failures\n…","tool_call_id":"toolu_01XyZ","is_error":false}],"synthetic":false,"id":"0badc0ffee123456"}
{"role":"assistant","content":[{"type":"redacted_thinking","text":"EncryptedPayload=="},{"type":"text","text":"Fixed."}],"synthetic":false,"id":"77e1d0c2b9a84f10"}
{"role":"user","content":[{"type":"text","text":"Your previous response was cut off at the output token limit. Continue exactly where you left off. Do not repeat what you already wrote and do not start over."}],"synthetic":true,"id":"5c0e9b1a2d3f4e6a"}
{"role":"user","content":[{"type":"text","text":"what is wrong here?"},{"type":"image","media_type":"image/png","source":"shot.png","media_ref":"9c56…64hex"}],"synthetic":false,"id":"…"}
{"role":"tool","content":[{"type":"tool_result","text":"Attached 'shot.png' as image/png (3 B).","tool_call_id":"p1","is_error":false},{"type":"image","tool_call_id":"p1","media_type":"image/png","source":"shot.png"}],"synthetic":false,"id":"…"}
`

func TestSpecExampleLinesLoadExactly(t *testing.T) {
	p := smithWriteFile(t, t.TempDir(), "transcript.jsonl", specTranscript)
	s := smithLoadOne(t, p)
	text := func(s string) corpus.Block { return corpus.Block{Kind: corpus.KindText, Text: s} }
	want := []corpus.Message{
		{ID: "3f9a0c51d2e87b46", Role: corpus.RoleUser, Line: 1, Blocks: []corpus.Block{text("Run the specs and fix whatever fails")}},
		{ID: "a1b2c3d4e5f60718", Role: corpus.RoleAssistant, Line: 2, Blocks: []corpus.Block{
			{Kind: corpus.KindThinking, Text: "Run the suite first.", Signature: "ErUBCkYIARgCIkDx3s+Signature/Bytes=="},
			text("Running the specs."),
			{Kind: corpus.KindToolUse, ToolCallID: "toolu_01XyZ", ToolName: "bash", Args: []byte(`{"command":"crystal spec"}`)}}},
		{ID: "0badc0ffee123456", Role: corpus.RoleTool, Line: 3, Blocks: []corpus.Block{
			{Kind: corpus.KindToolResult, Text: "312 examples, 1 failures\n…", ToolCallID: "toolu_01XyZ"}}},
		{ID: "77e1d0c2b9a84f10", Role: corpus.RoleAssistant, Line: 4, Blocks: []corpus.Block{
			{Kind: corpus.KindRedactedThinking, Text: "EncryptedPayload=="}, text("Fixed.")}},
		{ID: "5c0e9b1a2d3f4e6a", Role: corpus.RoleUser, Line: 5, Synthetic: true, Blocks: []corpus.Block{text(synth.SmithContinueText)}},
		{ID: "…", Role: corpus.RoleUser, Line: 6, Blocks: []corpus.Block{text("what is wrong here?"),
			{Kind: corpus.KindImage, MediaType: "image/png", Source: "shot.png", MediaRef: "9c56…64hex"}}},
		{ID: "…", Role: corpus.RoleTool, Line: 7, Blocks: []corpus.Block{
			{Kind: corpus.KindToolResult, Text: "Attached 'shot.png' as image/png (3 B).", ToolCallID: "p1"},
			{Kind: corpus.KindImage, ToolCallID: "p1", MediaType: "image/png", Source: "shot.png"}}},
	}
	if !reflect.DeepEqual(s.Messages, want) {
		t.Errorf("messages:\n got %#v\nwant %#v", s.Messages, want)
	}
	// The tool_result "p1" has no tool_use in this excerpt: loaded, warned.
	wantW := []corpus.Warning{{File: p, Line: 7, Message: `tool_result for "p1" has no matching tool_use in this session; expected an earlier assistant message calling it`}}
	if !reflect.DeepEqual(s.Warnings, wantW) {
		t.Errorf("warnings:\n got %#v\nwant %#v", s.Warnings, wantW)
	}
	if s.Format != corpus.FormatSmithTranscript || s.ID != filepath.Base(filepath.Dir(p)) || s.Path != p {
		t.Errorf("session: format %q id %q path %q", s.Format, s.ID, s.Path)
	}
}

func TestLineWithoutSignatureOrIDLoads(t *testing.T) {
	p := smithWriteFile(t, t.TempDir(), "t.jsonl", `{"role":"assistant","content":[{"type":"text","text":"hi"}]}`+"\n")
	s := smithLoadOne(t, p)
	want := []corpus.Message{{ID: "L1", Role: corpus.RoleAssistant, Line: 1,
		Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "hi"}}}}
	if !reflect.DeepEqual(s.Messages, want) || len(s.Warnings) != 0 {
		t.Errorf("got %#v, warnings %v", s.Messages, s.Warnings)
	}
	if s.ID != "t" {
		t.Errorf("id %q, want t (the file name)", s.ID)
	}
}

func TestBadLinesAreSkippedWithFileAndLine(t *testing.T) {
	good := `{"role":"user","content":[{"type":"text","text":"ok"}],"synthetic":false,"id":"0000000000000001"}`
	tests := []struct {
		name    string
		content string
		keep    int // messages loaded
		want    []corpus.Warning
	}{
		{"truncated last line", good + "\n" + `{"role":"assistant","content":[{"type":`, 1,
			[]corpus.Warning{{Line: 2, Message: "truncated last line (the file ends mid-record, as after a crash while writing); expected a complete JSON object; skipped"}}},
		{"not JSON", good + "\nhello world\n" + good + "\n", 2,
			[]corpus.Warning{{Line: 2, Message: `not valid JSON (invalid character 'h' looking for beginning of value at byte 1); expected one JSON object per line (a smith message: {"role":…,"content":[…]}); skipped`}}},
		{"damaged first line", "hello\n" + good + "\n", 1,
			[]corpus.Warning{{Line: 1, Message: `not valid JSON (invalid character 'h' looking for beginning of value at byte 1); expected one JSON object per line (a smith message: {"role":…,"content":[…]}); skipped`}}},
		{"invalid UTF-8 in a text", good + "\n" + `{"role":"user","content":[{"type":"text","text":"caf` + "\xe9" + `"}]}` + "\n", 1,
			[]corpus.Warning{{Line: 2, Message: "invalid UTF-8 at byte 52; expected UTF-8 JSON text; skipped"}}},
		{"blank lines are not records", "\n" + good + "\n\n  \n" + good + "\n", 2, nil},
		{"content of the wrong type", `{"role":"user","content":"hello"}` + "\n" + good + "\n", 1,
			[]corpus.Warning{{Line: 1, Message: `expected "content" to be an array of content blocks, found string; skipped`}}},
		{"flag of the wrong type", good + "\n" + `{"role":"user","content":[],"synthetic":"yes"}` + "\n", 1,
			[]corpus.Warning{{Line: 2, Message: `expected "synthetic" to be true or false, found string; skipped`}}},
		{"a block that is not an object", good + "\n" + `{"role":"user","content":[42]}` + "\n", 1,
			[]corpus.Warning{{Line: 2, Message: `content block 1: expected a JSON object (a content block), found number; skipped`}}},
		{"a line that is an array", good + "\n" + `["user","hi"]` + "\n", 1,
			[]corpus.Warning{{Line: 2, Message: `expected one JSON object per line (a smith message: {"role":…,"content":[…]}), found array; skipped`}}},
		{"missing role", good + "\n" + `{"content":[]}` + "\n", 1,
			[]corpus.Warning{{Line: 2, Message: `missing "role"; expected {"role":"user|assistant|tool","content":[…]}; skipped`}}},
		{"unknown role", good + "\n" + `{"role":"robot","content":[]}` + "\n", 1,
			[]corpus.Warning{{Line: 2, Message: `unknown role "robot"; expected "user", "assistant" or "tool"; skipped`}}},
		{"unknown block type is kept", `{"role":"assistant","content":[{"type":"video","text":"a\nb"}],"id":"v"}` + "\n", 1,
			[]corpus.Warning{{Line: 1, Message: `content block 1 has unknown type "video"; kept as an unknown block (expected text, thinking, redacted_thinking, tool_use, tool_result, image or document)`}}},
		{"tool_use without result", `{"role":"assistant","content":[{"type":"tool_use","tool_call_id":"c1","tool_name":"bash","tool_args":{}}]}` + "\n", 1,
			[]corpus.Warning{{Line: 1, Message: `tool_use "c1" (bash) has no tool_result in this session; expected a tool message answering it (the recording may end mid-turn)`}}},
		{"tool_result without use", good + "\n" + `{"role":"tool","content":[{"type":"tool_result","text":"x","tool_call_id":"c9","is_error":true}]}` + "\n", 2,
			[]corpus.Warning{{Line: 2, Message: `tool_result for "c9" has no matching tool_use in this session; expected an earlier assistant message calling it`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := smithWriteFile(t, t.TempDir(), "x.jsonl", tt.content)
			s := smithLoadOne(t, p)
			if len(s.Messages) != tt.keep {
				t.Errorf("%d messages, want %d", len(s.Messages), tt.keep)
			}
			for i := range tt.want {
				tt.want[i].File = p
			}
			if !reflect.DeepEqual(s.Warnings, tt.want) {
				t.Errorf("warnings:\n got %#v\nwant %#v", s.Warnings, tt.want)
			}
		})
	}
}

func TestUnknownBlockKeepsItsRawJSON(t *testing.T) {
	line := `{"role":"assistant","content":[{"type":"video","text":"a\nb","url":"x"},{"type":"text","text":"c\td"}]}`
	s := smithLoadOne(t, smithWriteFile(t, t.TempDir(), "x.jsonl", line+"\n"))
	b := s.Messages[0].Blocks
	if b[0].Kind != corpus.KindUnknown || string(b[0].Payload) != `{"type":"video","text":"a\nb","url":"x"}` || b[0].Text != "a\nb" {
		t.Errorf("unknown block %#v", b[0])
	}
	if b[1].Kind != corpus.KindText || b[1].Text != "c\td" {
		t.Errorf("text block %#v", b[1])
	}
}

func TestContinuationsWithoutTheFlagAreRecognised(t *testing.T) {
	msg := func(text, extra string) string {
		return `{"role":"user","content":[{"type":"text","text":"` + text + `"}]` + extra + "}\n"
	}
	content := msg("Fix it", "") +
		msg(synth.SmithContinueText, "") +
		msg(synth.SmithRetrySmaller, "") +
		msg(synth.SmithStopHookText, "") +
		msg(synth.SmithContinueText, `,"synthetic":false`) + // the flag wins
		msg("Summary of the earlier conversation: we fixed it", "") +
		msg("12 earlier messages were dropped to stay within the context window. Ask the user if you need details from before this point.", "")
	s := smithLoadOne(t, smithWriteFile(t, t.TempDir(), "old.jsonl", content))
	var syn, sum []bool
	for _, m := range s.Messages {
		syn = append(syn, m.Synthetic)
		sum = append(sum, m.Summary)
	}
	if want := []bool{false, true, true, true, false, false, false}; !reflect.DeepEqual(syn, want) {
		t.Errorf("synthetic %v, want %v", syn, want)
	}
	if want := []bool{false, false, false, false, false, true, true}; !reflect.DeepEqual(sum, want) {
		t.Errorf("summary %v, want %v", sum, want)
	}
}

func TestSixtyFourMegabyteLineLoads(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 64 MB line")
	}
	big := strings.Repeat("0123456789abcde\\n", 4<<20) // 68 MB escaped, 64 MB of text
	content := `{"role":"assistant","content":[{"type":"tool_use","tool_call_id":"c","tool_name":"bash","tool_args":{"command":"cat big.log"}}]}` + "\n" +
		`{"role":"tool","content":[{"type":"tool_result","text":"` + big + `","tool_call_id":"c","is_error":false}]}` + "\n"
	s := smithLoadOne(t, smithWriteFile(t, t.TempDir(), "big.jsonl", content))
	if len(s.Messages) != 2 || len(s.Warnings) != 0 {
		t.Fatalf("%d messages, warnings %v", len(s.Messages), s.Warnings)
	}
	got := s.Messages[1].Blocks[0].Text
	if len(got) != 64<<20 || !strings.HasPrefix(got, "0123456789abcde\n0123") {
		t.Errorf("result text: %d bytes, prefix %q", len(got), got[:20])
	}
}

func TestSynthTranscriptRoundTrips(t *testing.T) {
	dir := t.TempDir()
	for _, p := range synth.Profiles() {
		if testing.Short() && p.BigBytes > 1<<20 {
			continue
		}
		msgs := synth.Smith(p, 42)
		path := filepath.Join(dir, p.Name+".jsonl")
		if err := synth.WriteSmithTranscript(path, msgs); err != nil {
			t.Fatal(err)
		}
		s := smithLoadOne(t, path)
		for i := range msgs {
			msgs[i].Line = i + 1
		}
		if len(s.Warnings) != 0 {
			t.Errorf("%s: warnings %v", p.Name, s.Warnings[:1])
		}
		if !reflect.DeepEqual(s.Messages, msgs) {
			for i := range msgs {
				if i >= len(s.Messages) || !reflect.DeepEqual(s.Messages[i], msgs[i]) {
					t.Fatalf("%s: message %d differs after a round trip", p.Name, i)
				}
			}
			t.Fatalf("%s: %d messages read back, want %d", p.Name, len(s.Messages), len(msgs))
		}
	}
}

func TestLegacyTranscriptGetsLineIDs(t *testing.T) {
	msgs := synth.Smith(synth.Continuations, 3)
	path := filepath.Join(t.TempDir(), "legacy.jsonl")
	if err := synth.WriteSmithTranscriptLegacy(path, msgs); err != nil {
		t.Fatal(err)
	}
	s := smithLoadOne(t, path)
	for i, m := range s.Messages {
		if want := "L" + smithItoa(i+1); m.ID != want {
			t.Fatalf("message %d: id %q, want %q", i, m.ID, want)
		}
		// Without the flag, smith's own continuation texts are recognised.
		if m.Synthetic != msgs[i].Synthetic {
			t.Errorf("message %d: synthetic %v, want %v", i, m.Synthetic, msgs[i].Synthetic)
		}
	}
}

func TestStdinTranscript(t *testing.T) {
	ss, err := load.Load([]string{"-"}, corpus.Options{Stdin: strings.NewReader(specTranscript)})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 || len(ss[0].Messages) != 7 || ss[0].Path != "-" || ss[0].ID != "stdin" {
		t.Fatalf("got %d sessions", len(ss))
	}
	if w := ss[0].Warnings; len(w) != 1 || w[0].File != "-" || w[0].Line != 7 {
		t.Errorf("warnings %v", w)
	}
	_, err = load.Load([]string{"-"}, corpus.Options{Stdin: strings.NewReader("\n")})
	if err == nil || err.Error() != "-: standard input is empty; expected a smith transcript or session.json, or a Claude Code, Codex or Gemini CLI log" {
		t.Errorf("empty stdin: %v", err)
	}
}

func smithTestSession(msgs []corpus.Message) *corpus.Session {
	zone := time.FixedZone("", 2*3600)
	return &corpus.Session{ID: "session-1786201234-a1b2c3", Format: corpus.FormatSmithTranscript, Messages: msgs,
		Meta: corpus.Meta{Model: "claude-sonnet-5", Provider: "anthropic", Cwd: "/home/u/proj", Title: "run-the-specs",
			CreatedAt: time.Date(2026, 8, 8, 15, 6, 2, 0, zone), UpdatedAt: time.Date(2026, 8, 8, 15, 40, 11, 0, zone), ContextRatio: 1.18}}
}

func TestSessionFolder(t *testing.T) {
	msgs := synth.Smith(synth.Rereads, 5)
	src := smithTestSession(msgs)
	src.Recorded.History = append([]corpus.Message{{ID: "5555555555555555", Role: corpus.RoleUser,
		Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "Summary of the earlier conversation: work"}}}}, msgs[len(msgs)-5:]...)
	dir := filepath.Join(t.TempDir(), "folder-name")
	if err := synth.WriteSmithSession(dir, src); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "transcript.jsonl"), filepath.Join(dir, "session.json")} {
		s := smithLoadOne(t, p)
		if s.ID != src.ID || s.Format != corpus.FormatSmithTranscript || s.Path != filepath.Join(dir, "transcript.jsonl") {
			t.Errorf("%s: id %q format %q path %q", p, s.ID, s.Format, s.Path)
		}
		if !reflect.DeepEqual(s.Meta, src.Meta) {
			t.Errorf("%s: meta %#v\nwant %#v", p, s.Meta, src.Meta)
		}
		if len(s.Messages) != len(msgs) || len(s.Recorded.History) != 6 || !s.Recorded.History[0].Summary {
			t.Errorf("%s: %d messages, %d recorded", p, len(s.Messages), len(s.Recorded.History))
		}
		if h := s.Recorded.History[1]; h.ID != msgs[len(msgs)-5].ID || h.Line != 1 {
			t.Errorf("history message: id %q line %d", h.ID, h.Line)
		}
	}

	// Without a transcript, session.json's messages are the history.
	if err := os.Remove(filepath.Join(dir, "transcript.jsonl")); err != nil {
		t.Fatal(err)
	}
	s := smithLoadOne(t, dir)
	if s.Format != corpus.FormatSmithSession || len(s.Messages) != 6 || s.Recorded.History != nil || s.Path != filepath.Join(dir, "session.json") {
		t.Errorf("session only: format %q, %d messages, path %s", s.Format, len(s.Messages), s.Path)
	}
}

func TestSessionJSONDamage(t *testing.T) {
	dir := t.TempDir()
	smithWriteFile(t, dir, "s/transcript.jsonl", specTranscript)
	sp := smithWriteFile(t, dir, "s/session.json", `{"id":"x","created_at":12,"messages":[{"role":"user","content":[]},{"role":"robot","content":[]}],"context_ratio":"a"}`)
	s := smithLoadOne(t, filepath.Join(dir, "s"))
	want := []corpus.Warning{
		{File: sp, Line: 1, Message: `expected "created_at" to be a string, found 12; ignored`},
		{File: sp, Line: 1, Message: `expected "context_ratio" to be a number, found "a"; ignored`},
		{File: sp, Line: 1, Message: `messages[1]: unknown role "robot"; expected "user", "assistant" or "tool"; skipped`},
	}
	if got := s.Warnings[1:]; !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n got %#v\nwant %#v", got, want)
	}
	if s.ID != "x" || len(s.Recorded.History) != 1 || s.Recorded.History[0].ID != "M1" {
		t.Errorf("id %q history %v", s.ID, s.Recorded.History)
	}

	// A session.json that is not JSON costs only the metadata.
	smithWriteFile(t, dir, "s/session.json", `{"id":`)
	s = smithLoadOne(t, filepath.Join(dir, "s"))
	if len(s.Messages) != 7 || s.ID != "s" {
		t.Errorf("%d messages, id %q", len(s.Messages), s.ID)
	}
	last := s.Warnings[len(s.Warnings)-1]
	if last.File != sp || last.Message != "JSON ends early (unexpected end of JSON input); expected smith's session.json object; loaded the transcript without it" {
		t.Errorf("warning %#v", last)
	}
}

func TestSessionsRootInIndexOrder(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sessions")
	var src []*corpus.Session
	for i, id := range []string{"session-3", "session-1", "session-2"} {
		s := smithTestSession(synth.Smith(synth.BashRuns, uint64(i)))
		s.ID = id
		src = append(src, s)
	}
	if _, err := synth.WriteSmithRoot(root, src); err != nil {
		t.Fatal(err)
	}
	// A legacy flat file the index lists, and one it does not.
	legacy := &corpus.Session{ID: "session-0", Format: corpus.FormatSmithSession, Messages: synth.Smith(synth.Thinking, 9)}
	smithWriteFile(t, root, "session-0.json", string(synth.AppendSmithSessionJSON(nil, legacy, legacy.Messages)))
	index, _ := os.ReadFile(filepath.Join(root, "index.json"))
	index = append([]byte(`[{"id":"session-0","created_at":"2026-08-08T15:06:02+02:00","updated_at":"2026-08-08T15:06:02+02:00","first_prompt":"x","message_count":1},`), index[1:]...)
	smithWriteFile(t, root, "index.json", string(index))

	ss, err := load.Load([]string{root}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range ss {
		ids = append(ids, s.ID)
		if len(s.Warnings) != 0 {
			t.Errorf("%s: %v", s.ID, s.Warnings[0])
		}
	}
	if want := []string{"session-0", "session-3", "session-1", "session-2"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	if ss[0].Format != corpus.FormatSmithSession || ss[0].Path != filepath.Join(root, "session-0.json") {
		t.Errorf("legacy: %q %q", ss[0].Format, ss[0].Path)
	}
}

func TestSessionsRootWithDamagedEntryLoadsTheOthers(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sessions")
	var src []*corpus.Session
	for i, id := range []string{"session-a", "session-b", "session-c"} {
		s := smithTestSession(synth.Smith(synth.BashRuns, uint64(i)))
		s.ID = id
		src = append(src, s)
	}
	if _, err := synth.WriteSmithRoot(root, src); err != nil {
		t.Fatal(err)
	}
	index, _ := os.ReadFile(filepath.Join(root, "index.json"))
	// Entry 2 damaged (id is a number), entry 4 names a folder that is gone.
	damaged := strings.Replace(string(index), `"id":"session-b"`, `"id":17`, 1)
	damaged = strings.TrimSuffix(damaged, "]") + `,{"id":"session-gone","message_count":3}]`
	smithWriteFile(t, root, "index.json", damaged)
	if err := os.RemoveAll(filepath.Join(root, "session-b")); err != nil {
		t.Fatal(err)
	}

	ss, err := load.Load([]string{root}, corpus.Options{})
	var ids []string
	for _, s := range ss {
		ids = append(ids, s.ID)
	}
	if want := []string{"session-a", "session-c"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	ip := filepath.Join(root, "index.json")
	want := ip + `:1: entry 2: expected "id" to be a string, found number; skipped` + "\n" +
		filepath.Join(root, "session-gone") + ": listed in index.json (entry 4) but missing; expected a session folder or a legacy session-gone.json"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
}

func TestDemoCorpusLoads(t *testing.T) {
	paths, err := synth.WriteDemo(t.TempDir(), synth.DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := load.Load(paths, corpus.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	var smith []*corpus.Session
	for _, s := range ss {
		if s.Format == corpus.FormatSmithTranscript || s.Format == corpus.FormatSmithSession {
			smith = append(smith, s)
		}
	}
	if len(smith) != 3 {
		t.Fatalf("%d smith sessions, want 3", len(smith))
	}
	for _, s := range smith {
		n := len(s.Messages)
		if n < 60 || n > 200 {
			t.Errorf("%s: %d messages, want 60–200", s.ID, n)
		}
	}
	if smith[2].Format != corpus.FormatSmithSession || !smith[2].Messages[0].Summary {
		t.Errorf("third demo session: format %q", smith[2].Format)
	}
	if h := smith[1].Recorded.History; len(h) == 0 || !h[0].Summary {
		t.Errorf("second demo session: recorded history does not open with a summary")
	}
}

// The decoder unescapes in place, in its own copy of the file: the file
// itself is never written.
func TestInputsAreNotModified(t *testing.T) {
	p := smithWriteFile(t, t.TempDir(), "t.jsonl", specTranscript)
	before, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if _, err := load.Load([]string{p}, corpus.Options{}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(p)
	fi2, _ := os.Stat(p)
	if string(before) != string(after) || !fi.ModTime().Equal(fi2.ModTime()) {
		t.Error("loading changed the input file")
	}
}
