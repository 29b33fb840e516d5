package policy

import "github.com/calib-dev/calib/corpus"

// clear-tool-results' plan and its application: which results one
// compaction clears (the keep rules, exemptions, the pending step) and the
// rewrite of the history that clears them (clear_tool_results.go holds the
// policy: its parameters, trigger and Compact).

// clearPlan is what one compaction will clear.
type clearPlan struct {
	clear        []resultRef // in history order
	resultUnits  int64       // uncleared, non-exempt results, pending ones included
	clearedUnits int64
	turnStart    int // the current user turn's first message
}

type resultRef struct {
	msg, block int
	units      int64
}

// plan chooses the results to clear. One backward pass: the newest
// compactable results are kept by the keep rule, the rest are cleared.
func (p *ClearToolResults) plan(h []corpus.Message) clearPlan {
	var pl clearPlan
	lastAsst, turnStart := lastStepAndTurn(h)
	// A result's tool, for compactable_tools and exempt_tools, is that of
	// the call it answers (callName, as the result marks read it); only a
	// call further back than resultLookBack, or none, makes plan read every
	// call: the last with the result's id names it.
	filter := len(p.exempt) > 0 || p.compactable != nil
	var names map[string]string
	toolOf := func(i int, b *corpus.Block) string {
		if name, found := callName(h[:i], &h[i], b); found {
			return name
		}
		if names == nil {
			names = callNames(h)
		}
		return names[b.ToolCallID]
	}
	pl.turnStart = turnStart
	// The keep rules that count turns or steps keep every result after the
	// boundary message they name.
	keepFrom := len(h)
	switch p.keep {
	case KeepTurns:
		keepFrom = nthLast(h, p.keepValue, (*corpus.Message).RealTurn)
	case KeepSteps:
		keepFrom = nthLast(h, p.keepValue, func(m *corpus.Message) bool { return m.Role == corpus.RoleAssistant })
	}
	measure := p.planUnits()
	kept, keptUnits := 0, int64(0)
	keeping := true // keep=tokens, keep_walk=stop: once the budget overflows, every older result goes
	for i := len(h) - 1; i >= 0; i-- {
		m := &h[i]
		for j := len(m.Blocks) - 1; j >= 0; j-- {
			b := &m.Blocks[j]
			if b.Kind != corpus.KindToolResult || p.stub.matches(b.Text) {
				continue
			}
			if filter && !p.clears(toolOf(i, b)) {
				continue
			}
			var u int64
			if measure {
				u = p.meter.Block(b)
			}
			pl.resultUnits += u
			keep := p.protect && i > lastAsst // the pending step
			switch p.keep {
			case KeepResults:
				keep = keep || kept < p.keepValue
			case KeepTokens:
				fits := p.meter.Tokens(keptUnits+u) <= p.keepValue
				if p.walkSkip {
					keep = keep || fits
				} else {
					keeping = keeping && fits
					keep = keep || keeping
				}
			default:
				keep = keep || i >= keepFrom
			}
			if keep {
				kept++
				keptUnits += u
				continue
			}
			pl.clear = append(pl.clear, resultRef{msg: i, block: j, units: u})
			pl.clearedUnits += u
		}
	}
	for l, r := 0, len(pl.clear)-1; l < r; l, r = l+1, r-1 {
		pl.clear[l], pl.clear[r] = pl.clear[r], pl.clear[l]
	}
	return pl
}

// lastStepAndTurn is the index of h's last assistant message (-1 if none)
// and of its last real turn's start (0 if none), read from the end: in a
// long history both are near it.
func lastStepAndTurn(h []corpus.Message) (lastAsst, turnStart int) {
	lastAsst, turnFound := -1, false
	for i := len(h) - 1; i >= 0 && (lastAsst < 0 || !turnFound); i-- {
		switch m := &h[i]; {
		case m.Role == corpus.RoleAssistant:
			if lastAsst < 0 {
				lastAsst = i
			}
		case !turnFound && m.RealTurn():
			turnStart, turnFound = i, true
		}
	}
	return lastAsst, turnStart
}

// planUnits reports whether plan measures the results it walks. Only
// keep=tokens decides by their units; otherwise they feed min_reclaim and
// the outcome's figures, which the clear stage does not read (staged):
// without them a stage past its trigger measured every result since its
// newest stub at each request, the kept ones again each time.
func (p *ClearToolResults) planUnits() bool {
	return !p.staged || p.keep == KeepTokens || p.minReclaim > 0
}

// callNames maps every tool call id of h's assistant messages to its
// tool name, the last call with an id naming it.
func callNames(h []corpus.Message) map[string]string {
	names := map[string]string{}
	for i := range h {
		if h[i].Role != corpus.RoleAssistant {
			continue
		}
		for j := range h[i].Blocks {
			if b := &h[i].Blocks[j]; b.Kind == corpus.KindToolUse {
				names[b.ToolCallID] = b.ToolName
			}
		}
	}
	return names
}

// nthLast is the index of the n-th last message matching is, 0 when there
// are fewer, len(h) when n is 0.
func nthLast(h []corpus.Message, n int, is func(*corpus.Message) bool) int {
	if n <= 0 {
		return len(h)
	}
	for i := len(h) - 1; i >= 0; i-- {
		if is(&h[i]) {
			if n--; n == 0 {
				return i
			}
		}
	}
	return 0
}

// apply builds the compacted history: a copy of h that shares every
// message it does not touch, and new block slices for those it does. It
// returns the history's running total, adjusted block by block (every
// meter is a sum over blocks, so each block's delta is exact and no
// message is measured twice), and fills in the stage's blocks and bytes.
func (p *ClearToolResults) apply(h []corpus.Message, pl clearPlan, at Checkpoint, st *StageReport) ([]corpus.Message, int64, int64) {
	out := make([]corpus.Message, len(h))
	copy(out, h)
	ctx, trig := at.Units, at.Count
	own := func(i int) *corpus.Message {
		m := &out[i]
		if len(m.Blocks) > 0 && len(h[i].Blocks) > 0 && &m.Blocks[0] == &h[i].Blocks[0] {
			m.Blocks = append([]corpus.Block(nil), m.Blocks...)
		}
		return m
	}
	var inputs map[string]bool
	if p.clearInput {
		inputs = map[string]bool{}
	}
	for _, r := range pl.clear {
		b := &own(r.msg).Blocks[r.block]
		text := p.stub.render(b.ToolCallID, at.Session)
		stub := p.meter.Block(&corpus.Block{Kind: corpus.KindToolResult, Text: text})
		st.BlocksTouched++
		st.BytesRemoved += int64(len(b.Text) - len(text) + len(b.Payload))
		ctx += stub - r.units
		switch p.trigger {
		case TriggerResultTokens:
			trig -= r.units
		case TriggerResultCount:
			trig--
		}
		b.Text, b.Payload = text, nil
		if inputs != nil {
			inputs[b.ToolCallID] = true
		}
	}
	for i := 0; i < pl.turnStart && len(inputs) > 0; i++ {
		for j := range h[i].Blocks {
			b := &h[i].Blocks[j]
			if b.Kind != corpus.KindToolUse || !inputs[b.ToolCallID] || string(b.Args) == emptyArgs {
				continue
			}
			nb := &own(i).Blocks[j]
			st.BlocksTouched++
			st.BytesRemoved += int64(len(nb.Args) - len(emptyArgs))
			ctx -= p.meter.Block(nb)
			nb.Args = []byte(emptyArgs)
			ctx += p.meter.Block(nb)
		}
	}
	return out, ctx, trig
}

// emptyArgs replaces a cleared tool input: still valid JSON, as providers
// require an object.
const emptyArgs = "{}"
