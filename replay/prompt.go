package replay

import (
	"unsafe"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/cache"
)

// fitPrompt fits the session's prompt calibration to its recorded usage
// for a policy that meters its history (policy.Metered), in the walk that
// follows the policy (which prices it) or for a policy whose triggers read
// it: nil otherwise, or for a session without recorded usage at its first
// requests. It is fitted as the cost model calibrates
// (cache.CalibrateRecording), on the recording itself: its requests
// before the agent's first compaction, each history metered by the
// policy's meter, found by the walker's own skips and checkpoints
// (walker.thread).
// The triggers of a policy that reads the provider's count
// (policy.PromptCalibrated) read it (walker.prompt), and the cost model
// prices the replay with it (Trace.Fit), so that one session has one
// calibration per meter whatever the policy does to its history. It
// measures every message of the thread once, and keeps the measures in
// w.pre for the walk to read instead of measuring them again (measuring
// twice made such a replay 1.6 times as long; BenchmarkPromptModel).
func fitPrompt(w *walker) *cache.Calibration {
	s, p := w.s, w.p
	mt, ok := p.(policy.Metered)
	pc, reads := p.(policy.PromptCalibrated)
	reads = reads && pc.CalibratedPrompt()
	if _, faithful := p.(policy.Recording); !ok || faithful || !reads && w.mode != followPolicy || len(s.Recorded.Usage) == 0 {
		return nil // the recorded policy calibrates on every request of its own (cache.Options.Faithful)
	}
	meter, _ := mt.Metering()
	// Sized first (requests counts this walk's, a bound for the fit's):
	// grown by appending, the list made a 16k-call fit a fifth slower.
	reqs := make([]cache.Sent, 0, w.requests(s.Messages))
	pre := make([]measure, len(s.Messages))
	for i := range pre {
		pre[i].units = -1 // not measured: the walk measures it if it takes it
	}
	var units int64
	// The recording's requests as a walk that follows the policy sees
	// them, whatever this walk follows (Agree keeps the agent's summaries):
	// one fit per session and meter.
	for i, asks := range w.thread(followPolicy, s.Messages) {
		if asks {
			reqs = append(reqs, cache.Sent{Next: i, Tokens: meter.Tokens(units)})
		}
		pre[i] = measureOf(p, &s.Messages[i])
		units += pre[i].units
	}
	w.pre = pre
	cal := cache.CalibrateRecording(s, reqs)
	if !cal.Recorded {
		return nil
	}
	return &cal
}

// promptModel is the prompt model a policy that reads the provider's count
// (policy.PromptCalibrated) gets from the fit, nil for any other.
func promptModel(p policy.Policy, fit *cache.Calibration) *policy.PromptModel {
	if pc, ok := p.(policy.PromptCalibrated); !ok || !pc.CalibratedPrompt() || fit == nil {
		return nil
	}
	return &policy.PromptModel{Overhead: fit.Overhead, Scale: fit.Scale}
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
