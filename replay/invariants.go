package replay

import (
	"fmt"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// Invariant names, as reported in violations.
const (
	RulePairing    = "tool-pairing"     // each tool_use keeps exactly one tool_result and vice versa
	RuleEmpty      = "empty-message"    // no message is left without content
	RuleCurrent    = "current-turn"     // the turn in progress keeps its messages and non-result blocks
	RuleClaimed    = "claimed-change"   // a compaction that changed nothing, or None that changed something
	RuleAccounting = "accounting"       // Outcome.Units/Count agree with a fresh measure
	RuleShrink     = "grew-the-history" // a non-rotation compaction must not make the context bigger
)

// checker verifies compaction outcomes. Its maps are reused from one
// compaction to the next: a replay checks hundreds of compactions, and a
// sweep thousands of replays.
type checker struct {
	before, after map[string]pair
	emptyBefore   map[string]bool
}

func newChecker() *checker {
	return &checker{before: map[string]pair{}, after: map[string]pair{}, emptyBefore: map[string]bool{}}
}

// check verifies one compaction outcome against the history it was given.
// Pairing is judged relative to the input: a session whose pairs were
// already broken is not the policy's fault, but any pair the policy breaks
// (or duplicates) is.
func (c *checker) check(p policy.Policy, in []corpus.Message, out policy.Outcome, req int, ev *Event) []Violation {
	var vs []Violation
	add := func(rule, format string, a ...any) {
		vs = append(vs, Violation{Request: req, Rule: rule, Detail: fmt.Sprintf(format, a...)})
	}
	h := out.History

	before, after := pairCounts(c.before, in), pairCounts(c.after, h)
	// In history order, not map order: the report must be deterministic.
	for i := range h {
		for j := range h[i].Blocks {
			b := &h[i].Blocks[j]
			if b.Kind != corpus.KindToolUse && b.Kind != corpus.KindToolResult {
				continue
			}
			id := b.ToolCallID
			a, ok := after[id]
			if !ok || a.uses == a.results {
				continue
			}
			delete(after, id) // report each id once
			if b := before[id]; b != a {
				add(RulePairing, "tool call %q has %d tool_use and %d tool_result after compaction (before: %d and %d)", id, a.uses, a.results, b.uses, b.results)
			}
		}
	}

	emptyBefore := c.emptyBefore
	clear(emptyBefore)
	for i := range in {
		if len(in[i].Blocks) == 0 {
			emptyBefore[in[i].ID] = true
		}
	}
	for i := range h {
		if len(h[i].Blocks) == 0 && !emptyBefore[h[i].ID] {
			add(RuleEmpty, "message %d (%s, id %q) has no content after compaction", i, h[i].Role, h[i].ID)
		}
	}

	_, recording := p.(policy.Recording)
	if out.Strategy != policy.Rotated && !recording {
		cur := currentTurn(in)
		n := len(in) - cur
		if len(h) < n {
			add(RuleCurrent, "the current turn had %d messages and only %d remain in the history", n, len(h))
		} else {
			tail := h[len(h)-n:]
			for i := range n {
				cut, ok := sameExceptResults(&in[cur+i], &tail[i])
				if !ok {
					add(RuleCurrent, "message %d of the current turn (id %q) was changed beyond its tool results", i, in[cur+i].ID)
					break
				}
				ev.CurrentTurnResultsCut += cut
			}
		}
		if out.AfterTokens > out.BeforeTokens {
			add(RuleShrink, "compaction went from %d to %d tokens", out.BeforeTokens, out.AfterTokens)
		}
	}

	if !changed(in, h) {
		add(RuleClaimed, "strategy %q reported but the history is unchanged", out.Strategy)
	}

	var units, count int64
	for i := range h {
		u, c := p.Measure(&h[i])
		units += u
		count += c
	}
	if units != out.Units || count != out.Count {
		add(RuleAccounting, "outcome reports sums of %d and %d, a fresh measure gives %d and %d", out.Units, out.Count, units, count)
	}
	return vs
}

// checkUnchanged verifies that a None outcome returned the history as it was.
func checkUnchanged(in []corpus.Message, out policy.Outcome, req int) *Violation {
	h := out.History
	if len(h) != len(in) || (len(h) > 0 && &h[0] != &in[0]) {
		return &Violation{Request: req, Rule: RuleClaimed, Detail: "strategy none returned a different history"}
	}
	return nil
}

type pair struct{ uses, results int }

// pairCounts counts tool_use and tool_result blocks per call id into m
// (cleared first).
func pairCounts(m map[string]pair, h []corpus.Message) map[string]pair {
	clear(m)
	for i := range h {
		for j := range h[i].Blocks {
			b := &h[i].Blocks[j]
			switch b.Kind {
			case corpus.KindToolUse:
				p := m[b.ToolCallID]
				p.uses++
				m[b.ToolCallID] = p
			case corpus.KindToolResult:
				p := m[b.ToolCallID]
				p.results++
				m[b.ToolCallID] = p
			}
		}
	}
	return m
}

// currentTurn is the index of the last real user message (the start of the
// turn in progress), or 0.
func currentTurn(h []corpus.Message) int {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].RealTurn() {
			return i
		}
	}
	return 0
}

// sameExceptResults compares two messages block by block; tool_result text
// may differ (it reports how many did), nothing else may.
func sameExceptResults(a, b *corpus.Message) (cut int, ok bool) {
	if a.ID != b.ID || a.Role != b.Role || len(a.Blocks) != len(b.Blocks) {
		return 0, false
	}
	for i := range a.Blocks {
		x, y := &a.Blocks[i], &b.Blocks[i]
		if x.Kind != y.Kind || x.ToolCallID != y.ToolCallID {
			return 0, false
		}
		if x.Kind == corpus.KindToolResult {
			if x.Text != y.Text {
				cut++
			}
			continue
		}
		if x.Text != y.Text || x.Signature != y.Signature || string(x.Args) != string(y.Args) {
			return 0, false
		}
	}
	return cut, true
}

// changed reports whether a compaction changed anything. Unchanged messages
// share their block slices with the input, so this is cheap.
func changed(in, out []corpus.Message) bool {
	if len(in) != len(out) {
		return true
	}
	for i := range in {
		a, b := in[i].Blocks, out[i].Blocks
		if len(a) != len(b) || in[i].ID != out[i].ID {
			return true
		}
		if len(a) > 0 && &a[0] != &b[0] {
			for j := range a {
				if a[j].Text != b[j].Text || a[j].Kind != b[j].Kind || string(a[j].Args) != string(b[j].Args) {
					return true
				}
			}
		}
	}
	return false
}
