package replay

import (
	"context"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// Options controls one replay.
type Options struct {
	// KeepFinal keeps the final working history in Trace.Final (for
	// comparisons with what the agent recorded).
	KeepFinal bool
}

// Run replays one session through one policy. For each raw message of the
// main thread, in order, it asks the policy whether the agent checks here;
// if so the policy decides on the working history before the message is
// appended. The running measure of the working history is kept by deltas,
// so a checkpoint that does not trigger costs O(1) and the whole replay is
// linear in the session (plus the work of the compactions themselves).
//
// Run returns an error only when ctx is cancelled; broken invariants are
// recorded in Trace.Violations.
func Run(ctx context.Context, s *corpus.Session, p policy.Policy, opts Options) (*Trace, error) {
	t := &Trace{Session: s, Policy: p.Name(), Params: p.Params()}
	working := make([]corpus.Message, 0, min(len(s.Messages), 1024))
	var units int64
	var counted int
	var prev *corpus.Message
	turn := 0
	chk := newChecker()
	skipSide := hasMainThread(s)
	for i := range s.Messages {
		m := &s.Messages[i]
		if (m.Sidechain && skipSide) || (m.Summary && t.Messages > 0) {
			// Sidechains inline in a main thread are not part of it (a
			// subagent's own session is all sidechain and is replayed).
			// A recorded summary is a product of the agent's own
			// compaction, which the policy replaces with its own; only a
			// summary that starts the log (a smith log seeded from a
			// compacted session) is history.
			continue
		}
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return t, err
			}
		}
		if p.Checkpoint(prev, m) {
			at := policy.Checkpoint{Request: len(t.Requests), Raw: t.Messages, Turn: turn,
				Units: units, Counted: counted, Session: s}
			out := p.Compact(working, at)
			req := Request{Index: at.Request, Raw: at.Raw, Turn: turn,
				Tokens: out.BeforeTokens, Sent: out.AfterTokens, Event: -1}
			if out.Strategy != policy.None {
				ev := Event{Index: len(t.Events), Request: at.Request, Raw: at.Raw, Turn: turn,
					HistoryBefore: len(working), HistoryAfter: len(out.History)}
				t.Violations = append(t.Violations, chk.check(p, working, out, at.Request, &ev)...)
				ev.Outcome = out
				ev.Outcome.History = nil
				req.Event = ev.Index
				t.Events = append(t.Events, ev)
				working = out.History
				units, counted = out.Units, out.Counted
			} else if v := checkUnchanged(working, out, at.Request); v != nil {
				t.Violations = append(t.Violations, *v)
			}
			t.Requests = append(t.Requests, req)
		}
		if m.Role == corpus.RoleUser && !m.Synthetic {
			turn++
		}
		working = append(working, *m)
		u, c := p.Measure(m)
		units += u
		if c {
			counted++
		}
		prev = m
		t.Messages++
	}
	if opts.KeepFinal {
		t.Final = working
	}
	return t, nil
}

// hasMainThread reports whether any message of s is on the main thread.
func hasMainThread(s *corpus.Session) bool {
	for i := range s.Messages {
		if !s.Messages[i].Sidechain {
			return true
		}
	}
	return false
}
