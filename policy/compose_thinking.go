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
	if !anyDroppableThinking(st.h[:from]) {
		return nil // the common case: skip measuring the history
	}
	w := newWorking(st.h, st.g.meter)
	touched, bytes := w.dropStaleThinking(from, -1) // no target: every stale block goes
	return fromWorking(st, w, touched, bytes)
}

// anyDroppableThinking reports whether some message holds thinking beside
// other content (what dropStaleThinking removes).
func anyDroppableThinking(h []corpus.Message) bool {
	for i := range h {
		bs := h[i].Blocks
		think := 0
		for k := range bs {
			if bs[k].Kind == corpus.KindThinking || bs[k].Kind == corpus.KindRedactedThinking {
				think++
			}
		}
		if think > 0 && think < len(bs) {
			return true
		}
	}
	return false
}
