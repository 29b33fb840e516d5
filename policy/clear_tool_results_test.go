package policy

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// ctrUser, ctrCall and ctrResults build Claude Code shaped messages. With
// chars4 a text of 4k ASCII characters is k tokens; a call to "Read" with
// args {"p":"aaaa"} is 4+12 = 16 characters, 4 tokens.
func ctrUser(text string) corpus.Message {
	return corpus.Message{ID: "u-" + text, Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: text}}}
}

func ctrCall(tool string, ids ...string) corpus.Message {
	m := corpus.Message{ID: "a-" + ids[0], Role: corpus.RoleAssistant}
	for _, id := range ids {
		m.Blocks = append(m.Blocks, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: tool, Args: []byte(`{"p":"aaaa"}`)})
	}
	return m
}

// ctrResults takes id, size pairs.
func ctrResults(pairs ...any) corpus.Message {
	m := corpus.Message{ID: "t-" + pairs[0].(string), Role: corpus.RoleTool}
	for i := 0; i < len(pairs); i += 2 {
		m.Blocks = append(m.Blocks, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: pairs[i].(string),
			Text: strings.Repeat("x", pairs[i+1].(int)), IsError: i == 0})
	}
	return m
}

// ctrHistory is two user turns of tool steps; r5 and r6 answer the last
// assistant message, so they are the pending step. Result tokens: r1 100,
// r2 200, r3 50, r4 100, r5 100, r6 100.
func ctrHistory() []corpus.Message {
	return []corpus.Message{
		ctrUser("abcd"), // 0, turn 1
		ctrCall("Read", "r1"),
		ctrResults("r1", 400),
		ctrCall("Read", "r2", "r3"),
		ctrResults("r2", 800, "r3", 200),
		ctrUser("efgh"), // 5, turn 2
		ctrCall("Read", "r4"),
		ctrResults("r4", 400),
		ctrCall("Read", "r5", "r6"), // 8
		ctrResults("r5", 400, "r6", 400),
	}
}

// ctrMechanics are the settings the mechanics tests below were written
// for (a result-token trigger, keep the newest 4, the pending step
// protected, every tool compactable, a fixed stub of 33 characters), so
// that each test states only what it varies; the Claude Code defaults have
// their own tests (clear_tool_results_cc_test.go).
const ctrMechanics = "trigger=result_tokens,trigger_at=60000,keep=results,keep_value=4,protect_pending=true,compactable_tools=,stub=" + ClaudeCodeStub

func ctr(t testing.TB, set string) Policy {
	if set != "" {
		set = "," + set
	}
	return newPolicy(t, "clear-tool-results", ctrMechanics+set)
}

func ctrCompact(t *testing.T, p Policy, h []corpus.Message, force bool) Outcome {
	t.Helper()
	return ctrCompactIn(t, p, h, nil, force)
}

// ctrCompactIn is ctrCompact replaying session s (its recorded usage).
func ctrCompactIn(t *testing.T, p Policy, h []corpus.Message, s *corpus.Session, force bool) Outcome {
	t.Helper()
	snapshot := ctrDeepCopy(h)
	var counted int64
	for i := range h {
		_, c, _ := p.Measure(&h[i])
		counted += c
	}
	o := p.Compact(h, Checkpoint{Raw: len(h), Units: units(p, h), Count: counted, Force: force, Session: s})
	if !reflect.DeepEqual(h, snapshot) {
		t.Fatal("Compact modified its input history")
	}
	if got := units(p, o.History); got != o.Units {
		t.Errorf("outcome units %d, a fresh measure gives %d", o.Units, got)
	}
	ctrCheckPairs(t, h, o.History)
	return o
}

func ctrDeepCopy(h []corpus.Message) []corpus.Message {
	out := make([]corpus.Message, len(h))
	for i := range h {
		out[i] = h[i]
		out[i].Blocks = slices.Clone(h[i].Blocks)
	}
	return out
}

// ctrCheckPairs: every call keeps exactly one result, with its id and
// error flag, in the same place.
func ctrCheckPairs(t *testing.T, in, out []corpus.Message) {
	t.Helper()
	if len(in) != len(out) {
		t.Fatalf("history went from %d to %d messages", len(in), len(out))
	}
	for i := range in {
		if len(in[i].Blocks) != len(out[i].Blocks) || in[i].ID != out[i].ID || in[i].Role != out[i].Role {
			t.Fatalf("message %d changed shape", i)
		}
		for j := range in[i].Blocks {
			a, b := in[i].Blocks[j], out[i].Blocks[j]
			if a.Kind != b.Kind || a.ToolCallID != b.ToolCallID || a.IsError != b.IsError || a.ToolName != b.ToolName {
				t.Fatalf("message %d block %d: %+v became %+v", i, j, a, b)
			}
		}
	}
}

func TestClearToolResultsTriggers(t *testing.T) {
	// Context: 2 users of 1 token, 6 calls of 4 and results of 650: 676
	// tokens; uncleared results: 650 tokens, 6 results.
	h := ctrHistory()
	base := "keep=steps,keep_value=1,min_reclaim=0,"
	tests := []struct {
		set  string
		want Strategy
	}{
		{"trigger=result_tokens,trigger_at=650", Truncated},
		{"trigger=result_tokens,trigger_at=651", None},
		{"trigger=result_count,trigger_at=6", Truncated},
		{"trigger=result_count,trigger_at=7", None},
		{"trigger=context_tokens,trigger_at=676", Truncated},
		{"trigger=context_tokens,trigger_at=677", None},
		{"trigger=context_tokens,trigger_at=700,overhead_tokens=24", Truncated},
		{"trigger=context_tokens,trigger_at=700,overhead_tokens=23", None},
		{"trigger=window_fraction,trigger_at=0.5,window_tokens=1352", Truncated},
		{"trigger=window_fraction,trigger_at=0.5,window_tokens=1353", None},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			o := ctrCompact(t, ctr(t, base+tt.set), h, false)
			if o.Strategy != tt.want {
				t.Fatalf("strategy %s, want %s (before %d tokens)", o.Strategy, tt.want, o.BeforeTokens)
			}
			if o.BeforeTokens != 676 && !strings.Contains(tt.set, "overhead") {
				t.Errorf("before %d tokens, want 676", o.BeforeTokens)
			}
			if o.Strategy == None && &o.History[0] != &h[0] {
				t.Error("a checkpoint that does not trigger must return the history itself")
			}
		})
	}
}

func TestClearToolResultsKeepRules(t *testing.T) {
	h := ctrHistory()
	tests := []struct {
		keep  string
		clear []string
	}{
		{"keep=results,keep_value=0", []string{"r1", "r2", "r3", "r4"}}, // the pending step stays
		{"keep=results,keep_value=3", []string{"r1", "r2", "r3"}},
		{"keep=results,keep_value=4", []string{"r1", "r2"}},
		{"keep=results,keep_value=6", nil},
		{"keep=tokens,keep_value=250", []string{"r1", "r2", "r3", "r4"}},
		{"keep=tokens,keep_value=300", []string{"r1", "r2", "r3"}},
		{"keep=tokens,keep_value=349", []string{"r1", "r2", "r3"}}, // r3 (50) would fit, but is older than the cut
		{"keep=tokens,keep_value=350", []string{"r1", "r2"}},
		{"keep=turns,keep_value=0", []string{"r1", "r2", "r3", "r4"}},
		{"keep=turns,keep_value=1", []string{"r1", "r2", "r3"}},
		{"keep=turns,keep_value=2", nil},
		{"keep=steps,keep_value=1", []string{"r1", "r2", "r3", "r4"}},
		{"keep=steps,keep_value=2", []string{"r1", "r2", "r3"}},
		{"keep=steps,keep_value=3", []string{"r1"}},
	}
	for _, tt := range tests {
		t.Run(tt.keep, func(t *testing.T) {
			o := ctrCompact(t, ctr(t, "trigger_at=0,min_reclaim=0,"+tt.keep), h, false)
			if got := Cleared(h, o.History); !slices.Equal(got, tt.clear) {
				t.Fatalf("cleared %v, want %v", got, tt.clear)
			}
			if tt.clear == nil {
				if o.Strategy != None {
					t.Fatalf("nothing to clear but strategy %s", o.Strategy)
				}
				return
			}
			for _, m := range o.History {
				for _, b := range m.Blocks {
					if b.Kind == corpus.KindToolResult && slices.Contains(tt.clear, b.ToolCallID) && b.Text != ClaudeCodeStub {
						t.Errorf("%s: text %q, want the stub", b.ToolCallID, b.Text[:10])
					}
				}
			}
		})
	}
}

func TestClearToolResultsStageReport(t *testing.T) {
	h := ctrHistory()
	o := ctrCompact(t, ctr(t, "trigger_at=0,min_reclaim=0,keep=results,keep_value=3"), h, false)
	// r1 400 + r2 800 + r3 200 characters become 3 stubs of 33. The
	// stage chains the context, 676 to 350 (the outcome's); Claude Code's
	// own count, over its results: 650 before, 350 saved.
	want := StageReport{Name: "clear", BeforeTokens: 676, AfterTokens: 676 - 350 + 24, BlocksTouched: 3, BytesRemoved: 1400 - 3*33,
		Agent: &AgentCount{Before: 650, Saved: 350}}
	if len(o.Stages) != 1 || !reflect.DeepEqual(o.Stages[0], want) {
		t.Fatalf("stages %+v (agent %+v), want %+v", o.Stages, o.Stages[0].Agent, want)
	}
	// Context 676 - 350 + 3 stubs of round(33/4) = 8 tokens.
	if o.Strategy != Truncated || o.BeforeTokens != 676 || o.AfterTokens != 676-350+24 {
		t.Fatalf("outcome %s %d -> %d", o.Strategy, o.BeforeTokens, o.AfterTokens)
	}
}

func TestClearToolResultsExemptTools(t *testing.T) {
	h := ctrHistory()
	h[3] = ctrCall("Skill", "r2", "r3")
	// The exempt results are neither cleared nor counted among the 3 kept.
	o := ctrCompact(t, ctr(t, "trigger_at=0,min_reclaim=0,keep_value=3,exempt_tools=Skill,Task"), h, false)
	if got := Cleared(h, o.History); !slices.Equal(got, []string{"r1"}) {
		t.Fatalf("cleared %v, want [r1]", got)
	}
	if o.Stages[0].Agent.Before != 400 {
		t.Errorf("compactable result tokens %d, want 400 (r2, r3 exempt)", o.Stages[0].Agent.Before)
	}
}

func TestClearToolResultsClearInputs(t *testing.T) {
	h := ctrHistory()
	o := ctrCompact(t, ctr(t, "trigger_at=0,min_reclaim=0,keep=steps,keep_value=1,clear_inputs=true"), h, false)
	args := map[string]string{}
	for _, m := range o.History {
		for _, b := range m.Blocks {
			if b.Kind == corpus.KindToolUse {
				args[b.ToolCallID] = string(b.Args)
			}
		}
	}
	// r4 is cleared but its call is in the current user turn, which keeps
	// everything but its results.
	want := map[string]string{"r1": "{}", "r2": "{}", "r3": "{}", "r4": `{"p":"aaaa"}`, "r5": `{"p":"aaaa"}`, "r6": `{"p":"aaaa"}`}
	if !reflect.DeepEqual(args, want) {
		t.Fatalf("args %v, want %v", args, want)
	}
	if st := o.Stages[0]; st.BlocksTouched != 7 || st.BytesRemoved != 1800-4*33+3*10 {
		t.Fatalf("stage %+v", st)
	}
	o = ctrCompact(t, ctr(t, "trigger_at=0,min_reclaim=0,keep=steps,keep_value=1"), h, false)
	if string(o.History[1].Blocks[0].Args) != `{"p":"aaaa"}` {
		t.Fatal("clear_inputs=false changed an input")
	}
}

func TestClearToolResultsMinReclaim(t *testing.T) {
	h := ctrHistory()
	// keep 3 clears r1, r2, r3: 350 tokens.
	for _, tt := range []struct {
		min  int
		want Strategy
	}{{350, Truncated}, {351, None}} {
		o := ctrCompact(t, ctr(t, fmt.Sprintf("trigger_at=0,keep_value=3,min_reclaim=%d", tt.min)), h, false)
		if o.Strategy != tt.want {
			t.Fatalf("min_reclaim=%d: %s, want %s", tt.min, o.Strategy, tt.want)
		}
		if tt.want == None && (&o.History[0] != &h[0] || len(o.Stages) != 0) {
			t.Fatal("below min_reclaim the history must come back as it was, with no stage")
		}
	}
	// Forced, the measured figures are still reported.
	o := ctrCompact(t, ctr(t, "trigger_at=0,keep_value=3,min_reclaim=351"), h, true)
	if o.Strategy != None || len(o.Stages) != 1 || *o.Stages[0].Agent != (AgentCount{Before: 650}) || o.Stages[0].BeforeTokens != o.Stages[0].AfterTokens {
		t.Fatalf("forced below min_reclaim: %s %+v", o.Strategy, o.Stages)
	}
}

func TestClearToolResultsStubIdempotent(t *testing.T) {
	h := ctrHistory()
	p := ctr(t, "trigger=result_tokens,trigger_at=300,min_reclaim=0,keep_value=3")
	o := ctrCompact(t, p, h, false)
	if o.Strategy != Truncated {
		t.Fatal(o.Strategy)
	}
	// Stubs are not results any more: the uncleared results are the 3 kept
	// (300 tokens), so the trigger fires again but finds nothing to clear.
	if got := o.Stages[0].Agent.Before - o.Stages[0].Agent.Saved; got != 300 {
		t.Fatalf("results after %d", got)
	}
	again := ctrCompact(t, p, o.History, false)
	if again.Strategy != None || &again.History[0] != &o.History[0] {
		t.Fatalf("a second pass cleared again: %s", again.Strategy)
	}
	forced := ctrCompact(t, p, o.History, true)
	if forced.Stages[0].Agent.Before != 300 {
		t.Fatalf("stubs counted as results: %d", forced.Stages[0].Agent.Before)
	}
	var trig int64
	for i := range o.History {
		_, c, _ := p.Measure(&o.History[i])
		trig += c
	}
	if trig != 300 {
		t.Fatalf("measured %d uncleared result tokens, want 300", trig)
	}
}

// A stub longer than the result it replaces grows the context: the policy
// then does nothing rather than report a compaction that made things worse.
func TestClearToolResultsNeverGrows(t *testing.T) {
	h := []corpus.Message{ctrUser("abcd"), ctrCall("Bash", "b1"), ctrResults("b1", 8), ctrCall("Bash", "b2"), ctrResults("b2", 8)}
	o := ctrCompact(t, ctr(t, "trigger_at=0,min_reclaim=0,keep_value=0"), h, false)
	if o.Strategy != None {
		t.Fatalf("%s: %d -> %d", o.Strategy, o.BeforeTokens, o.AfterTokens)
	}
}

func TestClearToolResultsParams(t *testing.T) {
	if _, err := New("clear-tool-results", map[string]string{"trigger": "window_fraction", "trigger_at": "60000"}); err == nil ||
		!strings.Contains(err.Error(), "fraction of window_tokens in (0, 1]") {
		t.Fatalf("window_fraction with a token threshold: %v", err)
	}
	if _, err := New("clear-tool-results", map[string]string{"keep": "newest"}); err == nil ||
		!strings.Contains(err.Error(), "results|tokens|turns|steps") {
		t.Fatalf("bad keep: %v", err)
	}
	p := newPolicy(t, "clear-tool-results", "")
	want := "trigger=context_tokens,trigger_at=148500,context_source=recorded,window_tokens=200000,overhead_tokens=0," +
		"keep=tokens,keep_value=40000,keep_walk=stop,protect_pending=false,compactable_tools=" + ClaudeCodeCompactable +
		",exempt_tools=,stub=" + PersistedOutputStub + ",clear_inputs=false,min_reclaim=20000,meter=chars4"
	if got := p.Params().String(); got != want {
		t.Fatalf("defaults\n got %s\nwant %s", got, want)
	}
	for _, c := range []struct {
		prev, next corpus.Message
		want       bool
	}{
		{ctrResults("r1", 4), ctrCall("Read", "r2"), true},
		{ctrUser("abcd"), ctrCall("Read", "r2"), true},
		{ctrCall("Read", "r1"), ctrResults("r1", 4), false},
		{ctrCall("Read", "r1"), ctrUser("abcd"), false},
	} {
		if got := p.Checkpoint(corpus.FormatClaudeCode, &c.prev, &c.next); got != c.want {
			t.Errorf("checkpoint before %s: %v", c.next.Role, got)
		}
	}
}

// ctrBenchHistory is 10,001 messages: a user message, then 5,000 steps of
// one Read call and its 2,000-character result.
func ctrBenchHistory() []corpus.Message {
	h := []corpus.Message{ctrUser("abcd")}
	for i := range 5000 {
		id := fmt.Sprintf("r%d", i)
		h = append(h, ctrCall("Read", id), ctrResults(id, 2000))
	}
	return h
}

// BenchmarkClearToolResultsCompact clears a 10,000-message history (5,000
// steps of one 2,000-character result) down to the newest 5 results.
func BenchmarkClearToolResultsCompact(b *testing.B) {
	h := ctrBenchHistory()
	p := ctr(b, "")
	at := Checkpoint{Raw: len(h), Units: units(p, h), Count: int64(len(h))}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if o := p.Compact(h, at); o.Strategy != Truncated {
			b.Fatal(o.Strategy)
		}
	}
}

// BenchmarkClearToolResultsIdle is a checkpoint that does not trigger.
func BenchmarkClearToolResultsIdle(b *testing.B) {
	h := ctrBenchHistory()
	p := ctr(b, "trigger_at=1e9")
	at := Checkpoint{Raw: len(h), Units: units(p, h), Count: int64(len(h))}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if o := p.Compact(h, at); o.Strategy != None {
			b.Fatal(o.Strategy)
		}
	}
}
