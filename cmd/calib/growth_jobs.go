package main

import (
	"context"
	"runtime"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/replay"
)

// growthChain is one run's chain of one session, or why it could not be
// made.
type growthChain struct {
	row growthSessionJSON
	err error
}

// growthChains loads the corpus and chains each session through every run
// (variant) as it loads, then lets go of it (sessionJobs): memory is the
// sessions in flight, not the corpus. At most --jobs chains are replayed at
// once over all the sessions in flight, a session's runs side by side. The
// rows come run by run, each in corpus order, named by sessionNames.
//
// A chain that fails (a policy that never rotates on a session) does not
// stop the others: the error reported is the first in that order, as a
// single worker over the loaded corpus found it, whatever the parallelism.
func growthChains(ctx context.Context, a *app, o *growthOptions, runs []growthRun, baseline *baselineRows, args []string) ([]growthSessionJSON, *loaded, error) {
	jobs := o.jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	slots := make(replaySlots, jobs)
	bar := a.growingProgress("digest-growth")
	defer func() { _ = bar.Finish() }()
	extend := func(s *corpus.Session) func(int) []corpus.Message { return synth.NewExtension(s, o.seed).Turns }
	chains := newSessionJobs(ctx, jobs, func(ctx context.Context, s *corpus.Session) ([]growthChain, error) {
		bar.grow(len(runs) * max(o.rotations, 1))
		return mapSlots(ctx, slots, len(runs), func(ctx context.Context, k int) (growthChain, error) {
			run := runs[k]
			opts := replay.Options{}
			if o.rotations > 0 {
				opts.Observe = func(_ replay.Request, e *replay.Event) {
					if e != nil && e.Outcome.Digest != nil {
						_ = bar.Add(1)
					}
				}
			}
			t, err := replay.Chain(ctx, s, run.p, o.rotations, extend, opts)
			if err != nil {
				if ctx.Err() != nil {
					return growthChain{}, err
				}
				return growthChain{err: err}, nil
			}
			if o.rotations == 0 {
				_ = bar.Add(1)
			}
			// Nothing is copied (as detach does for the other commands):
			// the row's strings are not the file's (smith's id is decoded
			// apart, the path is the walk's, a clai database's strings are
			// the driver's), so the row does not pin its session.
			row := growthSessionJSON{GrowthRow: metrics.Growth(t), Variant: run.variant, Params: run.p.Params()}
			row.Recorded = replay.Rederive(s, run.p)
			return growthChain{row: row}, nil
		}, nil)
	})
	defer chains.close()
	l, err := a.loadSessionsEach(ctx, args, chains.add)
	if err != nil {
		return nil, nil, err
	}
	if baseline != nil {
		if err := baseline.covers(o.baseline, l.Sessions); err != nil {
			return nil, nil, err
		}
	}
	bySession, err := chains.results(l.Sessions)
	if err != nil {
		return nil, nil, err
	}
	names := sessionNames(l.Sessions)
	rows := make([]growthSessionJSON, 0, len(runs)*len(l.Sessions))
	for k := range runs {
		for i, cs := range bySession {
			c := cs[k]
			if c.err != nil {
				return nil, nil, c.err
			}
			c.row.name = names[i]
			rows = append(rows, c.row)
		}
	}
	return rows, l, nil
}
