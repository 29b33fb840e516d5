package policy

import (
	"sort"
	"strings"

	"github.com/calib-dev/calib/corpus"
)

// ResultMark is a message of a working history that holds tool results
// (At, its index), with two sums over the history up to and including it,
// for the preset's first clear stage (the one Composed.Measure weighs):
// Count, Measure's count (that stage's weight of the uncleared results),
// and Writable, how many results that stage would write its stub over if
// its rule cleared them (clearStage.writable). With them the stage proves
// in O(log n) that a checkpoint writes nothing, where its count alone is
// only a bound: without them it read the history back to its newest stub
// and handed all of that to clear-tool-results at every checkpoint
// (gemini-cli with results between keep_value and a clear reaching
// min_reclaim, swe-agent with more than 5 results each no longer than its
// stub). The replay keeps them like the turn starts: ResultMarks when it
// starts, AddResult as it appends, AdoptResults over a changed suffix.
// clear-tool-results run alone (keep=tokens or results) keeps them too,
// with its own Count (its plan's candidates) and no Writable
// (clear_tool_results_marks.go).
type ResultMark struct {
	At       int
	Count    int64
	Writable int64
}

// ResultMarks are the marks of an empty history under p: empty for a
// preset with a clear stage and for clear-tool-results with keep=tokens
// or keep=results, nil otherwise. nil means the caller does not
// keep them, and AddResult and AdoptResults keep nil as it is, so a
// policy that does not read them costs nothing.
func ResultMarks(p Policy) []ResultMark {
	switch c := p.(type) {
	case *Composed:
		if c.weigh != nil {
			return []ResultMark{}
		}
	case *ClearToolResults:
		if c.usesMarks() {
			return []ResultMark{}
		}
	}
	return nil
}

// AddResult returns rs with m's mark appended when m holds a tool result;
// m is about to be appended to h, the history rs describes.
func AddResult(p Policy, rs []ResultMark, h []corpus.Message, m *corpus.Message) []ResultMark {
	if rs == nil {
		return nil
	}
	switch c := p.(type) {
	case *Composed:
		if c.weigh != nil {
			return c.weigh.mark(rs, m, len(h), c.g.meter)
		}
	case *ClearToolResults:
		if c.usesMarks() {
			return c.mark(rs, h, m)
		}
	}
	return nil
}

// AdoptResults returns the marks of h, given rs, those of a history whose
// messages before fc h shares unchanged (FirstChanged): the marks before
// fc are kept and the rest are read from h[fc:]. It costs the changed
// suffix. rs's array is reused.
func AdoptResults(p Policy, rs []ResultMark, h []corpus.Message, fc int) []ResultMark {
	if rs == nil {
		return nil
	}
	for len(rs) > 0 && rs[len(rs)-1].At >= fc {
		rs = rs[:len(rs)-1]
	}
	for i := fc; i < len(h); i++ {
		rs = AddResult(p, rs, h[:i], &h[i])
	}
	return rs
}

// mark appends m's mark to rs (m at index at) when m holds a tool result.
// Under keep_first the history's first result is never written, so it is
// not counted as writable: it is the first result of the first marked
// message, which is m when rs is empty.
func (c *clearStage) mark(rs []ResultMark, m *corpus.Message, at int, meter *Meter) []ResultMark {
	var prev ResultMark
	if len(rs) > 0 {
		prev = rs[len(rs)-1]
	}
	r, results := ResultMark{At: at, Count: prev.Count, Writable: prev.Writable}, 0
	for j := range m.Blocks {
		b := &m.Blocks[j]
		if b.Kind != corpus.KindToolResult {
			continue
		}
		results++
		u := meter.Block(b)
		r.Count += c.weigh(b, u)
		if (!c.keepFirst || len(rs) > 0 || results > 1) && c.writable(b, u, meter) {
			r.Writable++
		}
	}
	if results == 0 {
		return rs
	}
	return append(rs, r)
}

// writable reports whether the stage, were its rule to clear b (a tool
// result of units u), would write: b is not a stub already, and its stub
// (as run renders it) is shorter. A stub naming a {path} is rendered per
// session, so such a stage counts every result.
func (c *clearStage) writable(b *corpus.Block, u int64, meter *Meter) bool {
	if c.isStub(b.Text) {
		return false
	}
	if strings.Contains(c.stub, "{path}") {
		return true
	}
	nb := *b
	nb.Payload = nil
	if c.perResult {
		// A {preview} depends on the result's tool, which b alone does
		// not always name: writable when either preview is shorter.
		nb.Text = c.render(b, false)
		if len(c.shellTools) > 0 && strings.Contains(c.stub, "{preview}") && meter.Block(&nb) >= u {
			nb.Text = c.render(b, true)
		}
	} else {
		nb.Text = c.inner.stub.render(b.ToolCallID, nil)
	}
	return meter.Block(&nb) < u
}

// writesNothing reports whether run, on st.h with the view ending at end,
// provably writes nothing, read from rs, the marks of st.in (Compact's
// input, which st.h must still be). The keep rule's walk from the newest
// result back over the view (from the stage's newest stub to end, the
// exempt results left out) adds up at most what it adds up over the whole
// history before end, exempt results in: so a result it clears lies in or
// before the newest message k whose results through end overflow the
// rule (more than keep_value results, or more than keep_value tokens) by
// the history's count alone. No such message: nothing is cleared. Under
// keep=tokens, the results through k hold at least what is cleared, so
// under min_reclaim nothing is. And whatever is cleared, nothing is written
// when no result through k is writable (and no input is cleared with it).
// Any other case answers false, and run reads the history as before.
func (c *clearStage) writesNothing(st *compState, rs []ResultMark, end int) bool {
	p := c.inner
	if rs == nil || st.weigh != c || !p.usesMarks() ||
		!st.asHanded() { // an earlier stage rewrote the history
		return false
	}
	n := sort.Search(len(rs), func(k int) bool { return rs[k].At >= end })
	if p.clearsNothing(rs[:n]) { // also when no result is before end
		return true
	}
	return !p.clearInput && rs[p.newestOverflow(rs[:n])].Writable == 0
}
