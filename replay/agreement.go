package replay

import (
	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// Agreement compares a policy's decisions with the tool-result clearing a
// recording agent performed (Claude Code microcompact_boundary lines, which
// name the exact tool ids cleared). It is the ground truth that lets a
// sweep find the rule an agent follows from its logs alone.
//
// Each recorded event is judged on its own: the working history is the one
// the agent had just before the boundary (the main thread's raw messages,
// restarted at each recorded full compaction, with the clears the agent
// recorded at earlier boundaries applied as stubs), never the history the
// policy itself would have produced. At that point the policy is asked
// twice:
//   - on its own trigger (Fired): would it have acted here at all;
//   - forced (policy.Checkpoint.Force): which results would it clear if it
//     acted here. The force bypasses the trigger only; a policy's own
//     conditions on the clearing (keep rule, exemptions, min_reclaim) still
//     apply, so a forced policy may clear nothing.
//
// The trigger is also judged at every checkpoint of the policy between the
// events (Checkpoints, AgentActed, PolicyActed, BothActed), on the agent's
// history: a policy that would have fired earlier than the agent did is
// told apart from one that fires only where it did.
type Agreement struct {
	Session string
	Policy  string
	Params  policy.Params
	Events  []EventAgreement
	// Checkpoints is how many points the policy checks at; AgentActed how
	// many recorded clearing events there are; PolicyActed at how many
	// checkpoints the policy would act on its own trigger; BothActed at
	// how many of those the agent acted too.
	Checkpoints int
	AgentActed  int
	PolicyActed int
	BothActed   int
}

// EventAgreement is one recorded clearing event against the policy.
type EventAgreement struct {
	Event     int // index in Session.Recorded.Compactions
	Line      int // line of the boundary record
	AtMessage int
	// Checkpoint says whether the policy checks at this point at all;
	// Fired whether, left to its own trigger, it would have acted.
	Checkpoint bool
	Fired      bool
	// Recorded are the ids the agent cleared, Predicted those the forced
	// policy clears, both in history order. Missing and Extra compare the
	// two; Unknown are recorded ids with no tool result in the history
	// before the boundary: they are reported and left out of the
	// comparison (no policy could clear them).
	Recorded  []string
	Predicted []string
	Missing   []string
	Extra     []string
	Unknown   []string
	Exact     bool
	Jaccard   float64
	// Token figures: the agent's preTokens and tokensSaved, and the
	// policy's own (its "clear" stage's tokens of uncleared results before,
	// and what it reclaims, in its meter's units; a policy without such a
	// stage reports its context before and its reduction).
	RecordedBefore  int
	PredictedBefore int
	RecordedSaved   int
	PredictedSaved  int
}

// Agree judges a policy against every recorded clearing event of a
// session. The scan is linear in the session plus the work of the policy's
// own decisions (O(1) at a checkpoint where it does not trigger): an
// event's ids are looked up and stubbed through the walker's index of held
// results. The forced decision at each event is the policy's whole
// compaction, which for most policies reads the history, so a log with
// thousands of clears stays quadratic in that; real logs hold a few.
func Agree(s *corpus.Session, p policy.Policy) Agreement {
	a := Agreement{Session: s.ID, Policy: p.Name(), Params: p.Params()}
	stub := policy.ClaudeCodeStub
	if c, ok := p.(policy.Clearer); ok {
		stub = c.Stub()
	}
	clearing := map[int][]int{} // AtMessage -> recorded clearing events
	resets := map[int]bool{}    // AtMessage of recorded full compactions
	for i := range s.Recorded.Compactions {
		c := &s.Recorded.Compactions[i]
		switch {
		case c.Clearing():
			clearing[c.AtMessage] = append(clearing[c.AtMessage], i)
		case c.AtMessage >= 0:
			resets[c.AtMessage] = true
		}
	}

	w := newWalker(s, p, followRecording)
	for i := 0; i <= len(s.Messages); i++ {
		if resets[i] {
			w.reset()
		}
		var m *corpus.Message
		if i < len(s.Messages) {
			if m = &s.Messages[i]; w.skips(m) {
				continue
			}
		}
		isCP := m != nil && w.checks(m)
		events := clearing[i]
		if isCP || len(events) > 0 {
			at := w.at(i)
			acted := p.Compact(w.h, at).Strategy != policy.None
			if isCP {
				w.request()
				a.Checkpoints++
				if acted {
					a.PolicyActed++
					if len(events) > 0 {
						a.BothActed++
					}
				}
			}
			for _, e := range events {
				c := &s.Recorded.Compactions[e]
				a.AgentActed++
				at.Force = true
				ev := judge(c, e, w.h, w.held, p.Compact(w.h, at))
				ev.Checkpoint, ev.Fired = isCP, acted
				a.Events = append(a.Events, ev)
				w.clear(c.ClearedIDs, stub)
				at.Units, at.Count, at.Thinking, at.Results = w.sum.units, w.sum.count, w.sum.thinking, w.results
				at.Force = false
				acted = p.Compact(w.h, at).Strategy != policy.None
			}
		}
		if m == nil {
			break
		}
		w.add(m)
	}
	return a
}

// judge compares one recorded event with the forced outcome.
func judge(c *corpus.Compaction, e int, h []corpus.Message, held *heldResults, o policy.Outcome) EventAgreement {
	ev := EventAgreement{Event: e, Line: c.Line, AtMessage: c.AtMessage,
		RecordedBefore: c.TokensBefore, RecordedSaved: c.TokensSaved}
	rec := map[string]bool{}
	for _, id := range c.ClearedIDs {
		if !held.has(id) {
			ev.Unknown = append(ev.Unknown, id)
			continue
		}
		if !rec[id] {
			rec[id] = true
			ev.Recorded = append(ev.Recorded, id)
		}
	}
	if o.Strategy != policy.None {
		ev.Predicted = policy.Cleared(h, o.History)
	}
	pred := map[string]bool{}
	for _, id := range ev.Predicted {
		pred[id] = true
		if !rec[id] {
			ev.Extra = append(ev.Extra, id)
		}
	}
	both := 0
	for _, id := range ev.Recorded {
		if pred[id] {
			both++
		} else {
			ev.Missing = append(ev.Missing, id)
		}
	}
	ev.Exact = len(ev.Missing) == 0 && len(ev.Extra) == 0
	ev.Jaccard = 1
	if union := len(ev.Recorded) + len(ev.Extra); union > 0 {
		ev.Jaccard = float64(both) / float64(union)
	}
	ev.PredictedBefore, ev.PredictedSaved = o.BeforeTokens, o.BeforeTokens-o.AfterTokens
	for _, st := range o.Stages {
		if st.Agent != nil {
			ev.PredictedBefore, ev.PredictedSaved = st.Agent.Before, st.Agent.Saved
		}
	}
	if o.Strategy == policy.None {
		ev.PredictedSaved = 0
	}
	return ev
}
