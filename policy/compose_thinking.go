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
			return []ParamSpec{{Name: "keep_turns", Kind: Int, Default: "1", Min: 0, Max: math.Inf(1),
				Help: "real user turns whose thinking stays (the API's thinking_turns; 1 is its default)"}}
		},
		build: func(v stageValues, g globals) (stageRunner, error) {
			return &thinkingStage{keep: v.Int("keep_turns")}, nil
		}}
}

type thinkingStage struct{ keep int }

func (t *thinkingStage) run(st *compState, _ Checkpoint) *StageReport {
	from := windowStart(st.h, t.keep)
	lo := firstDroppableThinking(st.h[:from])
	if lo < 0 {
		return nil // the common case: nothing to measure
	}
	// Only [lo, from) can change: smith's stage runs on that part, so a
	// checkpoint measures the thinking since the last one, not the session.
	w := newWorking(st.h[lo:from], st.g.meter)
	touched, bytes := w.dropStaleThinking(from-lo, -1) // no target: every stale block goes
	if touched == 0 {
		return nil
	}
	r := &StageReport{BeforeTokens: st.tokens(), BlocksTouched: touched, BytesRemoved: bytes}
	var before int64
	for i := lo; i < from; i++ {
		before += st.g.meter.Message(&st.h[i])
	}
	out := make([]corpus.Message, 0, len(st.h))
	out = append(append(append(out, st.h[:lo]...), w.msgs...), st.h[from:]...)
	count := st.count - weighAll(st.weigh, st.g.meter, st.h[lo:from]) + weighAll(st.weigh, st.g.meter, w.msgs)
	st.setCounted(out, st.units-before+w.total, count)
	r.AfterTokens = st.tokens()
	return r
}

// firstDroppableThinking is the index of the first message holding
// thinking beside other content (what dropStaleThinking removes), -1 when
// none does.
func firstDroppableThinking(h []corpus.Message) int {
	for i := range h {
		bs := h[i].Blocks
		think := 0
		for k := range bs {
			if bs[k].Kind == corpus.KindThinking || bs[k].Kind == corpus.KindRedactedThinking {
				think++
			}
		}
		if think > 0 && think < len(bs) {
			return i
		}
	}
	return -1
}
