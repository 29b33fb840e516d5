package replay

import (
	"testing"

	"github.com/calib-dev/calib/policy"
)

// TestPromptModelIsTheCostCalibration: the prompt model a calibrated
// preset's triggers read is the calibration the cost model prices the
// same session with, when the preset compacts nothing (both then fit on
// the requests before the agent's first compaction): one rule, one fit.
// A session without recorded usage before that compaction gets no model,
// and the cost model keeps the policy's own figures there too.
func TestPromptModelIsTheCostCalibration(t *testing.T) {
	// goose with a window no session reaches: no compaction.
	p := mustPolicy(t, "goose", map[string]string{"window_tokens": "1000000000"})
	fitted := 0
	for _, s := range realClaudeCodeSessions(t) {
		m := newWalker(s, p, followPolicy).prompt
		sc, tr := costAndTrace(t, s, p)
		if len(tr.Events) != 0 {
			t.Fatalf("%s: %d compactions; the comparison needs none", s.ID, len(tr.Events))
		}
		cal := sc.Calibration
		switch {
		case !cal.Recorded && m != nil:
			t.Errorf("%s: a prompt model %+v where the cost model found no usage", s.ID, *m)
		case cal.Recorded && (m == nil || m.Overhead != cal.Overhead || m.Scale != cal.Scale):
			t.Errorf("%s: prompt model %+v, cost calibration overhead %d scale %v", s.ID, m, cal.Overhead, cal.Scale)
		case m != nil:
			fitted++
		}
	}
	// Every real session records usage from its first request.
	if fitted != 33 {
		t.Errorf("%d sessions with a prompt model, want 33", fitted)
	}
	// A policy that reads its own estimate gets none.
	est := mustPolicy(t, "goose", map[string]string{"context_source": policy.SourceEstimate})
	for _, s := range realClaudeCodeSessions(t)[:1] {
		if m := newWalker(s, est, followPolicy).prompt; m != nil {
			t.Errorf("%s: context_source=estimate got a prompt model %+v", s.ID, *m)
		}
	}
}
