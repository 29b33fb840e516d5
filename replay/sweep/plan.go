package sweep

import (
	"context"
	"fmt"
	"slices"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/loss"
)

// Plan describes a parameter sweep of one policy over a loaded corpus.
type Plan struct {
	Policy policy.Def
	Grid   Grid
	Fixed  map[string]string // --set values shared by every parameter set
	Shard  Shard
	// Workers is the number of jobs run at once (0: GOMAXPROCS).
	Workers int
	Options replay.Options
	// Rotations, when > 0, chains each replay to that many rotations,
	// extending sessions with Extend (rotation policies; see Chain).
	Rotations int
	Extend    replay.Extender
	// TrackLoss computes the loss signals of every plain replay (not of
	// chains): each session's index is built once, before the jobs, and
	// shared, read only, by every parameter set.
	TrackLoss bool
}

// Job is one (parameter set, session) replay.
type Job struct {
	Index   int   // position in the sweep's job list (shard-local)
	Set     int64 // parameter-set index in the whole grid
	Session int   // index into the corpus
}

// Jobs lists the sweep's jobs in their stable order: parameter sets of the
// shard in grid order, each over every session in corpus order.
func (s Plan) Jobs(sessions int) []Job {
	var jobs []Job
	for set := range s.Grid.Points() {
		if !s.Shard.Has(set) {
			continue
		}
		for i := range sessions {
			jobs = append(jobs, Job{Index: len(jobs), Set: set, Session: i})
		}
	}
	return jobs
}

// Run replays every job and hands each trace to measure in the worker that
// ran it, so only measure's (small) result outlives the job: memory does not
// grow with the grid. Results come back in job order whatever the
// parallelism; done (optional) sees each result as it finishes. On
// cancellation Run returns the results finished so far (ok tells which)
// with the context's error.
func Run[T any](ctx context.Context, s Plan, sessions []*corpus.Session, jobs []Job,
	measure func(j Job, p policy.Policy, t *replay.Trace) T, done func(j Job, r T)) (out []T, ok []bool, err error) {
	var memo *policy.TokenMemo
	if s.usesO200k() {
		memo = policy.NewTokenMemo(sessions)
	}
	var lossIx []*loss.Index
	if s.TrackLoss && s.Rotations == 0 {
		lossIx, _, err = replay.Map(ctx, len(sessions), s.Workers, func(_ context.Context, i int) (*loss.Index, error) {
			return loss.Build(sessions[i], loss.Options{Shared: true}), nil
		}, nil)
		if err != nil {
			return nil, nil, err
		}
	}
	fn := func(ctx context.Context, i int) (T, error) {
		var zero T
		j := jobs[i]
		p, err := s.Policy.Build(s.Grid.Set(j.Set, s.Fixed), memo)
		if err != nil {
			return zero, fmt.Errorf("parameter set %d: %w", j.Set, err)
		}
		var t *replay.Trace
		if s.Rotations > 0 {
			t, err = replay.Chain(ctx, sessions[j.Session], p, s.Rotations, s.Extend, s.Options)
		} else {
			opts := s.Options
			if lossIx != nil {
				opts.Loss = lossIx[j.Session]
			}
			t, err = replay.Run(ctx, sessions[j.Session], p, opts)
		}
		if err != nil {
			return zero, err
		}
		return measure(j, p, t), nil
	}
	var cb func(int, T)
	if done != nil {
		cb = func(i int, r T) { done(jobs[i], r) }
	}
	return replay.Map(ctx, len(jobs), s.Workers, fn, cb)
}

// usesO200k reports whether some parameter set meters with o200k, the only
// meter whose memo is worth sharing between jobs (it tokenizes).
func (s Plan) usesO200k() bool {
	if s.Fixed["meter"] == policy.MeterO200k {
		return true
	}
	for _, a := range s.Grid {
		if a.Name == "meter" && slices.Contains(a.Values, policy.MeterO200k) {
			return true
		}
	}
	return false
}
