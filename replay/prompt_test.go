package replay

import (
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// TestPromptModelIsTheCostCalibration: the prompt model a calibrated
// preset's triggers read is the calibration the cost model prices the
// same replay with (Trace.Fit, re-anchored at the replay's own anchor),
// for every calibrated preset at its defaults on every real session,
// however early it compacts, and agreement's walk (which keeps the agent's
// summaries) gets the same: one fit per session and meter. A session
// without recorded usage gets no model, and the cost model keeps the
// policy's own figures there too.
func TestPromptModelIsTheCostCalibration(t *testing.T) {
	ss := realClaudeCodeSessions(t)
	for _, name := range []string{"anthropic-context-editing", "cline", "gemini-cli", "goose", "opencode"} {
		p := mustPolicy(t, name, nil)
		fitted := 0
		for _, s := range ss {
			m := newWalker(s, p, followPolicy).prompt
			if a := newWalker(s, p, followRecording).prompt; (a == nil) != (m == nil) || a != nil && *a != *m {
				t.Errorf("%s on %s: agreement's walk got prompt model %+v, the replay's %+v", name, s.ID, a, m)
			}
			sc, _ := costAndTrace(t, s, p)
			cal := sc.Calibration
			switch {
			case !cal.Recorded && m != nil:
				t.Errorf("%s on %s: a prompt model %+v where the cost model found no usage", name, s.ID, *m)
			case cal.Recorded && (m == nil || m.Overhead != cal.Overhead || m.Scale != cal.Scale):
				t.Errorf("%s on %s: prompt model %+v, cost calibration overhead %d scale %v", name, s.ID, m, cal.Overhead, cal.Scale)
			case m != nil:
				fitted++
			}
		}
		// Every real session records usage from its first request.
		if fitted != 33 {
			t.Errorf("%s: %d sessions with a prompt model, want 33", name, fitted)
		}
	}
	// A preset that reads its own estimate gets no model.
	est := mustPolicy(t, "goose", map[string]string{"context_source": policy.SourceEstimate})
	if m := newWalker(ss[0], est, followPolicy).prompt; m != nil {
		t.Errorf("%s: context_source=estimate got a prompt model %+v", ss[0].ID, *m)
	}
}

// pendingChecked checks, at every checkpoint, that the Pending the walker
// keeps is the units of the messages after the history's last response.
type pendingChecked struct {
	policy.Policy
	t             *testing.T
	known, unsure int
}

func (p *pendingChecked) Compact(h []corpus.Message, at policy.Checkpoint) policy.Outcome {
	if at.Pending < 0 {
		p.unsure++
	} else {
		var want int64
		for i := len(h) - 1; i >= 0 && h[i].Role != corpus.RoleAssistant; i-- {
			u, _, _ := p.Measure(&h[i])
			want += u
		}
		if at.Pending != want {
			p.t.Errorf("%s: request %d: Pending %d, want %d", at.Session.ID, at.Request, at.Pending, want)
		}
		p.known++
	}
	return p.Policy.Compact(h, at)
}

// TestWalkerKeepsPending: on the real logs, under opencode (whose cap
// rewrites the step being sent; wrapped, it offers no PromptCalibrated and
// reads its estimate: 8 events, caps included), Pending is
// exact at every one of the 957 requests: a compaction leaves it unknown
// only until the response that follows, and a preset's checkpoint always
// comes before one.
func TestWalkerKeepsPending(t *testing.T) {
	p := &pendingChecked{Policy: mustPolicy(t, "opencode", nil), t: t}
	events := 0
	for _, s := range realClaudeCodeSessions(t) {
		events += len(mustRun(t, s, p, Options{}).Events)
	}
	if p.known != 957 || p.unsure != 0 || events != 8 {
		t.Errorf("%d checkpoints with Pending, %d without, %d compactions; want 957, 0, 8", p.known, p.unsure, events)
	}
}
