package main

import (
	"context"
	"maps"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/loss"
)

// compareRun is one policy's replay of one session: its metrics and, when
// its usd could not be priced, the model.
type compareRun struct {
	metrics  map[string]float64
	unpriced []string
}

// compareSessions loads the corpus and replays each session through every
// compared policy that applies to its format as it loads, then lets go of
// it (sessionJobs): memory is the sessions in flight, not the corpus.
// runs[i] are l.Sessions[i]'s replays, in the order of defs (those that
// apply). At most jobs replays run at once over all the sessions in flight,
// a session's policies side by side, as the policy × session jobs did when
// compare loaded everything first. stages[i] is defs[i]'s StageOrder.
func compareSessions(ctx context.Context, a *app, jobs int, defs []policy.Def, pols []comparedPolicy, stages [][]string,
	cs *costSetup, args []string) (runs [][]compareRun, l *loaded, err error) {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	slots := make(replaySlots, jobs)
	bar := a.growingProgress("compare")
	defer func() { _ = bar.Finish() }()
	// --prices refuses a session whose model it does not price (exit 2)
	// before replaying it. Every session is checked as it is handed over
	// (a released session has lost the usage that names its model) and the
	// first refused in corpus order is named, as when compare checked the
	// loaded corpus; after one, no replay starts.
	var checkMu sync.Mutex
	checked := map[*corpus.Session]error{}
	var refused atomic.Bool
	check := func(s *corpus.Session) error {
		err := cs.check([]*corpus.Session{s})
		checkMu.Lock()
		defer checkMu.Unlock()
		checked[s] = err
		if err != nil {
			refused.Store(true)
		}
		return err
	}
	replays := newSessionJobs(ctx, jobs, func(ctx context.Context, s *corpus.Session) ([]compareRun, error) {
		var applies []int
		for pi, d := range defs {
			if d.Applies(s.Format) {
				applies = append(applies, pi)
			}
		}
		if refused.Load() || len(applies) == 0 {
			return nil, nil
		}
		bar.grow(len(applies))
		// The session's loss index is built once and shared, read only,
		// by every policy that replays it (as sweep shares it across sets).
		ix, err := mapSlots(ctx, slots, 1, func(context.Context, int) (*loss.Index, error) {
			return loss.Build(s, loss.Options{Shared: true}), nil
		}, nil)
		if err != nil {
			return nil, err
		}
		lossIx := ix[0]
		return mapSlots(ctx, slots, len(applies), func(ctx context.Context, k int) (compareRun, error) {
			pi := applies[k]
			p, err := sessionPolicy(pols[pi].def, pols[pi].set, pols[pi].p, s)
			if err != nil {
				return compareRun{}, err
			}
			t, err := replay.Run(ctx, s, p, replay.Options{KeepFinal: true, Loss: lossIx})
			if err != nil {
				return compareRun{}, err
			}
			m := metrics.SessionMetrics(t, stages[pi], nil, nil)
			sc, err := cs.cost(t)
			if err != nil {
				return compareRun{}, err
			}
			maps.Copy(m, metrics.CostMetrics(sc))
			r := compareRun{metrics: m}
			if !sc.Priced {
				// Copied: the model is a string of the session's file.
				r.unpriced = []string{strings.Clone(sc.Model)}
			}
			return r, nil
		}, func(int, compareRun) { _ = bar.Add(1) })
	})
	defer replays.close()
	l, err = a.loadSessionsEach(ctx, args, func(ss []*corpus.Session) {
		for _, s := range ss {
			_ = check(s)
		}
		replays.add(ss)
	})
	if err != nil {
		return nil, nil, err
	}
	for _, s := range l.Sessions {
		checkMu.Lock()
		err, ok := checked[s]
		checkMu.Unlock()
		if !ok {
			err = check(s)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if runs, err = replays.results(l.Sessions); err != nil {
		return nil, nil, err
	}
	return runs, l, nil
}
