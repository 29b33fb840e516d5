package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// The examples of smith's snapshot spec/smith/context_spec.cr (df4050d;
// specs/smith.md §4.1), where max_tokens is a single threshold.

func TestLegacyEstimate(t *testing.T) {
	p := legacy(t, "")
	m := p.(*SmithLegacy).meter
	tok := func(h ...corpus.Message) int { return m.Tokens(units(p, h)) }
	if tok(userMsg(strings.Repeat("a", 100000))) <= tok(userMsg(strings.Repeat("a", 100))) {
		t.Fatal("100 KB does not cost more than 100 B")
	}
	if tok(callMsg("c", "bash", `{"command":"ls"}`)) <= 0 {
		t.Fatal("a bare tool_use estimates 0")
	}
	// One integer division over the whole array: three 3-byte messages are
	// 9 bytes = 2 tokens, not 3 × 0.
	if got := tok(userMsg("abc"), userMsg("def"), userMsg("ghi")); got != 2 {
		t.Fatalf("9 bytes = %d tokens, want 2", got)
	}
}

func TestLegacyUnderBudgetUntouched(t *testing.T) {
	h := conversation(3, 1000)
	o := compact(t, legacy(t, ""), h)
	if o.Strategy != None || !sameSlice(o.History, h) {
		t.Fatalf("%s", o.Strategy)
	}
}

func TestLegacyTruncatesOldestFirst(t *testing.T) {
	h := conversation(8, 20000)
	h[2].Blocks[0].IsError = true
	o := compact(t, legacy(t, "max_tokens=25000"), h)
	r := results(o.History)
	if o.Strategy != Truncated || o.AfterTokens > 25000 {
		t.Fatalf("%s after=%d", o.Strategy, o.AfterTokens)
	}
	want := strings.Repeat("x", 2000) + "\n\n[... 17 KiB truncated by smith to stay within the context window ...]"
	if r[0] != want || len(r[7]) != 20000 {
		t.Fatalf("first %q, last %d bytes", r[0][1990:], len(r[7]))
	}
	// it stops as soon as the budget is met: 4 cuts, the 5th result whole
	if o.Stages[0].BlocksTouched != 4 || len(r[4]) != 20000 {
		t.Fatalf("touched %d, result 4 is %d bytes", o.Stages[0].BlocksTouched, len(r[4]))
	}
	if b := o.History[2].Blocks[0]; !b.IsError || b.ToolCallID != "call-0" {
		t.Fatalf("lost id or is_error: %+v", b)
	}
}

func TestLegacyCutsAgain(t *testing.T) {
	// The snapshot has no guard: a cut result is cut again on a later pass.
	first := compact(t, legacy(t, "max_tokens=25000"), conversation(8, 20000))
	second := compact(t, legacy(t, "max_tokens=20000"), first.History)
	want := strings.Repeat("x", 2000) + "\n\n[... 0 KiB truncated by smith to stay within the context window ...]"
	if got := results(second.History)[0]; second.Strategy != Truncated || got != want {
		t.Fatalf("%s first result %q", second.Strategy, got)
	}
}

func TestLegacySingleOversizedResult(t *testing.T) {
	o := compact(t, legacy(t, "max_tokens=1000"), conversation(1, 400000))
	if o.Strategy != Truncated || o.AfterTokens >= o.BeforeTokens || !strings.Contains(results(o.History)[0], "truncated by smith") {
		t.Fatalf("%s %d -> %d", o.Strategy, o.BeforeTokens, o.AfterTokens)
	}
}

func TestLegacyNothingToShrink(t *testing.T) {
	h := ids([]corpus.Message{userMsg(strings.Repeat("u", 40000))})
	if o := compact(t, legacy(t, "max_tokens=100"), h); o.Strategy != None || !sameSlice(o.History, h) || len(o.Stages) != 0 {
		t.Fatalf("%s %v", o.Strategy, stageNames(o))
	}
}

func TestLegacySummarizes(t *testing.T) {
	h := conversation(10, 60000)
	o := compact(t, legacy(t, "max_tokens=1000"), h)
	if o.Strategy != Summarized || !strings.HasPrefix(o.History[0].Blocks[0].Text, smithSummaryPrefix) || o.History[0].Role != corpus.RoleUser || len(o.History) >= len(h) {
		t.Fatalf("%s %q", o.Strategy, o.History[0].Blocks[0].Text[:40])
	}
	if o.History[1].Role != corpus.RoleUser {
		t.Fatalf("cut into a turn: message 1 is %s", o.History[1].Role)
	}
	if len(o.History[0].Blocks[0].Text) != len(smithSummaryPrefix)+2000 || o.Summarizer != "fixed:2000" {
		t.Fatalf("default summary: %d bytes by %q", len(o.History[0].Blocks[0].Text), o.Summarizer)
	}
}

func TestLegacyDrops(t *testing.T) {
	o := compact(t, legacy(t, "max_tokens=1000,summarizer=fail"), conversation(10, 60000))
	if o.Strategy != Dropped || !strings.Contains(o.History[0].Blocks[0].Text, "dropped") {
		t.Fatalf("%s", o.Strategy)
	}
}

func TestLegacyPairingAcrossBudgets(t *testing.T) {
	for _, max := range []int{50, 500, 5000, 50000} {
		compact(t, legacy(t, fmt.Sprintf("max_tokens=%d", max)), conversation(12, 30000))
	}
}

func TestLegacySafeCutIgnoresSynthetic(t *testing.T) {
	// The snapshot has no synthetic flag: any user message is a candidate.
	h := ids([]corpus.Message{userMsg("a"), syntheticMsg(strings.Repeat("s", 40)), userMsg("b")})
	m, _ := NewMeter(MeterBytes4, MeterOptions{})
	if cut := newWorking(h, m).safeCutIndex(100, false); cut != 1 {
		t.Fatalf("legacy cut %d, want 1", cut)
	}
	if cut := newWorking(h, m).safeCutIndex(100, true); cut != 2 {
		t.Fatalf("staged cut %d, want 2", cut)
	}
}

// TestLegacyIncrementalMatchesReference checks the running total against
// smith's own loop, which re-estimates the whole array per candidate.
func TestLegacyIncrementalMatchesReference(t *testing.T) {
	for _, max := range []int{3000, 9000, 20000, 31000} {
		h := conversation(9, 7000)
		for i := range h {
			if h[i].Role == corpus.RoleTool && i%2 == 0 {
				h[i].Blocks[0].Text = strings.Repeat("y", 1500) // under 2000: skipped
			}
		}
		got := compact(t, legacy(t, fmt.Sprintf("max_tokens=%d", max)), h)
		want := referenceLegacyTruncate(deepCopy(h), max)
		if got.Strategy == Truncated {
			for i := range want {
				if got.History[i].Blocks[0].Text != want[i].Blocks[0].Text {
					t.Fatalf("max %d: message %d differs from the reference", max, i)
				}
			}
		}
	}
}

func referenceLegacyTruncate(h []corpus.Message, max int) []corpus.Message {
	estimate := func() int {
		n := 0
		for _, m := range h {
			for _, b := range m.Blocks {
				n += len(b.Text) + len(b.Args) + len(b.ToolName)
			}
		}
		return n / 4
	}
	for i := range h {
		if h[i].Role != corpus.RoleTool {
			continue
		}
		for j := range h[i].Blocks {
			b := &h[i].Blocks[j]
			if b.Kind != corpus.KindToolResult {
				continue
			}
			if estimate() <= max {
				return h
			}
			if len(b.Text) > 2000 {
				b.Text = truncatedHead(b.Text, 2000)
			}
		}
	}
	return h
}
