package policy

import (
	"sort"

	"github.com/calib-dev/calib/corpus"
)

// clear-tool-results' result marks (ResultMark, kept by the replay as for
// a preset's clear stage): a checkpoint whose trigger fires but whose
// keep rule leaves nothing worth clearing is proved so in O(log n) from
// them, instead of a plan that reads the whole history (a long session
// above the trigger whose results are all kept, exempt or under
// min_reclaim was quadratic).

// resultLookBack is how many messages before a tool result plan and its
// mark look for the call that names its tool: a call not found there
// leaves the result counted by the mark, which only weakens the proof,
// and sends plan to the history's other calls.
const resultLookBack = 64

// usesMarks reports whether Compact reads the result marks: the keep
// rules whose walk from the newest result the marks bound.
func (p *ClearToolResults) usesMarks() bool {
	return p.keep == KeepTokens || p.keep == KeepResults
}

// keepWeight is a result's share of a mark's Count: its units under
// keep=tokens, 1 under keep=results.
func (p *ClearToolResults) keepWeight(units int64) int64 {
	if p.keep == KeepTokens {
		return units
	}
	return 1
}

// overflows reports whether results weighing s (summed keepWeight)
// overflow the keep rule: more than keep_value results, or more than
// keep_value tokens.
func (p *ClearToolResults) overflows(s int64) bool {
	if p.keep == KeepResults {
		return s > int64(p.keepValue)
	}
	return p.meter.Tokens(s) > p.keepValue
}

// mark appends m's mark to rs when m holds a result plan could clear (m
// is about to be appended to h, which rs describes): Count sums
// keepWeight over those results, which are plan's candidates: not the
// stub, and (as plan names them) of a compactable, non-exempt tool.
// Writable stays 0: Compact does not read it (apply writes every stub it
// plans).
func (p *ClearToolResults) mark(rs []ResultMark, h []corpus.Message, m *corpus.Message) []ResultMark {
	var r ResultMark
	if len(rs) > 0 {
		r = rs[len(rs)-1]
	}
	r.At = len(h)
	counted := false
	for j := range m.Blocks {
		b := &m.Blocks[j]
		if b.Kind != corpus.KindToolResult || p.stub.matches(b.Text) || !p.mayClear(h, m, b) {
			continue
		}
		r.Count += p.keepWeight(p.meter.Block(b))
		counted = true
	}
	if !counted {
		return rs
	}
	return append(rs, r)
}

// mayClear reports whether plan may count b, a result of m, which is
// about to follow h, as one of its candidates: its tool (callName) is
// neither exempt nor left out of compactable_tools. A result whose call is
// not within resultLookBack messages counts (plan reads its name from the
// whole history).
func (p *ClearToolResults) mayClear(h []corpus.Message, m *corpus.Message, b *corpus.Block) bool {
	if len(p.exempt) == 0 && p.compactable == nil {
		return true
	}
	name, found := callName(h, m, b)
	return !found || p.clears(name)
}

// clears reports whether the policy clears results of tool name.
func (p *ClearToolResults) clears(name string) bool {
	return !p.exempt[name] && (p.compactable == nil || p.compactable[name])
}

// callName is the tool of b, a result of m, which follows h: the name on
// b, or that of the call b answers, the nearest call with its id in an
// assistant message among m and the resultLookBack messages before it
// (the last such block of that message). found is false when there is
// none: the caller then reads the history's other calls, or counts b.
func callName(h []corpus.Message, m *corpus.Message, b *corpus.Block) (name string, found bool) {
	if b.ToolName != "" {
		return b.ToolName, true
	}
	for i := len(h); i >= max(0, len(h)-resultLookBack); i-- {
		c := m
		if i < len(h) {
			c = &h[i]
		}
		if c.Role != corpus.RoleAssistant {
			continue
		}
		for k := range c.Blocks {
			if u := &c.Blocks[k]; u.Kind == corpus.KindToolUse && u.ToolCallID == b.ToolCallID {
				name, found = u.ToolName, true
			}
		}
		if found {
			return name, true
		}
	}
	return "", false
}

// newestOverflow is the index of the newest mark of rs from which the
// results through the last mark overflow the keep rule by rs's Count
// alone, -1 when none does. The count from mark k on shrinks as k grows,
// so it is a binary search.
func (p *ClearToolResults) newestOverflow(rs []ResultMark) int {
	if len(rs) == 0 {
		return -1
	}
	total := rs[len(rs)-1].Count
	return sort.Search(len(rs), func(k int) bool {
		before := int64(0)
		if k > 0 {
			before = rs[k-1].Count
		}
		return !p.overflows(total - before)
	}) - 1
}

// clearsNothing reports whether plan, on the history rs marks (all of
// it: rs is Checkpoint.Results), provably clears nothing or less than
// min_reclaim, so that Compact returns the history untouched. plan's walk
// from the newest result adds up, before each result it clears, at most
// the candidates from that result on (the pending step's included, which
// protect_pending keeps but still counts; keep_walk=skip only ever skips
// a result that overflows on its own count): so every cleared result lies
// in or before the newest mark k from which the candidates overflow the
// rule. None: nothing is cleared. Under keep=tokens the candidates
// through k hold at least the cleared units, and meter.Tokens is
// monotone, so under min_reclaim nothing is cleared either. Any other
// case (or nil marks: the caller does not keep them) answers false and
// plan decides.
func (p *ClearToolResults) clearsNothing(rs []ResultMark) bool {
	if rs == nil || !p.usesMarks() {
		return false
	}
	k := p.newestOverflow(rs)
	return k < 0 || p.keep == KeepTokens && p.meter.Tokens(rs[k].Count) < p.minReclaim
}
