package policy

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// The examples of smith's spec/smith/context_spec.cr @43ec9511 and
// attachments_spec.cr @e533ff42 (specs/smith.md §4.2, §4.3), with the same
// inputs and assertions. budget(max, …) is max_tokens=max with smith's
// default fractions.

func TestStagedEstimateCountsSignatures(t *testing.T) {
	p := staged(t, "")
	plain := corpus.Message{Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindThinking, Text: "hmm"}}}
	signed := deepCopy([]corpus.Message{plain})[0]
	signed.Blocks[0].Signature = strings.Repeat("s", 4000)
	m := p.(*SmithStaged).meter
	if d := m.Tokens(units(p, []corpus.Message{signed, userMsg("abcd")})) - m.Tokens(units(p, []corpus.Message{plain, userMsg("abcd")})); d != 1000 {
		t.Fatalf("a 4000-byte signature adds %d tokens, want 1000", d)
	}
	// smith-legacy (the snapshot) does not count signatures.
	l := legacy(t, "")
	if a, b := units(l, []corpus.Message{signed}), units(l, []corpus.Message{plain}); a != b {
		t.Fatalf("legacy counts the signature: %d vs %d", a, b)
	}
}

func TestStagedBudget(t *testing.T) {
	b := staged(t, "max_tokens=100000").(*SmithStaged).budget
	if b.trigger != 80000 || b.target != 50000 {
		t.Fatalf("trigger/target = %d/%d, want 80000/50000", b.trigger, b.target)
	}
	b = staged(t, "max_tokens=100000,overhead_tokens=10000").(*SmithStaged).budget
	if got := b.charged(5000); got != 15000 {
		t.Fatalf("charged(5000) with overhead 10000 = %d, want 15000", got)
	}
	b = staged(t, "max_tokens=100000,overhead_tokens=10000,ratio=1.5").(*SmithStaged).budget
	if got := b.charged(10000); got != 30000 {
		t.Fatalf("charged(10000) with ratio 1.5 = %d, want 30000", got)
	}
	if got := b.charged(b.allowance(b.target)); got > b.target {
		t.Fatalf("charged(target_allowance) = %d > target %d", got, b.target)
	}
	b = staged(t, "max_tokens=100000,overhead_tokens=90000").(*SmithStaged).budget
	if got := b.allowance(b.target); got != 0 {
		t.Fatalf("target_allowance with overhead 90000 = %d, want 0", got)
	}
	// 120 000 gives 96 000 / 60 000; trigger and target are truncated.
	b = staged(t, "").(*SmithStaged).budget
	if b.trigger != 96000 || b.target != 60000 {
		t.Fatalf("defaults: %d/%d, want 96000/60000", b.trigger, b.target)
	}
	b = staged(t, "max_tokens=999,compact_at=0.57,compact_to=0.33").(*SmithStaged).budget
	if b.trigger != 569 || b.target != 329 {
		t.Fatalf("truncation: %d/%d, want 569/329", b.trigger, b.target)
	}
	// round is ties-to-even, as current Crystal: (1+0)*1.5 = 1.5 -> 2, (3)*1.5 = 4.5 -> 4.
	b = staged(t, "ratio=1.5").(*SmithStaged).budget
	if b.charged(1) != 2 || b.charged(3) != 4 {
		t.Fatalf("ties-even: charged(1)=%d charged(3)=%d, want 2 and 4", b.charged(1), b.charged(3))
	}
}

func TestStagedBelowTriggerUntouched(t *testing.T) {
	h := conversation(2, 100)
	o := compact(t, staged(t, ""), h)
	if o.Strategy != None || !sameSlice(o.History, h) || len(o.Stages) != 0 {
		t.Fatalf("got %s with %d stages, want None and the same slice", o.Strategy, len(o.Stages))
	}
}

func TestStagedActsAtTrigger(t *testing.T) {
	h := conversation(4, 10000) // ~10 000 tokens: over 9 600, under 12 000
	o := compact(t, staged(t, "max_tokens=12000"), h)
	if o.BeforeTokens <= 9600 || o.BeforeTokens > 12000 || o.Strategy == None {
		t.Fatalf("before=%d strategy=%s: want a compaction between trigger and max", o.BeforeTokens, o.Strategy)
	}
}

func TestStagedCompactsDownToTarget(t *testing.T) {
	h := conversation(8, 20000)
	h[2].Blocks[0].IsError = true
	o := compact(t, staged(t, "max_tokens=40000"), h)
	r := results(o.History)
	if o.Strategy != Truncated || o.AfterTokens > 20000 || !o.ReachedTarget || o.Exhausted {
		t.Fatalf("strategy=%s after=%d reached=%v exhausted=%v", o.Strategy, o.AfterTokens, o.ReachedTarget, o.Exhausted)
	}
	want := strings.Repeat("x", 512) + "\n\n[... 19 KiB truncated by smith to stay within the context window ...]"
	if r[0] != want || len(r[7]) != 20000 {
		t.Fatalf("first result %q…, last %d bytes", r[0][500:], len(r[7]))
	}
	// preserves is_error and the id when truncating
	b := o.History[2].Blocks[0]
	if !b.IsError || b.ToolCallID != "call-0" {
		t.Fatalf("truncated block lost its id or error flag: %+v", b)
	}
	if !slices.Equal(stageNames(o), []string{"truncate"}) || o.Removed != 0 {
		t.Fatalf("stages %v removed %d, want [truncate] and 0", stageNames(o), o.Removed)
	}
	s := o.Stages[0]
	if s.BlocksTouched != 5 || s.BeforeTokens != o.BeforeTokens || s.AfterTokens != o.AfterTokens || s.BytesRemoved <= 0 {
		t.Fatalf("stage report %+v", s)
	}
}

func TestStagedDoesNotRecompact(t *testing.T) {
	p := staged(t, "max_tokens=40000")
	first := compact(t, p, conversation(20, 20000))
	second := compact(t, p, first.History)
	if first.Strategy != Truncated || second.Strategy != None || !sameSlice(second.History, first.History) {
		t.Fatalf("first %s, second %s", first.Strategy, second.Strategy)
	}
}

// replayCount appends h message by message, compacting at every smith
// checkpoint, and returns how many compactions happened.
func replayCount(t *testing.T, p Policy, h []corpus.Message) (int, []corpus.Message) {
	t.Helper()
	var work []corpus.Message
	var u int64
	n := 0
	for i := range h {
		var prev *corpus.Message
		if i > 0 {
			prev = &h[i-1]
		}
		if p.Checkpoint(corpus.FormatSmithTranscript, prev, &h[i]) {
			o := p.Compact(work, Checkpoint{Request: i, Units: u, Count: int64(len(work))})
			assertToolPairing(t, o.History)
			if o.Strategy != None {
				n++
			}
			work, u = o.History, o.Units
		}
		work = append(work, h[i])
		m, _, _ := p.Measure(&h[i])
		u += m
	}
	return n, work
}

func TestStagedHandfulOfCompactions(t *testing.T) {
	n, _ := replayCount(t, staged(t, "max_tokens=40000"), conversation(30, 8000))
	if n == 0 || n >= 5 {
		t.Fatalf("%d compactions over 30 turns of 8000 bytes, want 1..4", n)
	}
}

func TestStagedOverheadAndRatio(t *testing.T) {
	h := conversation(8, 10000)
	if o := compact(t, staged(t, "max_tokens=30000"), h); o.Strategy != None {
		t.Fatalf("without overhead: %s", o.Strategy)
	}
	if o := compact(t, staged(t, "max_tokens=30000,overhead_tokens=8000"), h); o.Strategy == None {
		t.Fatal("with overhead 8000: no compaction")
	}
	h = conversation(4, 10000)
	if o := compact(t, staged(t, "max_tokens=20000"), h); o.Strategy != None {
		t.Fatalf("ratio 1: %s", o.Strategy)
	}
	p := staged(t, "max_tokens=20000,ratio=2.0")
	o := compact(t, p, h)
	if o.Strategy == None {
		t.Fatal("ratio 2: no compaction")
	}
	// reports the cost of the request: before == charged(estimate)
	sp := p.(*SmithStaged)
	if want := sp.budget.charged(sp.meter.Tokens(units(p, h))); o.BeforeTokens != want {
		t.Fatalf("before=%d, want charged(estimate)=%d", o.BeforeTokens, want)
	}
}

func TestStagedRatioRecorded(t *testing.T) {
	h := conversation(4, 10000)
	p := staged(t, "max_tokens=20000,ratio_recorded=true")
	s := &corpus.Session{Meta: corpus.Meta{ContextRatio: 2.7}} // clamped to 2.0
	o := p.Compact(h, Checkpoint{Units: units(p, h), Count: int64(len(h)), Session: s})
	sp := p.(*SmithStaged)
	if want := int(float64(sp.meter.Tokens(units(p, h))) * 2); o.BeforeTokens != want || o.Strategy == None {
		t.Fatalf("before=%d (%s), want %d with the recorded ratio clamped to 2", o.BeforeTokens, o.Strategy, want)
	}
}

func TestStagedSingleOversizedResult(t *testing.T) {
	o := compact(t, staged(t, "max_tokens=1000"), conversation(1, 400000))
	r := results(o.History)
	if o.AfterTokens >= o.BeforeTokens || !strings.Contains(r[0], smithTruncationMarker) || o.Strategy != Truncated {
		t.Fatalf("%s %d -> %d", o.Strategy, o.BeforeTokens, o.AfterTokens)
	}
}

func TestStagedNothingToShrink(t *testing.T) {
	h := ids([]corpus.Message{userMsg(strings.Repeat("u", 40000))})
	o := compact(t, staged(t, "max_tokens=100"), h)
	if o.Strategy != None || !sameSlice(o.History, h) || !o.Exhausted || o.ReachedTarget {
		t.Fatalf("%s exhausted=%v reached=%v", o.Strategy, o.Exhausted, o.ReachedTarget)
	}
}

func TestStagedSummarizes(t *testing.T) {
	h := conversation(10, 60000)
	o := compact(t, staged(t, "max_tokens=1000,summarizer=fixed:16"), h)
	first := o.History[0]
	if o.Strategy != Summarized || first.Role != corpus.RoleUser || !first.Summary || first.Synthetic ||
		first.Blocks[0].Text != "Summary of the earlier conversation: calib stand-in s" || len(o.History) >= len(h) {
		t.Fatalf("%s, first %+v", o.Strategy, first)
	}
	if o.History[1].Role != corpus.RoleUser {
		t.Fatalf("cut into the middle of a turn: message 1 is %s", o.History[1].Role)
	}
	if o.Removed != len(h)-len(o.History) || o.Removed <= 0 {
		t.Fatalf("removed %d, history %d -> %d", o.Removed, len(h), len(o.History))
	}
	if names := stageNames(o); !slices.Contains(names, "summarize") || o.Summarizer != "fixed:16" {
		t.Fatalf("stages %v summarizer %q", names, o.Summarizer)
	}
}

func TestStagedDropsWhenSummaryFails(t *testing.T) {
	h := conversation(10, 60000)
	o := compact(t, staged(t, "max_tokens=1000,summarizer=fail"), h)
	want := "Summary of the earlier conversation: 27 earlier messages were dropped to stay within the context window. Ask the user if you need details from before this point."
	if o.Strategy != Dropped || o.History[0].Blocks[0].Text != want || !slices.Contains(stageNames(o), "drop") {
		t.Fatalf("%s %q", o.Strategy, o.History[0].Blocks[0].Text)
	}
	// fixed:0 is an empty summary: smith raises, which is Dropped too.
	if o := compact(t, staged(t, "max_tokens=1000,summarizer=fixed:0"), h); o.Strategy != Dropped {
		t.Fatalf("empty summary: %s", o.Strategy)
	}
}

func TestStagedPairingAcrossBudgets(t *testing.T) {
	for _, max := range []int{50, 500, 5000, 50000} {
		for _, set := range []string{"", ",summarizer=fail", ",window_turns=0", ",stage_truncate=false"} {
			compact(t, staged(t, fmt.Sprintf("max_tokens=%d%s", max, set)), conversation(12, 30000))
		}
	}
}

func TestSafeCutIndex(t *testing.T) {
	m, _ := NewMeter(MeterBytes4, MeterOptions{})
	h := conversation(6, 5000)
	for _, limit := range []int{0, 100, 3000, 100000} {
		for _, realOnly := range []bool{false, true} {
			cut := newWorking(h, m).safeCutIndex(limit, realOnly)
			if cut <= 0 || h[cut].Role != corpus.RoleUser {
				t.Fatalf("limit %d: cut %d is not a user message", limit, cut)
			}
		}
	}
	if cut := newWorking(conversation(1, 5000), m).safeCutIndex(0, true); cut != 0 {
		t.Fatalf("single turn: cut %d, want 0", cut)
	}
}

func TestStagedOverheadFillsTarget(t *testing.T) {
	p := staged(t, "max_tokens=120000,overhead_tokens=60000")
	sp := p.(*SmithStaged)
	if sp.budget.allowance(sp.budget.target) != 0 {
		t.Fatal("target_allowance should be 0")
	}
	o := compact(t, p, conversation(10, 20000))
	// The raw history (~50 000) is already within the ceiling's allowance
	// (60 000): nothing needs to go, and the request fits the ceiling.
	if o.AfterTokens > 120000 || len(o.History) <= 3 || o.Exhausted {
		t.Fatalf("%s after=%d kept=%d", o.Strategy, o.AfterTokens, len(o.History))
	}
	h := conversation(4, 20000)
	o = compact(t, staged(t, "max_tokens=10000,overhead_tokens=50000"), h)
	if o.Strategy != None || !sameSlice(o.History, h) || !o.Exhausted {
		t.Fatalf("%s exhausted=%v", o.Strategy, o.Exhausted)
	}
}

func TestStagedAlreadyTruncatedOnce(t *testing.T) {
	first := compact(t, staged(t, "max_tokens=40000"), conversation(8, 20000))
	second := compact(t, staged(t, "max_tokens=20000"), first.History)
	a, b := results(first.History)[0], results(second.History)[0]
	if a != b || strings.Contains(b, "0 KiB") {
		t.Fatalf("second pass re-cut the first result: %q", b)
	}
}
