package policy

import (
	"math"

	"github.com/calib-dev/calib/corpus"
)

// thinkingStageKind drops old thinking (the Anthropic API's
// clear_thinking_20251015, keep {type: thinking_turns, value: N}). It is
// smith's stale-thinking stage: thinking and redacted thinking before the
// last keep_turns real user turns go, except where they are all a message
// holds (an assistant message with no content is rejected by providers).
func thinkingStageKind() stageKind {
	return stageKind{kind: "thinking", help: "clear old thinking",
		specs: func() []ParamSpec {
			return []ParamSpec{{Name: "keep_turns", Kind: Int, Default: "1", Min: 1, Max: math.Inf(1),
				Help: "real user turns whose thinking stays (the API's thinking_turns; 1 is its default)"}}
		},
		build: func(v stageValues, g globals) (stageRunner, error) {
			return &thinkingStage{keep: v.Int("keep_turns")}, nil
		}}
}

type thinkingStage struct{ keep int }

// run drops the thinking of every droppable message before the window (the
// last keep_turns real user turns). The history's thinking sum (Measure's
// third, kept by the replay and by every stage's rewrite) counts the
// droppable messages of the whole history, and the replay's turn starts
// (Checkpoint.Turns) give the window's start and the sum before it, so the
// stage reads only, when the sums say some lie before the window, back
// from the window to the oldest of them: a checkpoint costs what it drops,
// not the session nor the turn in progress. In a history the caller lends
// (Checkpoint.Owned) it replaces the dropped messages in place and hands
// back what was there (Outcome.Overwrote) instead of copying the history,
// which a session that drops at every real turn would otherwise pay at
// each. Without the sums a pure stage
// could not skip those reads and stay exact: Units and Count do not change
// when a message before the window gains droppable thinking, and under
// --compare-recorded the stage is handed the recorded history, not its own
// earlier output.
func (t *thinkingStage) run(st *compState, _ Checkpoint) *StageReport {
	if st.thinking == 0 {
		return nil // the common case: nothing droppable anywhere
	}
	from, inWindow := t.window(st)
	lo := from
	for need := st.thinking - inWindow; need > 0 && lo > 0; {
		lo--
		if droppableThinking(&st.h[lo]) {
			need--
		}
	}
	if lo == from {
		return nil // all of it is in the window
	}
	// Only [lo, from) can change: smith's stage runs on that part, so a
	// checkpoint measures the thinking since the last one, not the session.
	w := newWorking(st.h[lo:from], st.g.meter)
	// [lo, from) as handed, measured once: w's total before the drop.
	before := w.total
	touched, bytes := w.dropStaleThinking(from-lo, -1) // no target: every stale block goes
	if touched == 0 {
		return nil
	}
	r := &StageReport{BeforeTokens: st.tokens(), BlocksTouched: touched, BytesRemoved: bytes}
	out := st.h
	if st.writable(lo, from) {
		// The caller's own history, or an array this compaction made:
		// replace [lo, from) in place, so the checkpoint costs what it
		// drops.
		copy(out[lo:], w.msgs)
	} else {
		// Room to grow: the replay appends the next messages to what this
		// returns, which would otherwise copy the history a second time.
		out = make([]corpus.Message, 0, len(st.h)+len(st.h)/4+16)
		out = append(append(append(out, st.h[:lo]...), w.msgs...), st.h[from:]...)
		st.owned = true
	}
	// Every droppable message before the window lost its thinking: what
	// stays droppable is the window's.
	// The drop takes thinking blocks out and leaves every other block as
	// it was, so the count (the clear stage's weight of the tool results)
	// does not move: weighing [lo, from) before and after measured every
	// result there twice to find no difference.
	st.setCounted(out, st.units-before+w.total, st.count, inWindow)
	st.turns = nil // their thinking sums were the history's before the drop
	r.AfterTokens = st.tokens()
	return r
}

// window is the start of the stage's window (windowStart) and the
// thinking sum inside it: from the turn starts when the replay keeps them,
// in O(1); otherwise read back from the end of the history, which costs
// the window and the turn before it.
func (t *thinkingStage) window(st *compState) (from int, inWindow int64) {
	ts := st.turns
	switch {
	case ts == nil:
		from = windowStart(st.h, t.keep)
		return from, thinkingAll(true, st.h[from:])
	case t.keep <= 0:
		return len(st.h), 0
	case len(ts) <= t.keep:
		return 0, st.thinking
	}
	s := ts[len(ts)-t.keep]
	return s.At, st.thinking - s.Thinking
}

// droppableThinking reports whether m holds thinking beside other content
// (what dropStaleThinking removes: thinking that is all a message holds
// stays, since providers reject an assistant message with no content).
func droppableThinking(m *corpus.Message) bool {
	think := 0
	for k := range m.Blocks {
		if kind := m.Blocks[k].Kind; kind == corpus.KindThinking || kind == corpus.KindRedactedThinking {
			think++
		}
	}
	return think > 0 && think < len(m.Blocks)
}

// thinkingAll is the thinking sum Composed.Measure gives msgs: the number
// of droppable messages when the preset has a thinking stage (thinks), 0
// otherwise.
func thinkingAll(thinks bool, msgs []corpus.Message) int64 {
	if !thinks {
		return 0
	}
	var n int64
	for i := range msgs {
		if droppableThinking(&msgs[i]) {
			n++
		}
	}
	return n
}
