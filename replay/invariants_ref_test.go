package replay

import (
	"fmt"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// refCheck is the checker as it was before it kept state: every check
// walks the whole input and the whole outcome. It is the reference the
// incremental checker must agree with, violation for violation and in the
// same order (invariants_test.go).
func refCheck(p policy.Policy, in []corpus.Message, out policy.Outcome, req int, ev *Event) []Violation {
	var vs []Violation
	add := func(rule, format string, a ...any) {
		vs = append(vs, Violation{Request: req, Rule: rule, Detail: fmt.Sprintf(format, a...)})
	}
	h := out.History

	before, after := refPairCounts(in), refPairCounts(h)
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

	emptyBefore := map[string]bool{}
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
		cur := refCurrentTurn(in)
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

	if !changed(handed{in: in}, h, 0) {
		add(RuleClaimed, "strategy %q reported but the history is unchanged", out.Strategy)
	}

	var units, count, thinking int64
	for i := range h {
		u, c, k := p.Measure(&h[i])
		units += u
		count += c
		thinking += k
	}
	if units != out.Units || count != out.Count || thinking != out.Thinking {
		add(RuleAccounting, "outcome reports sums of %d, %d and %d, a fresh measure gives %d, %d and %d",
			out.Units, out.Count, out.Thinking, units, count, thinking)
	}
	return vs
}

// refPairCounts counts tool_use and tool_result blocks per call id.
func refPairCounts(h []corpus.Message) map[string]pair {
	m := map[string]pair{}
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

// refCurrentTurn is the index of the last real user message (the start of the
// turn in progress), or 0.
func refCurrentTurn(h []corpus.Message) int {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].RealTurn() {
			return i
		}
	}
	return 0
}
