package replay

import (
	"unsafe"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/cache"
)

// promptModel is the session's prompt model for a policy whose triggers
// read the provider's count (policy.PromptCalibrated), nil for any other
// or a session without recorded usage. It is fitted as the cost model
// calibrates (cache.CalibrateRecording): on the requests of the recording
// before the agent's first compaction, each history metered by the
// policy's meter, found by the walker's own skips and checkpoints. It
// measures every message of the thread once, and keeps the measures in
// w.pre for the walk to read instead of measuring them again (measuring
// twice made such a replay 1.6 times as long; BenchmarkPromptModel).
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
	pre := make([]measure, len(s.Messages))
	var units int64
	raw := 0
	var prev *corpus.Message
	for i := range s.Messages {
		m := &s.Messages[i]
		if w.skipsAfter(m, raw) {
			pre[i].units = -1 // not measured: the walk skips it too
			continue
		}
		if p.Checkpoint(s.Format, prev, m) {
			reqs = append(reqs, cache.Sent{Next: i, Tokens: meter.Tokens(units)})
		}
		pre[i] = measureOf(p, m)
		units += pre[i].units
		prev, raw = m, raw+1
	}
	w.pre = pre
	cal := cache.CalibrateRecording(s, reqs)
	if !cal.Recorded {
		return nil
	}
	return &policy.PromptModel{Overhead: cal.Overhead, Scale: cal.Scale}
}

// measured is m's measure: the fit's (w.pre) when m is one of the
// session's messages that the fit measured, else measured now (a message
// a chain appends, a copy a recorded clear made).
func (w *walker) measured(m *corpus.Message) measure {
	if w.pre != nil {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(w.s.Messages)))
		if off := uintptr(unsafe.Pointer(m)) - base; off < uintptr(len(w.pre))*unsafe.Sizeof(*m) && off%unsafe.Sizeof(*m) == 0 {
			if pm := w.pre[off/unsafe.Sizeof(*m)]; pm.units >= 0 {
				return pm
			}
		}
	}
	return measureOf(w.p, m)
}
