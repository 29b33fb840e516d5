package codex_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/codex"
)

// The fixture is written from the documented shapes of current rollouts,
// not copied from a real file (the only real rollout at hand, cli 0.77.0,
// has no model output, no token_count and no compaction): peers.md §2 and
// §4, issue 13 (token_count with info.last_token_usage and
// model_context_window; compacted lines with an empty message and a
// replacement_history of retained user messages, a ghost_snapshot and an
// encrypted compaction item; turn_aborted; context_compacted), and
// codex-rs protocol's ResponseItem names (local_shell_call with an exec
// action, web_search_call, custom_tool_call, compaction /
// compaction_summary with encrypted_content). It ends cut mid-line, as
// real rollouts written by a killed process do.
const currentFixture = "rollout-2026-02-10T10-00-00-019c0000-aaaa-7bbb-8ccc-000000000002.jsonl"

func TestCodexCurrentRollout(t *testing.T) {
	p := filepath.Join("testdata", currentFixture)
	s := loadOne(t, p)[0]
	if s.Meta.AgentVersion != "0.98.0" || s.Meta.Model != "gpt-5.2-codex" {
		t.Errorf("meta %+v", s.Meta)
	}
	var got []string
	for _, m := range s.Messages {
		got = append(got, describe(m))
	}
	want := []string{
		"system@3[text]", "user*@4[text]", "user*@5[text]", "user@6[text]",
		"assistant@9[thinking,tool_use]", "tool@12[tool_result]",
		"assistant@13[tool_use,tool_use]", "tool@16[tool_result,image]",
		"assistant@17[text]",
		"user*S@22[text]", "assistant@23[tool_use]", "tool@24[tool_result]",
		"user*S@25[text]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages:\n got %v\nwant %v", got, want)
	}
	// Usage: one per request, on the newest assistant message, input
	// without its cached part; the repeated event (line 19) is skipped.
	var got2 []string
	for _, u := range s.Recorded.Usage {
		got2 = append(got2, fmt.Sprintf("msg %d line %d: in %d read %d out %d reasoning %d window %d prompt+out %d",
			u.AtMessage, u.Line, u.InputTokens, u.CacheReadTokens, u.OutputTokens, u.ReasoningTokens, u.ContextWindow, u.Prompt()+u.OutputTokens))
	}
	wantUsage := []string{
		"msg 4 line 11: in 3000 read 9000 out 300 reasoning 100 window 272000 prompt+out 12300",
		"msg 6 line 15: in 3200 read 12000 out 200 reasoning 0 window 272000 prompt+out 15400",
		"msg 8 line 18: in 3800 read 12000 out 60 reasoning 0 window 272000 prompt+out 15860",
	}
	if !slices.Equal(got2, wantUsage) {
		t.Errorf("usage:\n got %q\nwant %q", got2, wantUsage)
	}
	tool := s.Messages[7]
	if tool.Blocks[0].Text != "package demo" || tool.Blocks[1].MediaType != "image/png" || tool.Blocks[1].ToolCallID != "call_2" {
		t.Errorf("list output: %+v", tool.Blocks)
	}
	if a := s.Messages[6]; string(a.Blocks[0].Args) != `{"type":"exec","command":["sed","-n","1,20p","ünïcode_test.go"]}` ||
		a.Blocks[0].ToolName != "local_shell" || a.Blocks[1].ToolName != "web_search" || a.Blocks[1].ToolCallID != "ws_1" {
		t.Errorf("local shell / web search: %+v", a.Blocks)
	}
	if u := s.Messages[3].Blocks[0].Text; u != "Fix the failing test in ünïcode_test.go \"quoted\"." {
		t.Errorf("escaped user text %q", u)
	}
	if !strings.HasPrefix(s.Messages[9].Blocks[0].Text, codex.SummaryPrefix+"\n") {
		t.Errorf("summary message not recognised: %q", s.Messages[9].Blocks[0].Text[:40])
	}

	cs := s.Recorded.Compactions
	if len(cs) != 2 {
		t.Fatalf("%d compactions, want 2", len(cs))
	}
	c := cs[0]
	if c.Line != 21 || c.AtMessage != 9 || c.TokensBefore != 15860 || c.Summary != "" || !c.SummaryMissing {
		t.Errorf("compaction: line %d at %d before %d summary %q missing %v", c.Line, c.AtMessage, c.TokensBefore, c.Summary, c.SummaryMissing)
	}
	var rep []string
	for _, m := range c.Replacement {
		rep = append(rep, describe(m))
	}
	if want := []string{"user*@21[text]", "user@21[text]", "user*S@21[text]"}; !slices.Equal(rep, want) {
		t.Errorf("replacement history %v, want %v (the ghost snapshot is not history)", rep, want)
	}
	if sig := c.Replacement[2].Blocks[0].Signature; sig != "gAAAAB-summary-ciphertext" {
		t.Errorf("encrypted summary kept as %q", sig)
	}
	if cs[1].Line != 28 || cs[1].Summary != "older summary" || cs[1].Replacement != nil {
		t.Errorf("old-style compaction %+v", cs[1])
	}

	wantWarn := []string{
		"21: encrypted compaction item (remote compaction, 25 bytes of ciphertext): its summary cannot be read; kept as an empty summary message",
		"25: encrypted compaction_summary item (remote compaction, 11 bytes of ciphertext): its summary cannot be read; kept as an empty summary message",
		"27: unknown response_item type brand_new_item (1 occurrence(s), first at this line) skipped; the log may come from a newer Codex",
		"28: compacted line without replacement_history (Codex before remote compaction, or a damaged line): the retained history is not recorded, only the summary (13 bytes)",
		"29: the log is cut mid-line: the last line (139 bytes, no newline) is not complete JSON; line skipped",
	}
	if got := warnLines(s.Warnings); !slices.Equal(got, wantWarn) {
		t.Errorf("warnings:\n got %q\nwant %q", got, wantWarn)
	}
}

// describe renders a message as role[*][S]@line[block kinds].
func describe(m corpus.Message) string {
	r := string(m.Role)
	if m.Synthetic {
		r += "*"
	}
	if m.Summary {
		r += "S"
	}
	var kinds []string
	for _, b := range m.Blocks {
		kinds = append(kinds, string(b.Kind))
	}
	return fmt.Sprintf("%s@%d[%s]", r, m.Line, strings.Join(kinds, ","))
}

// Bad token_count events (written from the documented shape): a negative
// count, cached input larger than the input that includes it, an info
// that is not an object, neither last nor total usage, a count that is not
// a whole number and a usage that is not an object (both read as 0 tokens,
// in silence, before). Each is a warning naming its line; the request has
// no usage and the rest loads.
func TestCodexBadTokenCount(t *testing.T) {
	lines := []string{
		`{"timestamp":"2026-02-10T10:00:00.000Z","type":"session_meta","payload":{"id":"bad-usage","cli_version":"0.98.0"}}`,
		`{"timestamp":"2026-02-10T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]}}`,
		`{"timestamp":"2026-02-10T10:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":-5,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":1}}}}`,
		`{"timestamp":"2026-02-10T10:00:02.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":5,"cached_input_tokens":9,"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":6}}}}`,
		`{"timestamp":"2026-02-10T10:00:03.000Z","type":"event_msg","payload":{"type":"token_count","info":[1,2]}}`,
		`{"timestamp":"2026-02-10T10:00:04.000Z","type":"event_msg","payload":{"type":"token_count","info":{"model_context_window":272000}}}`,
		`{"timestamp":"2026-02-10T10:00:05.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":50,"cached_input_tokens":20,"output_tokens":5,"reasoning_output_tokens":0,"total_tokens":55}}}}`,
		`{"timestamp":"2026-02-10T10:00:06.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":"many","cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":1}}}}`,
		`{"timestamp":"2026-02-10T10:00:07.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":70,"cached_input_tokens":0,"output_tokens":1e30,"reasoning_output_tokens":0,"total_tokens":1}}}}`,
		`{"timestamp":"2026-02-10T10:00:08.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":5}}}`,
	}
	s := readRollout(t, "bad.jsonl", lines)
	want := []string{
		"3: token_count counts input -5, cached 0, output 1, reasoning 0 (expected counts >= 0, cached <= input, which includes it); usage ignored",
		"4: token_count counts input 5, cached 9, output 1, reasoning 0 (expected counts >= 0, cached <= input, which includes it); usage ignored",
		"5: token_count info is not an object (at byte 1: expected an object or null); usage not recorded for this request",
		"6: token_count has neither last_token_usage nor total_token_usage; usage ignored",
		`8: token_count last_token_usage.input_tokens holds "many" (expected a whole token count); usage not recorded for this request`,
		"9: token_count total_token_usage.output_tokens holds 1e30 (expected a whole token count); usage not recorded for this request",
		"10: token_count last_token_usage holds 5 (expected an object of token counts); usage not recorded for this request",
	}
	if got := warnLines(s.Warnings); !slices.Equal(got, want) {
		t.Errorf("warnings:\n got %q\nwant %q", got, want)
	}
	if len(s.Recorded.Usage) != 1 || s.Recorded.Usage[0].InputTokens != 30 || s.Recorded.Usage[0].Line != 7 {
		t.Errorf("usage %+v, want only line 7's (input 50 - cached 20)", s.Recorded.Usage)
	}
}

// TestCodexBadTypes: a line or item whose type is not a string, or
// missing, is named for what it is (written from the documented line
// shape); it was "unknown line type  ... the log may come from a newer
// Codex", with an empty name. The rest loads.
func TestCodexBadTypes(t *testing.T) {
	lines := []string{
		`{"timestamp":"2026-02-10T10:00:00.000Z","type":"session_meta","payload":{"id":"bad-types","cli_version":"0.98.0"}}`,
		`{"timestamp":"2026-02-10T10:00:01.000Z","type":7,"payload":{}}`,
		`{"timestamp":"2026-02-10T10:00:02.000Z","type":"response_item","payload":{"type":5,"role":"user","content":[{"type":"input_text","text":"lost"}]}}`,
		`{"timestamp":"2026-02-10T10:00:03.000Z","payload":{}}`,
		`{"timestamp":"2026-02-10T10:00:04.000Z","type":"response_item","payload":{"role":"user","content":[{"type":"input_text","text":"lost too"}]}}`,
		`{"timestamp":"2026-02-10T10:00:05.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"kept"}]}}`,
	}
	s := readRollout(t, "types.jsonl", lines)
	want := []string{
		"2: type is 7, not a string naming the line's type; line skipped",
		"3: payload.type is 5, not a string (once); read as absent",
		"3: response_item payload has no type (expected message, reasoning, function_call, ...); item skipped",
		"4: no type (expected session_meta, turn_context, response_item, compacted or event_msg); line skipped",
		"5: response_item payload has no type (expected message, reasoning, function_call, ...); item skipped",
	}
	if got := warnLines(s.Warnings); !slices.Equal(got, want) {
		t.Errorf("warnings:\n got %q\nwant %q", got, want)
	}
	if len(s.Messages) != 1 || s.Messages[0].Line != 6 {
		t.Errorf("messages %+v; want line 6's alone", s.Messages)
	}
}

// Timestamps in another form, or not a string (written from the
// documented line shape):
// one warning for the file, naming the first; those lines load without a
// time and the rest keep theirs.
func TestCodexBadTimestamps(t *testing.T) {
	lines := []string{
		`{"timestamp":"2026-02-10T10:00:00.000Z","type":"session_meta","payload":{"id":"bad-times","cli_version":"0.98.0"}}`,
		`{"timestamp":"1770717601","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`,
		`{"timestamp":"2026-02-10 10:00:02","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]}}`,
		`{"timestamp":"2026-02-10T10:00:03.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"again"}]}}`,
		`{"timestamp":1770717604,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"b"}]}}`,
	}
	s := readRollout(t, "times.jsonl", lines)
	want := []string{`2: timestamp "1770717601" is not an RFC 3339 time like 2026-01-28T20:56:10.594Z (3 malformed, first at this line); those records are read without a time, and the cache model takes no expiry across them`}
	if got := warnLines(s.Warnings); !slices.Equal(got, want) {
		t.Errorf("warnings:\n got %q\nwant %q", got, want)
	}
	var times []string
	for _, m := range s.Messages {
		times = append(times, m.Time.Format(time.TimeOnly))
	}
	if want := []string{"00:00:00", "00:00:00", "10:00:03", "00:00:00"}; !slices.Equal(times, want) {
		t.Errorf("message times %q, want %q (the zero time for the malformed)", times, want)
	}
}

// Metadata of another kind than a string (written from the documented
// line shape: no real rollout has one) reads as absent, as before, and is
// said once per field, with how many lines and where first; a later
// turn_context's good value is kept.
func TestCodexOddMetadata(t *testing.T) {
	lines := []string{
		`{"timestamp":"2026-02-10T10:00:00.000Z","type":"session_meta","payload":{"id":"odd-meta","cwd":["/work"],"cli_version":98,"model_provider":"openai"}}`,
		`{"timestamp":"2026-02-10T10:00:01.000Z","type":"turn_context","payload":{"cwd":{"path":"/work"},"model":"gpt-5-codex"}}`,
		`{"timestamp":"2026-02-10T10:00:02.000Z","type":"turn_context","payload":{"cwd":"/work/demo","model":"gpt-5-codex"}}`,
		`{"timestamp":"2026-02-10T10:00:03.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`,
		// Arguments are JSON in a string: these are not, so no path or
		// command can be read from them. They are kept as recorded.
		`{"timestamp":"2026-02-10T10:00:04.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"ls -la","call_id":"c1"}}`,
		`{"timestamp":"2026-02-10T10:00:05.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a"}}`,
	}
	s := readRollout(t, "odd.jsonl", lines)
	want := []string{
		`1: payload.cli_version is 98, not a string (once); read as absent`,
		`1: payload.cwd is ["/work"], not a string (2 times, first at this line); read as absent`,
		`5: function_call arguments is "ls -la", not a JSON object (once); kept as recorded, but no path, command or URL is read from it`,
	}
	if got := warnLines(s.Warnings); !slices.Equal(got, want) {
		t.Errorf("warnings:\n got %q\nwant %q", got, want)
	}
	if s.ID != "odd-meta" || s.Meta.Cwd != "/work/demo" || s.Meta.AgentVersion != "" || len(s.Messages) != 3 {
		t.Errorf("id %q, cwd %q, version %q, %d messages; want odd-meta, /work/demo, none, 3", s.ID, s.Meta.Cwd, s.Meta.AgentVersion, len(s.Messages))
	}
	if args := string(s.Messages[1].Blocks[0].Args); args != "ls -la" {
		t.Errorf("arguments kept as %q, want them as recorded", args)
	}
}

// readRollout reads a rollout written as lines (hand-written from the
// documented shapes) under name, and returns its one session.
func readRollout(t *testing.T, name string, lines []string) *corpus.Session {
	t.Helper()
	ss, err := codex.Read(name, strings.NewReader(strings.Join(lines, "\n")+"\n"), corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ss[0]
}
