package sweep

import (
	"context"
	"maps"
	"slices"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
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

// Run replays every job of the sweep over a loaded corpus (see Runner)
// and returns the results in job order (Plan.Jobs).
func Run[T any](ctx context.Context, s Plan, sessions []*corpus.Session, measure Measure[T], done func(j Job, r T)) (out []T, ok []bool, err error) {
	r := Start(ctx, s, measure)
	r.Seal(sessions, done)
	return r.Wait()
}

// indexes reports whether jobs need their session's loss index: plain
// replays with TrackLoss (a chain replays extended sessions).
func (s Plan) indexes() bool { return s.TrackLoss && s.Rotations == 0 }

// sharesMemo reports whether some parameter set meters with o200k or
// chars4 (policy.SharesCounts): the meters whose counts are worth sharing
// between a session's jobs. A grid of meters is asked value by value; any
// other plan through one policy built from the fixed values and the first
// of each axis.
func (s Plan) sharesMemo() bool {
	for _, a := range s.Grid {
		if a.Name == "meter" {
			return slices.ContainsFunc(a.Values, func(m string) bool { return m == policy.MeterO200k || m == policy.MeterChars4 })
		}
	}
	set := maps.Clone(s.Fixed)
	if set == nil {
		set = map[string]string{}
	}
	for _, a := range s.Grid {
		set[a.Name] = a.Values[0]
	}
	p, err := s.Policy.Build(set, nil)
	if err != nil {
		return false // the jobs fail with this error themselves
	}
	return policy.SharesCounts(p)
}
