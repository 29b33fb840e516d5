package policy

import "github.com/calib-dev/calib/corpus"

// compState is the history a checkpoint's stages pass along: the messages,
// their meter units, count and thinking (the running sums the replay
// keeps, as Composed.Measure defines them) and the reports.
type compState struct {
	h        []corpus.Message
	units    int64
	count    int64
	thinking int64
	// turns are h's real-turn starts (Checkpoint.Turns) while they hold:
	// set (a summary, a dropped middle, a smith rewrite) and the thinking
	// stage's drop make them nil; cow's rewrites keep them, since they
	// move no message and change no block's kind.
	turns  []TurnStart
	weigh  *clearStage // what count sums (Composed.weigh), nil: messages
	thinks bool        // whether thinking sums droppableThinking (Composed.thinks)
	g      globals
	in     []corpus.Message // the history Compact was handed
	// owned says that h's array may be written in place: it is in, which
	// the caller owns (Checkpoint.Owned), or one this compaction made.
	// over keeps in's messages that a stage replaced in place
	// (Outcome.Overwrote), while h is in.
	owned  bool
	over   overwrite
	stages []StageReport
	// strategy is set by a stage that summarizes or drops (Truncated
	// otherwise); removed and summ go to the outcome.
	strategy Strategy
	removed  int
	summ     string
	// prompt predicts the provider's count of the history
	// (context_source=calibrated on a session with recorded usage); nil:
	// the meter plus overhead_tokens.
	prompt *PromptModel
	// pending is the units of h's messages after its last assistant
	// message (Checkpoint.Pending), -1 until read back; only the cap stage
	// rewrites them, and it adjusts it.
	pending int64
	// first is the session's first request, which no response precedes:
	// an agent reading its last response's usage reads nothing there.
	first bool
}

// tokens is the context the request would send, as the triggers and
// reports read it: by the prompt model or the meter plus overhead_tokens.
func (st *compState) tokens() int { return st.tokensOf(st.units) }

// lastResponseTokens is the context of the history up to the last
// response, without the step the request is about to send: what a
// trigger with context_at=last_response reads; 0 at the session's first
// request, before any response (no usage to read yet).
func (st *compState) lastResponseTokens() int {
	if st.first {
		return 0
	}
	return st.tokensOf(st.units - st.pendingUnits())
}

// lastPromptTokens is the context of the history the last request sent:
// lastResponseTokens without the response itself (the assistant messages
// right before the step), what a trigger with context_at=last_prompt
// reads; 0 at the session's first request. The response is measured
// again at each request that asks, which is linear in the session: each
// response is read at the one request that follows it.
func (st *compState) lastPromptTokens() int {
	if st.first {
		return 0
	}
	response := int64(0)
	for i := stepStart(st.h) - 1; i >= 0 && st.h[i].Role == corpus.RoleAssistant; i-- {
		response += st.g.meter.Message(&st.h[i])
	}
	return st.tokensOf(st.units - st.pendingUnits() - response)
}

// triggerTokens is the context trigger t reads.
func (st *compState) triggerTokens(t stageTrigger) int {
	switch t.contextAt {
	case AtLastResponse:
		return st.lastResponseTokens()
	case AtLastPrompt:
		return st.lastPromptTokens()
	}
	return st.tokens()
}

func (st *compState) tokensOf(units int64) int {
	if st.prompt != nil {
		return st.prompt.Tokens(st.g.meter.Tokens(units))
	}
	return st.g.meter.Tokens(units) + st.g.overhead
}

// pendingUnits is st.pending, read back over the messages after the last
// assistant message when the caller did not keep it.
func (st *compState) pendingUnits() int64 {
	if st.pending < 0 {
		st.pending = 0
		for i := stepStart(st.h); i < len(st.h); i++ {
			st.pending += st.g.meter.Message(&st.h[i])
		}
	}
	return st.pending
}

// stepStart is where the step a request is about to send starts in h:
// right after its last assistant message (0 when it has none). The cap
// stage cuts only there, and a last_response trigger leaves it out.
func stepStart(h []corpus.Message) int {
	i := len(h)
	for i > 0 && h[i-1].Role != corpus.RoleAssistant {
		i--
	}
	return i
}

// set replaces the history by out, a new array, whose units are known;
// its count and thinking are recounted (a summary or a dropped middle,
// rare and already O(n)).
func (st *compState) set(out []corpus.Message, units int64) {
	st.turns = nil
	st.setCounted(out, units, weighAll(st.weigh, st.g.meter, out), thinkingAll(st.thinks, out))
	st.owned = false // its stage does not say whether it keeps the array
}

// setCounted replaces the history by out, whose units, count and thinking
// are known. When out is not the history as handed, messages a stage
// replaced there in place go back: out was built from them (a copy), and
// the caller reads the history it handed as it was.
func (st *compState) setCounted(out []corpus.Message, units, count, thinking int64) {
	if !sameSlice(out, st.in) {
		st.over.undo(st.in)
	}
	st.h, st.units, st.count, st.thinking = out, units, count, thinking
}

// asHanded reports whether h is still the history Compact was handed,
// unchanged: no stage copied it nor wrote in it in place.
func (st *compState) asHanded() bool { return st.over.msgs == nil && sameSlice(st.h, st.in) }

// writable reports whether a stage may replace messages of h[lo:hi] in
// place (h[i] = a new message): h is owned (st.owned). When h is the
// history the caller lent, those messages join what st.over keeps first
// (overwrite.keep). Otherwise the stage copies the history.
func (st *compState) writable(lo, hi int) bool {
	if !st.owned {
		return false
	}
	if sameSlice(st.h, st.in) { // else an array this compaction made
		st.over.keep(st.h, lo, hi)
	}
	return true
}

// sameSlice reports whether a and b are the same slice of one array.
func sameSlice(a, b []corpus.Message) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// weighAll is the count Composed.Measure gives msgs, for the clear stage
// c (nil: one per message) in the preset's meter m.
func weighAll(c *clearStage, m *Meter, msgs []corpus.Message) int64 {
	if c == nil {
		return int64(len(msgs))
	}
	var n int64
	for i := range msgs {
		for j := range msgs[i].Blocks {
			if b := &msgs[i].Blocks[j]; b.Kind == corpus.KindToolResult {
				n += c.weigh(b, m.Block(b))
			}
		}
	}
	return n
}

// cow is a copy-on-write rewrite of a few blocks of a history: the slice
// is copied on the first write, unless the stage may write it in place
// (compState.writable: a history the caller lends, or one this compaction
// made), a message's blocks on the first write to it, and the units
// follow block by block (every meter is a sum over blocks), so a stage
// that touches k blocks costs O(k) measures. Its callers rewrite a
// block's text or arguments, never its kind, so the thinking sum (which
// reads kinds alone) does not move.
type cow struct {
	st      *compState
	h       []corpus.Message
	owned   map[int]bool // the messages whose blocks it copied
	inPlace bool         // h is st.h, written in place
	units   int64
	count   int64
	weigh   *clearStage
	meter   *Meter
	touched int
	bytes   int64
}

func newCow(st *compState) *cow {
	return &cow{st: st, h: st.h, units: st.units, count: st.count, weigh: st.weigh, meter: st.g.meter}
}

func (c *cow) setBlock(i, j int, b corpus.Block) {
	c.setMeasured(i, j, b, c.meter.Block(&b), c.meter.Block(&c.h[i].Blocks[j]))
}

// setMeasured is setBlock for a caller that has measured b (nu units) and
// the block it replaces (ou) in the preset's meter: the clear stage
// measures both to decide whether its stub is shorter, and a result
// measured twice more here was a tenth of the meter's work on a session
// that clears at most requests.
func (c *cow) setMeasured(i, j int, b corpus.Block, nu, ou int64) {
	if c.owned == nil {
		c.owned = map[int]bool{}
		c.inPlace = c.st.writable(i, i+1)
		if !c.inPlace {
			c.h = append([]corpus.Message(nil), c.h...)
		}
	}
	if !c.owned[i] {
		if c.inPlace {
			c.st.writable(i, i+1)
		}
		c.h[i].Blocks = append([]corpus.Block(nil), c.h[i].Blocks...)
		c.owned[i] = true
	}
	old := &c.h[i].Blocks[j]
	c.units += nu - ou
	if c.weigh != nil {
		c.count += c.weigh.weigh(&b, nu) - c.weigh.weigh(old, ou)
	}
	c.bytes += smithBytes(old) - smithBytes(&b)
	c.touched++
	*old = b
}

// done hands the rewrite to st and returns its report, nil when nothing
// changed.
func (c *cow) done(st *compState) *StageReport {
	if c.touched == 0 {
		return nil
	}
	r := &StageReport{BeforeTokens: st.tokens(), BlocksTouched: c.touched, BytesRemoved: c.bytes}
	st.setCounted(c.h, c.units, c.count, st.thinking)
	st.owned = true // setBlock copied the history, or wrote one it may
	r.AfterTokens = st.tokens()
	return r
}

// fromWorking hands a smith working history to st.
func fromWorking(st *compState, w *working, touched int, bytes int64) *StageReport {
	if touched == 0 || !w.changed() {
		return nil
	}
	r := &StageReport{BeforeTokens: st.tokens(), BlocksTouched: touched, BytesRemoved: bytes}
	st.set(w.msgs, w.total)
	r.AfterTokens = st.tokens()
	return r
}

// safeCut reports whether the history can be cut right before i: no
// tool call before i has its result at or after i, as far as adjacent
// messages show (h[i] carries no result and h[i-1] no call).
func safeCut(h []corpus.Message, i int) bool {
	if i <= 0 || i >= len(h) {
		return true
	}
	return !hasKind(&h[i], corpus.KindToolResult) && !hasKind(&h[i-1], corpus.KindToolUse)
}

// onlyTurnInProgress reports whether the turn in progress starts the
// history, in O(1): a stage that only touches what precedes that turn (a
// summary, cline's dedupe and dropped range) then has nothing to do, and
// need not read the history to find out at every request of a long turn
// (one turn of 10,000 tool calls made that quadratic).
func (st *compState) onlyTurnInProgress() bool { return st.nthLastTurn(1) == 0 }

// nthLastTurn is nthLast(st.h, n, RealTurn): the start of the n-th last
// real turn, 0 when there are fewer, len(st.h) when n <= 0. It reads the
// turn starts while they hold, so a stage that looks for the turn in
// progress at every request does not read a long turn back each time.
func (st *compState) nthLastTurn(n int) int {
	ts := st.turns
	switch {
	case ts == nil:
		return nthLast(st.h, n, (*corpus.Message).RealTurn)
	case n <= 0:
		return len(st.h)
	case len(ts) < n:
		return 0
	}
	return ts[len(ts)-n].At
}

// currentTurnStart is the index of the last real user message, which a
// compaction keeps with everything after it (0 when there is none: the
// whole history is one turn).
func currentTurnStart(h []corpus.Message) int { return nthLast(h, 1, (*corpus.Message).RealTurn) }
