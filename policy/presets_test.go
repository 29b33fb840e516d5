package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// Each preset's documented constants, in action. Histories are built
// here, not read from real logs: a user turn, then steps of one tool call
// and its result.

func presetPolicy(t *testing.T, name string, set map[string]string) Policy {
	t.Helper()
	p, err := New(name, set)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func puser(id, text string) corpus.Message {
	return corpus.Message{ID: id, Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: text}}}
}

func passt(id, text string) corpus.Message {
	return corpus.Message{ID: id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: text}}}
}

// step is an assistant tool call and its result (a tool message).
func step(id, tool, result string) []corpus.Message {
	return []corpus.Message{
		{ID: "a-" + id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: tool, Args: []byte(`{"n":"` + id + `"}`)}}},
		{ID: "r-" + id, Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: id, ToolName: tool, Text: result}}},
	}
}

// sums is what the replay keeps for p over h.
func sums(p Policy, h []corpus.Message) Checkpoint {
	at := Checkpoint{Turns: []TurnStart{}}
	for i := range h {
		at.Turns = AddTurn(at.Turns, &h[i], i, at.Thinking)
		measureInto(&at, p, &h[i])
	}
	// Pending as the replay keeps it: the units since the last response;
	// and the request's number, one per response so far.
	for i := len(h) - 1; i >= 0 && h[i].Role != corpus.RoleAssistant; i-- {
		u, _, _ := p.Measure(&h[i])
		at.Pending += u
	}
	for i := range h {
		if h[i].Role == corpus.RoleAssistant {
			at.Request++
		}
	}
	return at
}

// measureInto adds m's running sums under p to at, as the replay does
// when it appends m.
func measureInto(at *Checkpoint, p Policy, m *corpus.Message) {
	u, c, k := p.Measure(m)
	at.Units, at.Count, at.Thinking = at.Units+u, at.Count+c, at.Thinking+k
}

// adoptInto makes o the history a test walk goes on from, moving the turn
// starts and result marks as the replay does; fc is where o first differs
// from *h.
func adoptInto(h *[]corpus.Message, at *Checkpoint, p Policy, o Outcome, fc int) {
	at.Turns = AdoptTurns(p, at.Turns, o, fc)
	at.Results = AdoptResults(p, at.Results, o.History, fc)
	*h, at.Units, at.Count, at.Thinking = o.History, o.Units, o.Count, o.Thinking
}

// appendInto appends m to a test walk's history as the replay does: its
// turn start, its result marks and its running sums.
func appendInto(h *[]corpus.Message, at *Checkpoint, p Policy, m *corpus.Message) {
	at.Turns = AddTurn(at.Turns, m, len(*h), at.Thinking)
	at.Results = AddResult(p, at.Results, *h, m)
	*h = append(*h, *m)
	measureInto(at, p, m)
}

// walk replays msgs through p as the replay does (checkpoint, compact,
// append) and returns the final history and every outcome that changed it.
func walk(p Policy, msgs []corpus.Message) ([]corpus.Message, []Outcome) {
	var h []corpus.Message
	var outs []Outcome
	var prev *corpus.Message
	for i := range msgs {
		m := &msgs[i]
		if p.Checkpoint("", prev, m) {
			at := sums(p, h)
			at.Request = i
			if o := p.Compact(h, at); o.Strategy != None {
				h = o.History
				outs = append(outs, o)
			}
		}
		h = append(h, *m)
		prev = m
	}
	return h, outs
}

// results lists the texts of the tool results in h.
func presults(h []corpus.Message) []string {
	var out []string
	for i := range h {
		for _, b := range h[i].Blocks {
			if b.Kind == corpus.KindToolResult {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

// chars4Text is text of n chars4 tokens (4 ASCII chars each).
func chars4Text(n int) string { return strings.Repeat("abcd", n) }

// TestSWEAgentKeepsTheLastFiveObservations: LastNObservations elides every
// observation but the first and the last 5 (SWE-agent
// history_processors.py _get_omit_indices); the first is the task, so of
// the tool outputs only the last 5 stay, the first one included in the
// mask.
func TestSWEAgentKeepsTheLastFiveObservations(t *testing.T) {
	p := presetPolicy(t, "swe-agent", nil)
	msgs := []corpus.Message{puser("u", "fix the bug")}
	for i := range 12 {
		msgs = append(msgs, step(fmt.Sprint(i), "bash", strings.Repeat(fmt.Sprintf("line %d of a long output\n", i), 3+i))...)
	}
	msgs = append(msgs, passt("done", "done"))
	h, _ := walk(p, msgs)
	if h[0].Blocks[0].Text != "fix the bug" {
		t.Errorf("the task became %q", h[0].Blocks[0].Text)
	}
	got := presults(h)
	for i, text := range got {
		masked := fmt.Sprintf("Old environment output: (%d lines omitted)", 3+i)
		if keep := i >= len(got)-5; keep == (text == masked) {
			t.Errorf("observation %d: %q (kept: the last 5)", i, text)
		}
	}
	// keep_first keeps the first tool output as well.
	h, _ = walk(presetPolicy(t, "swe-agent", map[string]string{"mask.keep_first": "true"}), msgs)
	if got := presults(h); strings.HasPrefix(got[0], "Old environment output") || got[1] != "Old environment output: (4 lines omitted)" {
		t.Errorf("with keep_first: %q, %q; want the first kept, the second masked", got[0], got[1])
	}
}

func TestSWEAgentMasksAtEveryStep(t *testing.T) {
	p := presetPolicy(t, "swe-agent", nil)
	msgs := []corpus.Message{puser("u", "go")}
	for i := range 9 {
		msgs = append(msgs, step(fmt.Sprint(i), "bash", strings.Repeat("x\n", 50))...)
	}
	msgs = append(msgs, passt("done", "done"))
	var h []corpus.Message
	var prev *corpus.Message
	for i := range msgs {
		m := &msgs[i]
		if p.Checkpoint("", prev, m) {
			if o := p.Compact(h, sums(p, h)); o.Strategy != None {
				h = o.History
			}
			open := 0
			for _, r := range presults(h) {
				if !strings.HasPrefix(r, "Old environment output") {
					open++
				}
			}
			if n := len(presults(h)); open != min(n, 5) {
				t.Fatalf("request before message %d: %d observations in full of %d, want %d", i, open, n, min(n, 5))
			}
		}
		h = append(h, *m)
		prev = m
	}
}

func TestSplitLinesCountsAsPython(t *testing.T) {
	for s, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\r\nb\r\n": 2, "a\rb": 2, "\n\n": 2, "a\u2028b": 2, "a\x0bb\x0c": 2,
		"a\u0085b\n": 2, "a\u2029": 1, "\x1c\x1d\x1e": 3, "a\nb\n\nc": 4, "    1→x\n    2→y": 2, "\xc2": 1, "\xe2\x80": 1} {
		if got := splitLines(s); got != want {
			t.Errorf("splitLines(%q) = %d, want %d", s, got, want)
		}
	}
}

// FuzzSplitLines holds the \n-only fast path to the loop that handles
// every Python line break (splitLinesLoop), on any bytes.
func FuzzSplitLines(f *testing.F) {
	for _, s := range []string{"", "a\nb", "a\r\nb", "x\u2028y\n", "\xc2\x85", "\xe2\x80\xa9\n", "    1→a\n    2→b\n", "\xc2", "a\n\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := splitLines(s), splitLinesLoop(s); got != want {
			t.Fatalf("splitLines(%q) = %d, the loop gives %d", s, got, want)
		}
	})
}

func TestOpencodePruneLeavesTheNewest40000Tokens(t *testing.T) {
	p := presetPolicy(t, "opencode", nil)
	msgs := []corpus.Message{puser("u1", "first")}
	for i := range 10 { // 10 results of 9,000 tokens in the first turn
		msgs = append(msgs, step(fmt.Sprintf("old%d", i), "read", chars4Text(9000))...)
	}
	msgs = append(msgs, passt("e1", "ok"), puser("u2", "second"))
	msgs = append(msgs, step("t2", "read", chars4Text(9000))...)
	msgs = append(msgs, passt("e2", "ok"), puser("u3", "third"), passt("e3", "ok"))
	h, outs := walk(p, msgs)
	if len(outs) != 1 || outs[0].Stages[0].Name != "prune" {
		t.Fatalf("outcomes %+v, want one prune", outs)
	}
	got := presults(h)
	// The second turn's result is in the last 2 turns: untouched and not
	// counted. Of the first turn's, the newest 4 (36,000 tokens) fit in
	// 40,000; a fifth would not.
	for i, text := range got {
		kept := i >= 6
		if kept != (text != ClaudeCodeStub) {
			t.Errorf("result %d: kept=%v, want %v", i, text != ClaudeCodeStub, kept)
		}
	}
}

func TestOpencodePruneNeedsMoreThan20000AndSparesSkill(t *testing.T) {
	p := presetPolicy(t, "opencode", map[string]string{"cap.max": "1000000"})
	msgs := []corpus.Message{puser("u1", "first")}
	msgs = append(msgs, step("s", "skill", chars4Text(30000))...)
	for i := range 5 { // 5 × 9,000: 36,000 kept, 9,000 to prune (under 20,000)
		msgs = append(msgs, step(fmt.Sprint(i), "read", chars4Text(9000))...)
	}
	msgs = append(msgs, passt("e1", "ok"), puser("u2", "a"), passt("e2", "ok"), puser("u3", "b"), passt("e3", "ok"))
	h, outs := walk(p, msgs)
	if len(outs) != 0 {
		t.Fatalf("pruned %d times with 9,000 tokens to reclaim, want none", len(outs))
	}
	msgs = append(msgs[:len(msgs)-5], step("5", "read", chars4Text(9000))...)
	msgs = append(msgs, step("6", "read", chars4Text(9000))...)
	msgs = append(msgs, passt("e1", "ok"), puser("u2", "a"), passt("e2", "ok"), puser("u3", "b"), passt("e3", "ok"))
	h, outs = walk(p, msgs)
	if len(outs) != 1 {
		t.Fatalf("%d prunes with 27,000 tokens to reclaim, want 1", len(outs))
	}
	if got := presults(h); got[0] == ClaudeCodeStub || got[1] != ClaudeCodeStub || got[3] != ClaudeCodeStub || got[4] == ClaudeCodeStub {
		t.Errorf("skill result cleared or wrong results pruned: %.20q", got)
	}
}

// TestOpencodePruneNeedsMoreThan20000Exactly: opencode prunes when what
// it would prune exceeds PRUNE_MINIMUM (pruned > 20,000): 20,000 tokens
// beyond the newest 40,000 stay, 20,001 go. The results name no tool, as
// opencode's estimate reads the output alone.
func TestOpencodePruneNeedsMoreThan20000Exactly(t *testing.T) {
	p := presetPolicy(t, "opencode", map[string]string{"cap.max": "1000000"})
	for _, tt := range []struct {
		old   int
		prune bool
	}{{20_000, false}, {20_001, true}} {
		msgs := []corpus.Message{puser("u1", "first")}
		msgs = append(msgs, step("old", "read", chars4Text(tt.old))...)
		msgs = append(msgs, step("new", "read", chars4Text(40_000))...)
		msgs = append(msgs, passt("e1", "ok"), puser("u2", "a"), passt("e2", "ok"), puser("u3", "b"), passt("e3", "ok"))
		h, outs := walk(p, callNamesOnly(msgs))
		if got := presults(h); (len(outs) == 1) != tt.prune || (got[0] == ClaudeCodeStub) != tt.prune || got[1] == ClaudeCodeStub {
			t.Errorf("%d tokens beyond the newest 40,000: %d prunes, old cleared %v, new cleared %v; want prune %v of the old alone",
				tt.old, len(outs), got[0] == ClaudeCodeStub, got[1] == ClaudeCodeStub, tt.prune)
		}
	}
}

// capped checks that every result of h is within max units.
func capped(t *testing.T, h []corpus.Message, max int, measure func(string) int) {
	t.Helper()
	for i, r := range presults(h) {
		if n := measure(r); n > max {
			t.Errorf("result %d holds %d, over the cap %d", i, n, max)
		}
	}
}

func TestCapsAsOutputArrives(t *testing.T) {
	long := strings.Repeat("é line of output\n", 5000) // 85,000 chars, 90,000 bytes
	p := presetPolicy(t, "gemini-cli", nil)
	msgs := append([]corpus.Message{puser("u", "go")}, step("1", "bash", long)...)
	msgs = append(msgs, passt("e", "ok"))
	h, outs := walk(p, msgs)
	if len(outs) != 1 || !IsArrivalOnly(outs[0]) {
		t.Fatalf("gemini-cli: outcomes %+v, want one cap", outs)
	}
	count := func(s string) int { return int(utf16Len(s)) }
	capped(t, h, 40000, count)
	if r := presults(h)[0]; count(r) < 40000-200 || !strings.HasPrefix(r, long[:100]) {
		t.Errorf("gemini-cli: capped to %d chars, want close to 40,000 from the head", count(r))
	}
	// Gemini CLI caps shell output only: the same output of read_file
	// reaches the model whole.
	msgs = append([]corpus.Message{puser("u", "go")}, step("1", "read_file", long)...)
	msgs = append(msgs, passt("e", "ok"))
	if h, outs := walk(p, msgs); len(outs) != 0 || presults(h)[0] != long {
		t.Errorf("gemini-cli capped a read_file output: %d outcomes", len(outs))
	}
	// A result that does not name its tool (Claude Code's) is named by
	// its call.
	msgs = append([]corpus.Message{puser("u", "go")}, step("1", "Bash", long)...)
	msgs[2].Blocks[0].ToolName = ""
	msgs = append(msgs, passt("e", "ok"))
	if _, outs := walk(p, msgs); len(outs) != 1 {
		t.Errorf("gemini-cli on a Bash output that names no tool: %d outcomes, want its cap", len(outs))
	}
	cp := &capStage{max: 10000, unit: CapBytes, keep: CapHeadTail, marker: "[{omitted} {unit} cut]"}
	out, ok := cp.capText(long, "c1")
	if !ok || len(out) > 10000 || len(out) < 9990 || !strings.HasPrefix(out, long[:100]) || !strings.HasSuffix(out, long[len(long)-100:]) {
		t.Errorf("Codex-style 10,000-byte cap: %d bytes, ok=%v", len(out), ok)
	}
}

// TestOpencodeTruncatesLikeTruncateOutput: opencode caps a tool output at
// 2,000 lines or 51,200 bytes (tool/truncation.ts): the first whole lines
// within both stay, then "...N lines truncated..." (or bytes, when the
// bytes stopped it) and the hint, uncounted. The cases are opencode's
// code worked by hand.
func TestOpencodeTruncatesLikeTruncateOutput(t *testing.T) {
	hint := "\n\nThe tool call succeeded but the output was truncated. Full output saved to: ~/.local/share/opencode/tool-output/c1\n" +
		"Use the Task tool to have explore agent process this file with Grep and Read (with offset/limit). Do NOT read the full file yourself - delegate to save context."
	line := func(n int) string { return strings.Repeat("x", n) }
	lines := func(k, n int) string { // k lines of n bytes, joined by "\n"
		return strings.TrimSuffix(strings.Repeat(line(n)+"\n", k), "\n")
	}
	for _, c := range []struct {
		name, in, want string
	}{
		{"2,000 lines stay", lines(2000, 10), ""},
		{"a trailing newline is a 2,001st line", lines(2000, 10) + "\n", lines(2000, 10) + "\n\n...1 lines truncated..." + hint},
		{"2,500 short lines", lines(2500, 3), lines(2000, 3) + "\n\n...500 lines truncated..." + hint},
		{"51,200 bytes stay", line(51200), ""},
		{"one line of 60,000 bytes", line(60000), "\n\n...60000 bytes truncated..." + hint},
		// 5 lines of 12,000 bytes: four fit (48,003 bytes with their
		// separators), the fifth would make 60,004.
		{"bytes stop first", lines(5, 12000), lines(4, 12000) + "\n\n...12001 bytes truncated..." + hint},
		// lines and bytes both over, the bytes first: 1,969 lines of 25
		// bytes and their separators make 51,193 bytes, a 1,970th would
		// make 51,219; the other 26,806 of the 77,999 bytes are cut.
		{"bytes within the first 2,000 lines", lines(3000, 25), lines(1969, 25) + "\n\n...26806 bytes truncated..." + hint},
	} {
		cp := presetPolicy(t, "opencode", nil).(*Composed).stages[0].run.(*capStage)
		got, ok := cp.capText(c.in, "c1")
		if want := c.want != ""; ok != want || got != c.want {
			t.Errorf("%s: capped %v to %d bytes ending %q; want %v, %d bytes ending %q", c.name, ok, len(got), tail(got), want, len(c.want), tail(c.want))
		}
	}
	want := "cap.max_lines=2000 cuts whole lines within cap.max bytes from the head (opencode's Truncate.output): set cap.unit=bytes and cap.keep=head with it, or cap.max_lines=0"
	if _, err := New("opencode", map[string]string{"cap.unit": CapChars}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("max_lines with chars: %v\nwant it to say %q", err, want)
	}
}

func tail(s string) string { return s[max(0, len(s)-60):] }

func TestGeminiCompressesAtHalfTheWindowKeeping30Percent(t *testing.T) {
	p := presetPolicy(t, "gemini-cli", map[string]string{"cap.max": "100000000", "mask.trigger": OnTokens, "mask.trigger_at": "1e9"})
	build := func(u9 int) []corpus.Message {
		var h []corpus.Message
		for i := range 9 { // 9 turns of 52,000 tokens: 468,000
			h = append(h, puser(fmt.Sprint("u", i), chars4Text(1000)), passt(fmt.Sprint("a", i), chars4Text(51000)))
		}
		return append(h, puser("u9", chars4Text(u9)), passt("a9", chars4Text(4000)), puser("last", chars4Text(4000)))
	}
	// Gemini reads the last prompt's count (getLastPromptTokenCount): the
	// response to that prompt and the message being sent do not count
	// (context_at=last_prompt). 524,287 read (a request of 532,287):
	// nothing; 524,288 read: a summary.
	h := build(56_287)
	if o := p.Compact(h, sums(p, h)); o.Strategy != None || o.BeforeTokens != 532_287 {
		t.Fatalf("%s with %d tokens in the request: compressed under 524,288 of last prompt", o.Strategy, o.BeforeTokens)
	}
	h = build(56_288)
	o := p.Compact(h, sums(p, h))
	if o.Strategy != Summarized || o.BeforeTokens != 532_288 {
		t.Fatalf("at %d tokens in the request: %s, want a summary at 524,288 of last prompt", o.BeforeTokens, o.Strategy)
	}
	// 70% of the characters is 372,601.6 tokens' worth: the first user
	// message at or past it is turn 8's (u7, at 364,000, is short).
	out := o.History
	if out[0].Blocks[0].Text[:17] != "<state_snapshot>\n" || out[1].Blocks[0].Text != "Got it. Thanks for the additional context!" || out[2].ID != "u8" {
		t.Errorf("compressed history starts %q, %q, %s; want the snapshot, the ack, then turn 8", out[0].Blocks[0].Text[:17], out[1].Blocks[0].Text, out[2].ID)
	}
}

// TestAnthropicClearsAbove100000KeepingThree: the API clears tool uses
// "when conversation context exceeds your configured threshold"
// (platform.claude.com, context editing): a request of exactly 100,000
// input tokens is left alone, one of 100,001 cleared.
func TestAnthropicClearsAbove100000KeepingThree(t *testing.T) {
	p := presetPolicy(t, "anthropic-context-editing", nil)
	h := []corpus.Message{puser("u", chars4Text(9_900))}
	for i := range 9 { // 9 × 10,000 tokens + the user's 9,900 + calls
		h = append(h, step(fmt.Sprint(i), "read", chars4Text(10_000))...)
	}
	at := sums(p, h)
	tokens := p.(*Composed).g.meter.Tokens(at.Units)
	if tokens >= 100_000 {
		t.Fatalf("fixture holds %d tokens, want under 100,000", tokens)
	}
	if o := p.Compact(h, at); o.Strategy != None {
		t.Fatalf("cleared at %d tokens", tokens)
	}
	h[0] = puser("u", chars4Text(9_900+100_000-tokens))
	if o := p.Compact(h, sums(p, h)); o.BeforeTokens != 100_000 || o.Strategy != None {
		t.Fatalf("at %d tokens: %s, want nothing at 100,000", o.BeforeTokens, o.Strategy)
	}
	h[0] = puser("u", chars4Text(9_900+100_001-tokens))
	o := p.Compact(h, sums(p, h))
	if o.BeforeTokens != 100_001 || o.Strategy == None {
		t.Fatalf("at %d tokens: %s, want clearing at 100,001", o.BeforeTokens, o.Strategy)
	}
	got := presults(o.History)
	for i, r := range got {
		if kept := i >= len(got)-3; kept != (r != "[cleared]") {
			t.Errorf("result %d kept=%v, want the last 3 only", i, r != "[cleared]")
		}
	}
}

// TestAnthropicCompactsAbove150000: the API compacts when "input tokens
// exceed your specified trigger threshold" (platform.claude.com,
// compaction): 150,000 is left alone, 150,001 summarized.
func TestAnthropicCompactsAbove150000(t *testing.T) {
	p := presetPolicy(t, "anthropic-context-editing", nil)
	h := []corpus.Message{puser("u0", chars4Text(70_000)), passt("a0", chars4Text(79_999)), puser("u1", "x")}
	tok := func(h []corpus.Message) int { return p.(*Composed).g.meter.Tokens(sums(p, h).Units) }
	if o := p.Compact(h, sums(p, h)); o.Strategy != None {
		t.Fatalf("compacted at %d tokens", tok(h))
	}
	h[1] = passt("a0", chars4Text(80_000))
	if o := p.Compact(h, sums(p, h)); o.BeforeTokens != 150_000 || o.Strategy != None {
		t.Fatalf("at %d tokens: %s, want nothing at 150,000", o.BeforeTokens, o.Strategy)
	}
	h[1] = passt("a0", chars4Text(80_001))
	o := p.Compact(h, sums(p, h))
	if o.Strategy != Summarized || o.BeforeTokens != 150_001 || len(o.History) != 2 || o.History[1].ID != "u1" {
		t.Fatalf("at %d tokens: %s, %d messages; want a summary and the turn in progress", o.BeforeTokens, o.Strategy, len(o.History))
	}
}

func TestAnthropicClearsThinkingButTheLastTurn(t *testing.T) {
	p := presetPolicy(t, "anthropic-context-editing", nil)
	think := func(id string) corpus.Message {
		return corpus.Message{ID: id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindThinking, Text: "hmm"}, {Kind: corpus.KindText, Text: "ok"}}}
	}
	h := []corpus.Message{puser("u0", "a"), think("a0"), puser("u1", "b"), think("a1"), puser("u2", "c"), think("a2")}
	o := p.Compact(h, sums(p, h))
	for i, m := range o.History {
		if m.Role == corpus.RoleAssistant && hasKind(&m, corpus.KindThinking) != (i == 5) {
			t.Errorf("message %s: thinking kept=%v, want only the last turn's", m.ID, !(i == 5))
		}
	}
}

// TestOpenHandsCondensesPast240Events: OpenHands' view is the system
// prompt event and the messages; past max_size 240 events it keeps
// keep_first 2 (the system prompt and the first user message), a summary
// and max_size//2 − 2 − 1 = 117 events of the tail: 120 events, 119 of
// them messages.
func TestOpenHandsCondensesPast240Events(t *testing.T) {
	p := presetPolicy(t, "openhands", nil)
	var h []corpus.Message
	for i := range 119 {
		h = append(h, puser(fmt.Sprint("u", i), chars4Text(100)), passt(fmt.Sprint("a", i), chars4Text(100)))
	}
	h = append(h, puser("u119", "q"))
	if o := p.Compact(h, sums(p, h)); o.Strategy != None {
		t.Fatal("condensed at 240 events (239 messages and the system prompt), max_size is 240")
	}
	h = append(h, passt("a119", "r"))
	o := p.Compact(h, sums(p, h))
	// The cut at 240 − 117 = 123 is a61: 1 + 1 + 117.
	if o.Strategy != Summarized || len(o.History) != 119 || o.History[0].ID != "u0" || !o.History[1].Summary || o.History[2].ID != "a61" {
		t.Fatalf("%s, %d messages, then %s; want 119: u0, a summary, the tail from a61", o.Strategy, len(o.History), o.History[2].ID)
	}
}

func TestClineDropsHalfAfterTheFirstPairAt160000(t *testing.T) {
	p := presetPolicy(t, "cline", nil)
	var h []corpus.Message
	for i := range 20 { // 40 messages of 4,000 tokens = 160,000
		h = append(h, puser(fmt.Sprint("u", i), chars4Text(4000)), passt(fmt.Sprint("a", i), chars4Text(4000)))
	}
	h[39] = passt("a19", chars4Text(3999))
	h = append(h, puser("u20", chars4Text(10)))
	// Cline reads the previous request's tokens: 159,999, whatever the
	// message being sent adds (context_at=last_response).
	if o := p.Compact(h, sums(p, h)); o.Strategy != None {
		t.Fatalf("dropped at %d tokens to send, 159,999 read", o.BeforeTokens)
	}
	h[39] = passt("a19", chars4Text(4000))
	o := p.Compact(h, sums(p, h))
	// 41 messages: after the first pair 39, of which floor(39/4)*2 = 18
	// go (indices 2..19, ending on an assistant message).
	if o.Strategy != Dropped || len(o.History) != 41-18 || o.History[2].ID != "u10" {
		t.Fatalf("%s: %d messages, third %s; want 23 and u10", o.Strategy, len(o.History), o.History[2].ID)
	}
	if last := o.History[1].Blocks[len(o.History[1].Blocks)-1].Text; last != ClineTruncationNotice {
		t.Errorf("first assistant message ends %q, want the truncation notice", last)
	}
}

func TestClineDedupesReadsFirst(t *testing.T) {
	p := presetPolicy(t, "cline", map[string]string{"truncate.trigger": OnTokens, "truncate.trigger_at": "1"})
	h := []corpus.Message{puser("u", "go")}
	for i := range 3 {
		s := step(fmt.Sprint(i), "read_file", chars4Text(1000))
		s[0].Blocks[0].Args = []byte(`{"path":"a.go"}`)
		h = append(h, s...)
	}
	h = append(h, puser("u2", "more"))
	o := p.Compact(h, sums(p, h))
	got := presults(o.History)
	if o.Strategy == Dropped || got[0] != ClineDuplicateReadNotice || got[1] != ClineDuplicateReadNotice || got[2] == ClineDuplicateReadNotice {
		t.Fatalf("%s: %.30q; want the two earlier reads replaced and nothing dropped (66%% saved)", o.Strategy, got)
	}
}

func TestAiderKeepsATailUnderHalfTheBudget(t *testing.T) {
	p := presetPolicy(t, "aider", nil)
	var h []corpus.Message
	for i := range 8 { // 16 messages of 500 tokens = 8,000
		h = append(h, puser(fmt.Sprint("u", i), chars4Text(500)), passt(fmt.Sprint("a", i), chars4Text(500)))
	}
	// Aider counts its done messages, not the new one (context_at=
	// last_response): 8,192 with a7 at 692, whatever u8 holds.
	h[15] = passt("a7", chars4Text(692))
	h = append(h, puser("u8", chars4Text(1000)))
	if o := p.Compact(h, sums(p, h)); o.Strategy != None {
		t.Fatalf("summarized with %d tokens to send: Aider's too_big is done messages > 8,192", o.BeforeTokens)
	}
	h[15], h[16] = passt("a7", chars4Text(693)), puser("u8", "x")
	o := p.Compact(h, sums(p, h))
	if o.Strategy != Summarized || o.BeforeTokens != 8193 {
		t.Fatalf("%s at %d tokens, want a summary at 8,193", o.Strategy, o.BeforeTokens)
	}
	// The tail takes messages while under 4,096: u8 (0), a7 (693) and
	// 6 × 500, back to a4; the head must end with an assistant message:
	// the tail starts at u4.
	if s := o.History[0]; !s.Summary || !strings.HasPrefix(s.Blocks[0].Text, "I spoke to you previously about a number of things.\n") || o.History[1].ID != "u4" {
		t.Fatalf("history starts %q then %s", o.History[0].Blocks[0].Text[:20], o.History[1].ID)
	}
}

// TestGooseCompactsWhenAUserMessageArrives holds the goose preset to
// Goose's Agent::reply and compact_messages (block/goose 43025f88 and
// 0036b819): the threshold is checked when a user message arrives, not
// inside the tool loop; the result is the summary (a user message), the
// continuation text and the user message; a request past the window
// compacts again with the tool-loop text.
func TestGooseCompactsWhenAUserMessageArrives(t *testing.T) {
	p := presetPolicy(t, "goose", nil)
	h := []corpus.Message{puser("u0", chars4Text(80_000)), passt("a0", chars4Text(80_000)), puser("u1", "x")}
	if o := p.Compact(h, sums(p, h)); o.Strategy != None {
		t.Fatal("compacted at 160,000: Goose compacts above the threshold (usage_ratio > threshold)")
	}
	h[1] = passt("a0", chars4Text(80_001))
	o := p.Compact(h, sums(p, h))
	if o.Strategy != Summarized || len(o.History) != 3 {
		t.Fatalf("%s with %d messages; want the summary, the continuation and the user message", o.Strategy, len(o.History))
	}
	want := "Your context was compacted. The previous message contains a summary of the conversation so far.\n" +
		"Do not mention that you read a summary or that conversation summarization occurred.\n" +
		"Just continue the conversation naturally based on the summarized context."
	if s, a, u := o.History[0], o.History[1], o.History[2]; !s.Summary || s.Role != corpus.RoleUser ||
		a.Role != corpus.RoleAssistant || a.Blocks[0].Text != want || u.ID != "u1" {
		t.Fatalf("history %+v; want [summary (user), Goose's continuation, u1]", o.History)
	}
	if len(o.Stages) != 1 || o.Stages[0].Name != "compact" {
		t.Fatalf("stages %+v, want compact alone", o.Stages)
	}

	// Inside the tool loop: 170,000 tokens, past 80%, under the window.
	loop := append([]corpus.Message{puser("u0", chars4Text(80_000)), passt("a0", "ok"), puser("u1", "go on")},
		step("c1", "shell", chars4Text(90_000))...)
	if o := p.Compact(loop, sums(p, loop)); o.Strategy != None {
		t.Fatalf("compacted inside a tool loop under the window: %+v", o.Stages)
	}
	// Past the window: recover summarizes what precedes the turn.
	loop = append(loop, step("c2", "shell", chars4Text(30_000))...)
	o = p.Compact(loop, sums(p, loop))
	if o.Strategy != Summarized || len(o.Stages) != 1 || o.Stages[0].Name != "recover" {
		t.Fatalf("%s by %+v; want recover", o.Strategy, o.Stages)
	}
	tool := "Your context was compacted. The previous message contains a summary of the conversation so far.\n" +
		"Do not mention that you read a summary or that conversation summarization occurred.\n" +
		"Continue calling tools as necessary to complete the task."
	if len(o.History) != 7 || o.History[1].Blocks[0].Text != tool || o.History[2].ID != "u1" || o.History[6].ID != "r-c2" {
		t.Fatalf("%d messages, ack %q; want summary, the tool-loop text, and the turn from u1 whole", len(o.History), o.History[1].Blocks[0].Text)
	}
}

// TestAiderSummarizesWhenATurnIsDone: Aider starts a summary when a turn
// is done (Coder.move_back_cur_messages → summarize_start) and its history
// is above max_chat_history_tokens, and uses it at the next message, so
// nothing is summarized inside a turn, however large.
func TestAiderSummarizesWhenATurnIsDone(t *testing.T) {
	p := presetPolicy(t, "aider", nil)
	h := []corpus.Message{puser("u0", chars4Text(3_000)), passt("a0", chars4Text(3_000)), puser("u1", chars4Text(3_000)), passt("a1", chars4Text(3_000)), puser("u2", "x")}
	h = append(h, step("c1", "shell", chars4Text(5_000))...)
	if o := p.Compact(h, sums(p, h)); o.Strategy != None {
		t.Fatalf("summarized inside a turn: %+v", o.Stages)
	}
	h = append(h, passt("a2", "done"), puser("u3", "next"))
	o := p.Compact(h, sums(p, h))
	if o.Strategy != Summarized || o.History[0].Blocks[0].Text[:52] != "I spoke to you previously about a number of things.\n" {
		t.Fatalf("%s, first message %.60q; want Aider's summary at the next user message", o.Strategy, o.History[0].Blocks[0].Text)
	}
}

func TestPresetSetValidatesAgainstItsOwnParameters(t *testing.T) {
	if _, err := New("swe-agent", map[string]string{"mask.keep_value": "7"}); err != nil {
		t.Fatal(err)
	}
	_, err := New("swe-agent", map[string]string{"keep_value": "7"})
	if err == nil || !strings.Contains(err.Error(), "mask.keep_value") {
		t.Fatalf("error %v, want one listing the preset's parameters", err)
	}
	if _, err := New("gemini-cli", map[string]string{"compress.trigger_at": "2"}); err == nil {
		t.Fatal("a window fraction of 2 was accepted")
	}
	if _, err := New("aider", map[string]string{"summarize.summarizer": "nonsense"}); err == nil {
		t.Fatal("a bad summarizer was accepted")
	}
	if _, err := New("no-such-agent", nil); err == nil || !strings.Contains(err.Error(), "swe-agent") {
		t.Fatalf("error %v, want the known names", err)
	}
}

func TestEveryPresetBuildsWithItsDefaults(t *testing.T) {
	for _, d := range presetDefs() {
		if d.Agent == "" || !strings.Contains(d.Summary, "Stages:") {
			t.Errorf("%s: no agent or stages in its summary", d.Name)
		}
		if _, err := New(d.Name, nil); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
}

// BenchmarkSplitLines compares the loop with the fast path on a Read
// result (numbered lines with Claude Code's arrow).
//
//	go test ./policy -run '^$' -bench BenchmarkSplitLines -cpu 1 -count 3
func BenchmarkSplitLines(b *testing.B) {
	s := strings.Repeat("    42→\tfmt.Println(\"hello, world\") // prints a greeting\n", 500)
	for _, v := range []struct {
		name string
		fn   func(string) int
	}{{"loop", splitLinesLoop}, {"fast", splitLines}} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			n := 0
			for b.Loop() {
				n += v.fn(s)
			}
		})
	}
}

// TestAnthropicClearsThinkingFirst: the API requires clear_thinking first
// in the edits array, and calib runs the edits in that order, each on what
// the one before left. A request of 105,027 tokens, 20,000 of them an
// earlier turn's thinking: the thinking goes, and what is left (85,027) is
// under clear_tool_uses' 100,000, so no tool result is cleared.
// In the order calib had before, the tool results went too.
func TestAnthropicClearsThinkingFirst(t *testing.T) {
	p := presetPolicy(t, "anthropic-context-editing", map[string]string{"context_source": SourceEstimate})
	h := []corpus.Message{puser("u0", "x"), {ID: "a0", Role: corpus.RoleAssistant, Blocks: []corpus.Block{
		{Kind: corpus.KindThinking, Text: chars4Text(20_000), Signature: "s"}, {Kind: corpus.KindText, Text: "ok"}}}, puser("u1", "go")}
	for i := range 5 {
		h = append(h, step(fmt.Sprint("c", i), "Read", chars4Text(17_000))...)
	}
	o := p.Compact(h, sums(p, h))
	var names []string
	for _, s := range o.Stages {
		names = append(names, s.Name)
	}
	// 20,000 + 5 × 17,000 + the calls, their tool names and the messages'
	// short texts: 105,027; without the thinking, 85,027.
	if got := strings.Join(names, ","); got != "clear-thinking" || o.BeforeTokens != 105_027 || o.AfterTokens != 85_027 {
		t.Fatalf("stages %s, context %d -> %d; want clear-thinking alone, 105,027 -> 85,027", got, o.BeforeTokens, o.AfterTokens)
	}
	for _, r := range presults(o.History) {
		if r == "[cleared]" {
			t.Fatalf("a tool result was cleared: %.20q", presults(o.History))
		}
	}
}
