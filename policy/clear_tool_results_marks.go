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

// resultLookBack is how many messages before a tool result its mark
// looks for the call that names its tool: a call not found there leaves
// the result counted, which only weakens the proof.
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
		if b.Kind != corpus.KindToolResult || p.stub.matches(b.Text) || !p.mayClear(h, b) {
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

// mayClear reports whether plan may count b, a result about to follow h,
// as one of its candidates: its tool (on b, or on the call it answers
// when that call is within resultLookBack messages, the last block with
// its id winning as in plan's names) is neither exempt nor left out of
// compactable_tools. A result whose call is not found counts. (A call id
// is taken to name one call: a later call reusing the id of one already
// answered would rename the result in plan and not here.)
func (p *ClearToolResults) mayClear(h []corpus.Message, b *corpus.Block) bool {
	if len(p.exempt) == 0 && p.compactable == nil {
		return true
	}
	name, found := b.ToolName, b.ToolName != ""
	for i := len(h) - 1; !found && i >= max(0, len(h)-resultLookBack); i-- {
		if h[i].Role != corpus.RoleAssistant {
			continue
		}
		for k := range h[i].Blocks {
			if c := &h[i].Blocks[k]; c.Kind == corpus.KindToolUse && c.ToolCallID == b.ToolCallID {
				name, found = c.ToolName, true
			}
		}
	}
	return !found || !p.exempt[name] && (p.compactable == nil || p.compactable[name])
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
