package replay

import (
	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/cache"
)

// promptModel is the session's prompt model for a policy whose triggers
// read the provider's count (policy.PromptCalibrated), nil for any other
// or a session without recorded usage. It is fitted as the cost model
// calibrates (cache.CalibrateRecording): on the requests of the recording
// before the agent's first compaction, each history metered by the
// policy's meter, found by the walker's own skips and checkpoints. That
// costs one Measure per message, only for such a policy on such a session.
func promptModel(w *walker) *policy.PromptModel {
	s, p := w.s, w.p
	pc, ok := p.(policy.PromptCalibrated)
	if !ok || !pc.CalibratedPrompt() || len(s.Recorded.Usage) == 0 {
		return nil
	}
	mt, ok := p.(policy.Metered)
	if !ok {
		return nil
	}
	meter, _ := mt.Metering()
	reqs := make([]cache.Sent, 0, w.requests(s.Messages))
	var units int64
	raw := 0
	var prev *corpus.Message
	for i := range s.Messages {
		m := &s.Messages[i]
		if w.skipsAfter(m, raw) {
			continue
		}
		if p.Checkpoint(s.Format, prev, m) {
			reqs = append(reqs, cache.Sent{Next: i, Tokens: meter.Tokens(units)})
		}
		u, _, _ := p.Measure(m)
		units += u
		prev, raw = m, raw+1
	}
	cal := cache.CalibrateRecording(s, reqs)
	if !cal.Recorded {
		return nil
	}
	return &policy.PromptModel{Overhead: cal.Overhead, Scale: cal.Scale}
}
