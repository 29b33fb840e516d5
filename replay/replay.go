package replay

import (
	"context"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/loss"
)

// Options controls one replay.
type Options struct {
	// KeepFinal keeps the final working history in Trace.Final (for
	// comparisons with what the agent recorded).
	KeepFinal bool
	// Observe, when set, sees every request as it is recorded, with its
	// compaction (nil when the policy did not compact): the hook for
	// progress and for per-request models (the cost layer's prompt cache
	// reads Request.Rewrote). It runs on the replaying goroutine.
	Observe func(r Request, e *Event)
	// Loss, when set, is the session's loss index (loss.Build; read only,
	// so one index serves every replay of the session): the replay notes
	// which stage first hid which tool result at which request and puts
	// the signals in Trace.Loss.
	Loss *loss.Index
}

// Run replays one session through one policy. For each raw message of the
// thread, in order, it asks the policy whether the agent checks here; if so
// the policy decides on the working history before the message is
// appended. The walk is linear in the session plus the work of the
// compactions themselves (see walker).
//
// Run returns an error only when ctx is cancelled; broken invariants are
// recorded in Trace.Violations.
func Run(ctx context.Context, s *corpus.Session, p policy.Policy, opts Options) (*Trace, error) {
	r := newRun(s, p, opts)
	// The requests are counted first, so that their list is allocated
	// once: grown by appending it cost twice its size again (a sixteenth
	// of what a smith-staged sweep's jobs allocated).
	r.t.Requests = make([]Request, 0, r.w.requests(s.Messages))
	if err := r.feed(ctx, s.Messages, 0); err != nil {
		return r.t, err
	}
	if opts.KeepFinal {
		r.t.Final = r.w.h
	}
	if r.loss != nil {
		rep := r.loss.Report()
		r.t.Loss = &rep
	}
	return r.t, nil
}

// run is one replay in progress: the walker, the trace it writes and the
// invariant checker. Chain feeds it more messages as it extends a session.
type run struct {
	w   *walker
	t   *Trace
	chk *checker
	// fed is how many messages of the session (skipped ones included)
	// have been fed.
	fed       int
	rotations int
	observe   func(Request, *Event)
	loss      *loss.Tracker
	// readAll makes the loss tracker read the whole history after every
	// compaction: the reference its suffix reads are tested against.
	readAll bool
}

func newRun(s *corpus.Session, p policy.Policy, opts Options) *run {
	r := &run{w: newWalker(s, p, followPolicy), chk: newChecker(), observe: opts.Observe,
		t: &Trace{Session: s, Policy: p.Name(), Params: p.Params()}}
	r.t.Fit = r.w.fit
	if w, ok := p.(policy.Windowed); ok {
		r.t.Window = w.Window(s)
	}
	if opts.Loss != nil {
		r.loss = opts.Loss.NewTracker()
	}
	return r
}

// feed walks msgs. With stopAt > 0 it stops right after the request of
// the stopAt-th rotation (what Chain cuts at) and reports it in r.rotations.
func (r *run) feed(ctx context.Context, msgs []corpus.Message, stopAt int) error {
	w, t, p := r.w, r.t, r.w.p
	// A policy that tells its meter and overhead apart (policy.Metered)
	// is priced from them, whatever its trigger reads.
	var meter *policy.Meter
	overhead := 0
	if m, ok := p.(policy.Metered); ok {
		meter, overhead = m.Metering()
	}
	for i := range msgs {
		m := &msgs[i]
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r.fed++
		if w.skips(m) {
			continue
		}
		if w.checks(m) {
			at := w.at(r.fed - 1)
			out := p.Compact(w.h, at)
			req := Request{Index: at.Request, Raw: at.Raw, Turn: at.Turn,
				Tokens: out.BeforeTokens, Sent: out.AfterTokens, Event: -1, Next: at.Next,
				Response: m.Bytes(), Thinking: m.HasThinking(), Context: out.AfterTokens, ContextBefore: out.BeforeTokens}
			if meter != nil {
				req.Sent, req.Tokens = meter.Tokens(out.Units)+overhead, meter.Tokens(at.Units)+overhead
				req.Overhead = overhead
			}
			if out.Strategy != policy.None {
				ev := Event{Index: len(t.Events), Request: at.Request, Raw: at.Raw, Turn: at.Turn,
					HistoryBefore: len(w.h), HistoryAfter: len(out.History)}
				in, fc := handedTo(w.h, out), policy.ChangedFrom(w.h, out)
				t.Violations = append(t.Violations, r.chk.check(p, in, out, fc, at.Request, &ev)...)
				ev.Outcome = out
				// The trace keeps what the compaction did, not how the
				// history came back (in place or copied).
				ev.Outcome.History, ev.Outcome.Overwrote, ev.Outcome.OverwroteAt, ev.Outcome.Owned = nil, nil, 0, false
				if d := out.Digest; d != nil {
					// The trace keeps each digest's size and hash, not its
					// text: a legacy chain's digests grow by tens of KB per
					// rotation, and keeping them all is quadratic in the
					// chain (the working history holds the current one).
					dd := *d
					dd.Text = ""
					ev.Outcome.Digest = &dd
					r.rotations++
				}
				req.Event = ev.Index
				t.Events = append(t.Events, ev)
				if r.loss != nil {
					// The message about to be appended is the response to
					// this request: index r.fed-1 of what was fed.
					same := 0
					if !r.readAll && (out.Overwrote != nil || keepsEveryResult(in, out.History, fc)) {
						same = fc
					}
					r.loss.Changed(at.Request, r.fed-1, ev.Index, out.History, same, out.Stages, out.Strategy)
				}
				w.adopt(out, fc)
			} else if v := checkUnchanged(w.h, out, at.Request); v != nil {
				t.Violations = append(t.Violations, *v)
			}
			req.FirstChanged, req.Rewrote = w.request()
			t.Requests = append(t.Requests, req)
			if r.loss != nil {
				r.loss.Sent(req.Index, r.fed-1)
			}
			if r.observe != nil {
				var e *Event
				if req.Event >= 0 {
					e = &t.Events[req.Event]
				}
				r.observe(req, e)
			}
			if stopAt > 0 && r.rotations >= stopAt {
				return nil
			}
		}
		w.add(m)
		t.Messages++
	}
	return nil
}

// keepsEveryResult reports whether out, a copied outcome, has the history
// as handed's length and, from fc (the first message it changed) on, as
// many tool results: no message moved or left and no result was dropped,
// so the loss tracker need only read from fc, as after an in-place
// outcome, why: a policy that clears at nearly every request (swe-agent,
// a clear stage past its trigger) made the tracker read the whole history
// at each, quadratic in the session.
func keepsEveryResult(in handed, out []corpus.Message, fc int) bool {
	if in.len() != len(out) {
		return false
	}
	n := 0
	for i := fc; i < len(out); i++ {
		n += results(in.msg(i)) - results(&out[i])
	}
	return n == 0
}

// results counts a message's tool result blocks.
func results(m *corpus.Message) int {
	n := 0
	for j := range m.Blocks {
		if m.Blocks[j].Kind == corpus.KindToolResult {
			n++
		}
	}
	return n
}
