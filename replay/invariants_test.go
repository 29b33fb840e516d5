package replay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// The incremental checker agrees with the whole-history reference on
// random walks: messages are appended between compactions, and each
// compaction makes random edits (drops, empties, duplicates, rewritten
// results, changed roles or call ids, nothing at all) at random places,
// early ones included, and reports right or wrong sums and sizes. Every
// rule must fire somewhere, so the agreement is not the empty one.
func TestCheckerAgreesWithTheWholeHistoryCheck(t *testing.T) {
	p := &stubPolicy{}
	fired := map[string]int{}
	overwrote := 0
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		c := newChecker()
		var h []corpus.Message
		next := 0
		for req := range 60 {
			for range 1 + r.IntN(6) {
				h = append(h, randomMessage(r, &next))
			}
			out := randomCompaction(r, p, h)
			was := h
			if r.IntN(2) == 0 {
				out, was = inPlace(h, out)
			}
			if out.Overwrote != nil {
				overwrote++
			}
			fc := policy.ChangedFrom(h, out)
			var got, want Event
			gv := c.check(p, handedTo(h, out), out, fc, req, &got)
			wv := refCheck(p, was, out, req, &want)
			if !reflect.DeepEqual(gv, wv) || got.CurrentTurnResultsCut != want.CurrentTurnResultsCut {
				t.Fatalf("seed %d request %d (first changed %d of %d): got %+v (cut %d), want %+v (cut %d)",
					seed, req, fc, len(h), gv, got.CurrentTurnResultsCut, wv, want.CurrentTurnResultsCut)
			}
			for _, v := range wv {
				fired[v.Rule]++
			}
			if want := callsOf(out.History); !reflect.DeepEqual(c.calls, want) {
				t.Fatalf("seed %d request %d: the checker's calls are %v, the outcome's %v", seed, req, c.calls, want)
			}
			h = out.History
		}
	}
	if overwrote < 100 {
		t.Errorf("%d outcomes in place: the test does not exercise them", overwrote)
	}
	for _, rule := range []string{RulePairing, RuleEmpty, RuleCurrent, RuleClaimed, RuleAccounting, RuleShrink} {
		if fired[rule] == 0 {
			t.Errorf("no %s violation in the random walks: the test does not exercise it", rule)
		}
	}
}

// callsOf is the checker's calls state built afresh for h: the counts of
// every call id with a block in h, and its first block.
func callsOf(h []corpus.Message) map[string]call {
	m := map[string]call{}
	for i := range h {
		for j, b := range toolBlocks(&h[i]) {
			e, ok := m[b.ToolCallID]
			if !ok {
				e.first = pos{i, j}
			}
			e.pair = e.moved(b, 1)
			m[b.ToolCallID] = e
		}
	}
	return m
}

// inPlace turns o, a compaction of h that keeps its length, into the
// same compaction made in place, as a policy lent h does
// (Checkpoint.Owned): the changed messages are written into h and
// Outcome.Overwrote holds what was there. It returns the outcome and a
// copy of h as handed; o itself when it changes h's length or nothing.
func inPlace(h []corpus.Message, o policy.Outcome) (policy.Outcome, []corpus.Message) {
	if len(o.History) != len(h) {
		return o, h
	}
	fc, end := policy.FirstChanged(h, o.History), 0
	for i := fc; i < len(h); i++ {
		if !policy.SameMessage(&h[i], &o.History[i]) {
			end = i + 1
		}
	}
	if end <= fc {
		return o, h
	}
	was := slices.Clone(h)
	o.Overwrote, o.OverwroteAt = slices.Clone(h[fc:end]), fc
	copy(h[fc:], o.History[fc:end])
	o.History = h
	return o, was
}

// randomMessage is a user turn, a synthetic user message, an assistant
// message with zero to two tool calls, a tool result for a recent or
// unknown call, or an empty message.
func randomMessage(r *rand.Rand, next *int) corpus.Message {
	*next++
	m := corpus.Message{ID: fmt.Sprintf("m%d", *next)}
	switch r.IntN(6) {
	case 0:
		m.Role, m.Blocks = corpus.RoleUser, text("go")
	case 1:
		m.Role, m.Synthetic, m.Blocks = corpus.RoleUser, true, text("continue")
	case 2:
		m.Role = corpus.RoleAssistant
		m.Blocks = text("thinking aloud")
		for range r.IntN(3) {
			m.Blocks = append(m.Blocks, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: fmt.Sprintf("c%d", *next-r.IntN(2)), Args: []byte(`{}`)})
		}
	case 3, 4:
		m.Role = corpus.RoleTool
		m.Blocks = []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: fmt.Sprintf("c%d", *next-1-r.IntN(4)), Text: strings.Repeat("x", 1+r.IntN(50))}}
	default:
		m.Role = corpus.RoleAssistant
	}
	return m
}

// randomCompaction edits a copy of h (never h's messages or blocks) and
// reports an outcome whose sums and sizes are mostly right.
func randomCompaction(r *rand.Rand, p *stubPolicy, h []corpus.Message) policy.Outcome {
	out := slices.Clone(h)
	// Early and late places alike: a third of the edits fall in the
	// first messages, behind a long unchanged suffix.
	at := func() int {
		if r.IntN(3) == 0 {
			return r.IntN(min(len(out), 3))
		}
		return r.IntN(len(out))
	}
	for range r.IntN(3) {
		if len(out) == 0 {
			break
		}
		k := at()
		switch r.IntN(8) {
		case 0:
			out = slices.Delete(out, k, k+1)
		case 1:
			out = slices.Delete(out, k, min(len(out), k+1+r.IntN(4)))
		case 2:
			out[k].Blocks = nil
		case 3:
			out = slices.Insert(out, k, out[k])
		case 4:
			out[k].Role = corpus.RoleAssistant
		case 5, 6:
			b := slices.Clone(out[k].Blocks)
			for j := range b {
				if b[j].Kind == corpus.KindToolResult {
					b[j].Text = "[cleared]"
				} else if r.IntN(4) == 0 && b[j].Kind == corpus.KindToolUse {
					b[j].ToolCallID += "'"
				}
			}
			out[k].Blocks = b
		default: // nothing: a claimed change
		}
	}
	o := policy.Outcome{History: out, Strategy: policy.Truncated}
	if r.IntN(10) == 0 {
		o.Strategy = policy.Rotated
	}
	for i := range out {
		u, n, k := p.Measure(&out[i])
		o.Units += u
		o.Count += n
		o.Thinking += k
	}
	if r.IntN(10) == 0 {
		o.Units++
	}
	o.BeforeTokens, o.AfterTokens = 100, 100-r.IntN(20)
	if r.IntN(10) == 0 {
		o.AfterTokens = 101
	}
	return o
}

// everyRequest compacts at every request of a long session, rewriting the
// newest tool result ("x" and "y" in turn, never longer than before): a
// late edit, behind a long unchanged prefix (the first request, whose
// history holds only "go", is left alone). At request bad it also
// applies edit.
func everyRequest(bad int, edit func(h []corpus.Message) []corpus.Message) *stubPolicy {
	p := &stubPolicy{limit: 2}
	p.compact = func(h []corpus.Message) []corpus.Message {
		out := slices.Clone(h)
		for i := len(out) - 1; i >= 0; i-- {
			if out[i].Role == corpus.RoleTool {
				b := slices.Clone(out[i].Blocks)
				b[0].Text = map[bool]string{true: "y", false: "x"}[b[0].Text == "x"]
				out[i].Blocks = b
				break
			}
		}
		if p.calls-1 == bad { // calls counts requests, this one included
			out = edit(out)
		}
		return out
	}
	return p
}

// A pair broken in the changed suffix, near the end of a long history, is
// found at its request and nowhere else.
func TestCheckerFindsAViolationInTheChangedSuffix(t *testing.T) {
	const bad = 150
	p := everyRequest(bad, func(h []corpus.Message) []corpus.Message {
		last := len(h) - 1
		for h[last].Role != corpus.RoleTool {
			last--
		}
		return slices.Delete(h, last, last+1)
	})
	tr, err := Run(context.Background(), session(100, 10), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Violation{{Request: bad, Rule: RulePairing, Detail: `tool call "c74" has 1 tool_use and 0 tool_result after compaction (before: 1 and 1)`}}
	if !reflect.DeepEqual(tr.Violations, want) {
		t.Fatalf("violations = %+v, want %+v", tr.Violations, want)
	}
}

// A compaction that edits the first messages (first changed 0 or 1, the
// rest of a long history unchanged) is checked over the whole history: an
// emptied first message, a result dropped in the middle, and the current
// turn (u75, just appended) rewritten are all found, in the checks' order.
func TestCheckerChecksAnEarlyEditFully(t *testing.T) {
	const bad = 150
	p := everyRequest(bad, func(h []corpus.Message) []corpus.Message {
		h[0].Blocks = nil
		h[len(h)-1].Blocks = text("gone")
		return slices.Delete(h, 202, 203) // t50, the result of c50
	})
	tr, err := Run(context.Background(), session(100, 10), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Violation{
		{Request: bad, Rule: RulePairing, Detail: `tool call "c50" has 1 tool_use and 0 tool_result after compaction (before: 1 and 1)`},
		{Request: bad, Rule: RuleEmpty, Detail: `message 0 (user, id "u0") has no content after compaction`},
		{Request: bad, Rule: RuleCurrent, Detail: `message 0 of the current turn (id "u75") was changed beyond its tool results`},
	}
	if !reflect.DeepEqual(tr.Violations, want) {
		t.Fatalf("violations = %+v, want %+v", tr.Violations, want)
	}
}

// TestCountBefore checks the counts countBefore finds in the history as
// handed, for few uneven ids (compared in turn) and for many (looked up),
// against a fresh count, and that it keeps only the ids whose counts
// changed.
func TestCountBefore(t *testing.T) {
	for _, n := range []int{1, 3, 8, 9, 40} {
		var h []corpus.Message
		for i := range n {
			id := fmt.Sprintf("c%d", i)
			h = append(h, corpus.Message{ID: "a" + id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: id}}})
			for range i % 3 {
				h = append(h, corpus.Message{ID: "t" + id, Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: id}}})
			}
		}
		want := callsOf(h)
		var broken []brokenPair
		for i := range n {
			id := fmt.Sprintf("c%d", i)
			after := want[id].pair
			if i%2 == 0 {
				after.results++ // changed: kept
			}
			broken = append(broken, brokenPair{id: id, after: after})
		}
		got := countBefore(handed{in: h}, broken)
		if len(got) != (n+1)/2 {
			t.Fatalf("%d ids: %d kept, want the %d whose counts changed", n, len(got), (n+1)/2)
		}
		for _, x := range got {
			if x.before != want[x.id].pair {
				t.Errorf("%d ids: %s counted %+v, want %+v", n, x.id, x.before, want[x.id].pair)
			}
		}
	}
}

// TestCheckerSuspectsEvened checks that the calls a compaction keeps
// whole leave no suspect behind, parallel calls included (two uses, then
// their two results), so that a well-formed check looks nothing up at the
// end: a summary of the first turns, then an edit from the middle on.
func TestCheckerSuspectsEvened(t *testing.T) {
	p := &stubPolicy{}
	var h []corpus.Message
	for i := range 12 {
		a, b := fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)
		h = append(h, corpus.Message{ID: "u" + a, Role: corpus.RoleUser, Blocks: text("go")},
			corpus.Message{ID: "m" + a, Role: corpus.RoleAssistant, Blocks: []corpus.Block{
				{Kind: corpus.KindToolUse, ToolCallID: a}, {Kind: corpus.KindToolUse, ToolCallID: b}}},
			corpus.Message{ID: "t" + a, Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: a, Text: "x"}}},
			corpus.Message{ID: "t" + b, Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: b, Text: "y"}}})
	}
	c := newChecker()
	sum := corpus.Message{ID: "s", Role: corpus.RoleUser, Summary: true, Blocks: text("summary")}
	out := policy.Outcome{History: append([]corpus.Message{sum}, h[16:]...), Strategy: policy.Summarized}
	c.check(p, handedTo(h, out), out, 0, 0, &Event{})
	if len(c.suspects) != 0 {
		t.Fatalf("after a summary, %d suspects: %v", len(c.suspects), c.suspects)
	}
	h = out.History
	edited := slices.Clone(h)
	const at = 11 // the first result of turn 6
	edited[at].Blocks = []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: edited[at].Blocks[0].ToolCallID, Text: "cut"}}
	out = policy.Outcome{History: edited, Strategy: policy.Truncated}
	c.check(p, handedTo(h, out), out, at, 1, &Event{})
	if len(c.suspects) != 0 {
		t.Fatalf("after an edit, %d suspects: %v", len(c.suspects), c.suspects)
	}
}
