package replay

import (
	"context"
	"errors"
	"fmt"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// Extender starts the synthetic continuation of a session, turns of the
// session's own profile (corpus/synth.NewExtension): each call of next
// returns the messages of the next turns turns, in a slice of their own.
// It must be deterministic: the same session gives the same stream,
// however the calls split it.
type Extender func(s *corpus.Session) (next func(turns int) []corpus.Message)

// maxExtraTurns bounds how far a chain is extended without a single
// rotation before giving up (a policy that never triggers on the session
// would otherwise extend forever), and maxTurnsPerRotation how many
// synthetic turns a chain may add per rotation asked for beyond that: clai
// rotates every 20–40 turns at its defaults. batchTurns is how many
// synthetic turns are made at a time: a chain holds one batch, not the
// extension.
const (
	maxExtraTurns       = 20_000
	maxTurnsPerRotation = 60
	batchTurns          = 64
)

// MaxRotations bounds a chain asked for with --rotations (digest-growth
// and sweep). A legacy digest grows by its predecessor every rotation, so a
// legacy chain's memory grows with the rotations (the current digest) and
// its work with their square. Measured on the demo (5 sessions, 2 cores,
// both variants): 200 rotations take 5.9 s and 0.15 GB peak.
// MaxBoundedRotations bounds a chain whose digest is bounded
// (policy.Bounded: clai's fixed variant), whose memory stays nearly flat
// (one batch of the extension, the digest, and the trace's few KB per
// rotation) and whose time grows linearly: on the demo, fixed, 5,000
// rotations take 11.5 s and 0.14 GB.
const (
	MaxRotations        = 500
	MaxBoundedRotations = 5000
)

// CheckRotations refuses, before any work, a number of rotations no chain
// can honour in bounded memory and time, with the estimate of what it would
// take; bounded says that every chain's digest is bounded (policy.Bounded).
// The error does not name the flag: the command that wraps it does.
func CheckRotations(n int, bounded bool) error {
	switch {
	case n < 0:
		return errors.New("expected 0 (as recorded) or more")
	case bounded && n > MaxBoundedRotations:
		f := float64(n) / 5000
		return fmt.Errorf("at most %d for a bounded digest; a chain's time grows with its length (the demo, fixed: 11.5 s and 0.14 GB at 5,000 rotations; %d would take about %s and %.1f GB)",
			MaxBoundedRotations, n, aboutDuration(11.5*f), 0.14*f)
	case !bounded && n > MaxRotations:
		f := float64(n) / 200
		return fmt.Errorf("at most %d; a legacy digest grows by its predecessor every rotation, so a chain's memory grows with its length and its time with the square (the demo, both variants: 5.9 s and 0.15 GB at 200 rotations; %d would take about %s and %.1f GB)",
			MaxRotations, n, aboutDuration(5.9*f*f), 0.15*f)
	}
	return nil
}

// ChainSeconds estimates one chain of n rotations of one session of the
// demo's size, from the measurements above: a bounded digest's time grows
// linearly (11.5 s for the demo's 5 sessions at 5,000 rotations), a
// legacy one's with the square (5.9 s for 5 sessions in both variants at
// 200). A sweep chains every session once per parameter set.
func ChainSeconds(n int, bounded bool) float64 {
	if bounded {
		return 11.5 / 5 * float64(n) / 5000
	}
	f := float64(n) / 200
	return 5.9 / 10 * f * f
}

// AboutDuration is aboutDuration for the commands' messages.
func AboutDuration(secs float64) string { return aboutDuration(secs) }

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
// The walk never restarts: when the session runs out, Chain feeds the
// extension's next turns to the same walker, batchTurns at a time, and lets
// go of each batch once walked, so a chain holds one working history and
// one batch, whatever n is.
func Chain(ctx context.Context, s *corpus.Session, p policy.Policy, n int, extend Extender, opts Options) (*Trace, error) {
	if n <= 0 {
		return Run(ctx, s, p, opts)
	}
	r := newRun(s, p, opts)
	if err := r.feed(ctx, s.Messages, n); err != nil || r.rotations >= n {
		return r.t, err
	}
	if extend == nil {
		return r.t, fmt.Errorf("session %s: %d rotation(s) recorded, %d asked for, and no extender to lengthen it", s.ID, r.rotations, n)
	}
	next := extend(s)
	added := 0
	limit := max(maxExtraTurns, n*maxTurnsPerRotation)
	for {
		if added >= limit || (r.rotations == 0 && added >= maxExtraTurns) {
			return r.t, fmt.Errorf("session %s: only %d of %d rotations after adding %d synthetic turns; does the policy ever trigger on this session? (check its trigger parameters)", s.ID, r.rotations, n, added)
		}
		// How many turns to add before looking again: with no rotation
		// yet, as many as the walk has seen (doubling the session); then
		// what the rotations so far predict for the rest, and a quarter
		// more.
		turns := max(r.w.turn, 1)
		more := max(32, turns)
		if r.rotations > 0 {
			more = max(8, (n-r.rotations)*turns/r.rotations*5/4+1)
		}
		more = min(added+more, limit) - added
		for more > 0 {
			k := min(more, batchTurns)
			more -= k
			added += k
			if err := r.feed(ctx, next(k), n); err != nil || r.rotations >= n {
				return r.t, err
			}
		}
	}
}
