package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// Bad input (issue 3): broken tool pairs, one enormous turn, a budget below
// the overhead, a ratio out of range, a parameter of the wrong type.

func TestBadInputParameters(t *testing.T) {
	cases := []struct{ policy, set, want string }{
		{"smith-staged", "ratio=2.5", `parameter ratio="2.5": out of range (valid: float in [1, 2])`},
		{"smith-staged", "ratio=0.5", `parameter ratio="0.5": out of range (valid: float in [1, 2])`},
		{"smith-staged", "max_tokens=abc", `parameter max_tokens="abc": not an integer (valid: int in [1, 1e+09])`},
		{"smith-staged", "max_tokens=0", `parameter max_tokens="0": out of range (valid: int in [1, 1e+09])`},
		// Token parameters stop at MaxTokens: 9e18 wrapped tokens_sent to negative totals.
		{"smith-staged", "overhead_tokens=9000000000000000000", `parameter overhead_tokens="9000000000000000000": out of range (valid: int in [0, 1e+09])`},
		{"smith-staged", "overhead_tokens=1000000001", `parameter overhead_tokens="1000000001": out of range (valid: int in [0, 1e+09])`},
		{"clear-tool-results", "trigger_at=1e10", `parameter trigger_at="1e10": out of range (valid: float in [0, 1e+09])`},
		// A fixed summary is built at every compaction: 1e11 bytes ran out of memory.
		{"smith-staged", "summarizer=fixed:100000000000", `parameter summarizer="fixed:100000000000": fixed:100000000000 would build a 93 GiB summary at every compaction; the most is fixed:16777216 (16 MiB, twice the text of a 2M-token window) (valid: text)`},
		{"smith-staged", "summarizer=fixed:16777217", `parameter summarizer="fixed:16777217": fixed:16777217 would build a 16 MiB summary at every compaction; the most is fixed:16777216 (16 MiB, twice the text of a 2M-token window) (valid: text)`},
		{"smith-staged", "compact_at=high", `parameter compact_at="high": not a number (valid: float in [0, 1])`},
		{"smith-staged", "compact_at=0.5,compact_to=0.8", `parameters compact_at=0.5, compact_to=0.8: need 0 < compact_to < compact_at < 1 (e.g. compact_at=0.8,compact_to=0.5)`},
		{"smith-staged", "compact_to=0", `parameters compact_at=0.8, compact_to=0: need 0 < compact_to < compact_at < 1 (e.g. compact_at=0.8,compact_to=0.5)`},
		{"smith-staged", "compact_at=1", `parameters compact_at=1, compact_to=0.5: need 0 < compact_to < compact_at < 1 (e.g. compact_at=0.8,compact_to=0.5)`},
		{"smith-staged", "stage_thinking=maybe", `parameter stage_thinking="maybe": not a boolean (valid: true|false)`},
		{"smith-staged", "meter=gpt2", `parameter meter="gpt2": not one of the choices (valid: bytes4|o200k|chars4)`},
		{"smith-staged", "summarizer=llm", `parameter summarizer="llm": expected fixed:BYTES, ratio:R, recorded or fail (valid: text)`},
		{"smith-staged", "summarizer=fixed:lots", `parameter summarizer="fixed:lots": fixed needs a byte count >= 0, e.g. fixed:2000 (valid: text)`},
		{"smith-staged", "summarizer=ratio:3", `parameter summarizer="ratio:3": ratio needs a fraction in [0, 1] of the bytes replaced, e.g. ratio:0.05 (valid: text)`},
		{"smith-staged", "window=3", `policy smith-staged has no parameter "window"; did you mean window_turns? (it has: max_tokens, compact_at, compact_to, overhead_tokens, ratio, ratio_recorded, window_turns, thinking_window, old_result_bytes, supersedable_tools, image_tokens, document_tokens, summarizer, meter, stage_thinking, stage_attachments, stage_duplicates, stage_truncate, stage_summarize)`},
		{"smith-legacy", "result_bytes=-1", `parameter result_bytes="-1": out of range (valid: int in [0, ∞])`},
		{"smith-legacy", "compact_at=0.8", `policy smith-legacy has no parameter "compact_at" (it has: max_tokens, result_bytes, summarizer, meter)`},
	}
	for _, c := range cases {
		kv, err := ParseSet([]string{c.set})
		if err != nil {
			t.Fatal(err)
		}
		_, err = New(c.policy, kv)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s %s:\n got %v\nwant %s", c.policy, c.set, err, c.want)
		}
	}
}

func TestBadInputBrokenPairs(t *testing.T) {
	// An orphan result (its call is missing) and a call with no result, as
	// a damaged transcript can hold. The policies must not crash, must not
	// invent or drop ids, and leave the breakage for the replay's
	// invariant check to report.
	h := withQuietTail(repeated(6, "read_file", 20000))
	h = append(h[:1], h[2:]...) // drop the call c0: its result is an orphan
	h = append(h, callMsg("dangling", "read_file", `{"path":"x"}`))
	h = ids(h)
	err := toolPairing(h)
	if err == nil || err.Error() != "tool pairing broken: tool_use ids [c1 c2 c3 c4 c5 dangling tail-0 tail-1 tail-2], tool_result ids [c0 c1 c2 c3 c4 c5 tail-0 tail-1 tail-2]" {
		t.Fatalf("pairing check: %v", err)
	}
	for _, p := range []Policy{staged(t, "max_tokens=30000"), legacy(t, "max_tokens=10000"), staged(t, "max_tokens=500")} {
		o := p.Compact(h, Checkpoint{Units: units(p, h), Count: int64(len(h))})
		if o.Strategy == None {
			t.Fatalf("%s: no compaction", p.Name())
		}
		if got := toolPairing(o.History); o.Strategy != Summarized && got.Error() != err.Error() {
			t.Fatalf("%s changed the set of ids: %v", p.Name(), got)
		}
	}
}

func TestBadInputOneEnormousTurn(t *testing.T) {
	// One real turn of 50 calls × 100 KB: the window protects everything,
	// there is no turn boundary to cut at, so the last resort caps results.
	var h []corpus.Message
	h = append(h, userMsg("refactor everything"))
	for i := range 50 {
		id := fmt.Sprintf("e%d", i)
		h = append(h, callMsg(id, "bash", `{"command":"cat big"}`), resultMsg(id, strings.Repeat("q", 100000), false))
	}
	h = ids(h)
	o := compact(t, staged(t, ""), h)
	if o.Strategy != Truncated || !o.ReachedTarget || o.Exhausted || o.Removed != 0 {
		t.Fatalf("%s reached=%v exhausted=%v after=%d", o.Strategy, o.ReachedTarget, o.Exhausted, o.AfterTokens)
	}
	// a single prompt larger than the budget cannot be helped: exhausted
	huge := ids([]corpus.Message{userMsg(strings.Repeat("p", 1_000_000))})
	o = compact(t, staged(t, ""), huge)
	if o.Strategy != None || !o.Exhausted || o.AfterTokens != 250000 {
		t.Fatalf("%s exhausted=%v after=%d", o.Strategy, o.Exhausted, o.AfterTokens)
	}
}

func TestBadInputBudgetBelowOverhead(t *testing.T) {
	h := conversation(4, 20000)
	for _, set := range []string{"max_tokens=10000,overhead_tokens=50000", "max_tokens=1,overhead_tokens=2", "overhead_tokens=1000000,ratio=2"} {
		o := compact(t, staged(t, set), h)
		if o.Strategy != None || !o.Exhausted || o.ReachedTarget {
			t.Fatalf("%s: %s exhausted=%v", set, o.Strategy, o.Exhausted)
		}
	}
}

func TestBadInputEmptyHistory(t *testing.T) {
	for _, p := range []Policy{staged(t, "max_tokens=1"), legacy(t, "max_tokens=1")} {
		if o := p.Compact(nil, Checkpoint{}); o.Strategy != None || len(o.History) != 0 {
			t.Fatalf("%s on an empty history: %s", p.Name(), o.Strategy)
		}
	}
}
