package replay

import (
	"context"
	"errors"
	"fmt"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// Extender returns a copy of a session with turns synthetic turns of the
// session's own profile appended (corpus/synth.Extend). It must be
// deterministic and prefix-stable: the same session and count give the
// same messages, and the messages for k turns are a prefix of those for
// more, so that a chain can go on walking where it stopped.
type Extender func(s *corpus.Session, turns int) *corpus.Session

// maxExtraTurns bounds how far a chain is extended without a single
// rotation before giving up (a policy that never triggers on the session
// would otherwise extend forever), and maxTurnsPerRotation how many
// synthetic turns a chain may add per rotation asked for beyond that: clai
// rotates every 20–40 turns at its defaults, and the extension is held in
// memory while the chain walks it.
const (
	maxExtraTurns       = 20_000
	maxTurnsPerRotation = 60
)

// MaxRotations bounds a chain asked for with --rotations (digest-growth
// and sweep). A chain holds the synthetic turns it adds (the extension),
// so its memory grows linearly with the rotations, and a legacy digest
// grows by its predecessor every rotation, so a legacy chain's work grows
// with their square: measured on the demo (5 sessions, 2 cores, both
// variants), 200 rotations take 7.8 s and 0.78 GB peak.
const MaxRotations = 500

// CheckRotations refuses, before any work, a number of rotations no chain
// can honour in bounded memory, with the estimate of what it would take.
// The error does not name the flag: the command that wraps it does.
func CheckRotations(n int) error {
	switch {
	case n < 0:
		return errors.New("expected 0 (as recorded) or more")
	case n > MaxRotations:
		f := float64(n) / 200
		return fmt.Errorf("at most %d; a chain holds the synthetic turns it adds, so its memory grows with its length, and a legacy digest grows with every rotation, so its time grows with the square (the demo, both variants: 7.8 s and 0.78 GB at 200 rotations; %d would take about %s and %.1f GB)",
			MaxRotations, n, aboutDuration(7.8*f*f), 0.78*f)
	}
	return nil
}

// aboutDuration writes an estimate of secs seconds in the largest unit
// that keeps it above one: seconds, minutes, hours or days.
func aboutDuration(secs float64) string {
	switch {
	case secs < 60:
		return fmt.Sprintf("%.0f s", secs)
	case secs < 3600:
		return fmt.Sprintf("%.0f min", secs/60)
	case secs < 86400:
		return fmt.Sprintf("%.0f h", secs/3600)
	}
	return fmt.Sprintf("%.0f days", secs/86400)
}

// Chain replays a session until the policy has rotated n times, extending
// the session with synthetic turns when the recording is too short, so that
// a CI job can test 50 rotations from a small fixture. The trace ends right
// after the n-th rotation's request. n <= 0 replays the session as recorded.
//
// The walk never restarts: when the session runs out, Chain asks for a
// longer extension and feeds only its new messages to the same walker, so
// a chain holds one working history (and the latest extension), whatever
// n is.
func Chain(ctx context.Context, s *corpus.Session, p policy.Policy, n int, extend Extender, opts Options) (*Trace, error) {
	if n <= 0 {
		return Run(ctx, s, p, opts)
	}
	r := newRun(s, p, opts)
	cur, added := s, 0
	limit := max(maxExtraTurns, n*maxTurnsPerRotation)
	for {
		if err := r.feed(ctx, cur.Messages[r.fed:], n); err != nil {
			return r.t, err
		}
		if r.rotations >= n {
			return r.t, nil
		}
		if extend == nil {
			return r.t, fmt.Errorf("session %s: %d rotation(s) recorded, %d asked for, and no extender to lengthen it", s.ID, r.rotations, n)
		}
		if added >= limit || (r.rotations == 0 && added >= maxExtraTurns) {
			return r.t, fmt.Errorf("session %s: only %d of %d rotations after adding %d synthetic turns; does the policy ever trigger on this session? (check its trigger parameters)", s.ID, r.rotations, n, added)
		}
		turns := max(r.w.turn, 1)
		more := max(32, turns) // no rotation yet: double the session
		if r.rotations > 0 {
			more = max(8, (n-r.rotations)*turns/r.rotations*5/4+1)
		}
		added = min(added+more, limit)
		cur = extend(s, added)
	}
}
