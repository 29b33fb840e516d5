package sweep

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
)

// runnerCorpus is n small sessions of distinct sizes (their traces differ).
func runnerCorpus(n int) []*corpus.Session {
	var ss []*corpus.Session
	for i := range n {
		s := synth.ToolHeavySession(60 + 20*i)
		s.ID = fmt.Sprintf("s%d", i)
		ss = append(ss, s)
	}
	return ss
}

// jobResult is what runnerMeasure keeps of a job: enough to tell which
// job it was and what its replay gave.
type jobResult struct {
	Set     int64
	Session string
	Sent    int64
	Lost    int
}

func runnerMeasure(set int64, s *corpus.Session, _ policy.Policy, t *replay.Trace) jobResult {
	r := jobResult{Set: set, Session: s.ID, Sent: sent(t), Lost: -1}
	if t.Loss != nil {
		r.Lost = t.Loss.Counts.Lost
	}
	return r
}

func runnerPlan(workers int) Plan {
	def, _ := policy.Lookup("smith-staged")
	ax, _ := ParseAxis("compact_at=0.6,0.8")
	ax2, _ := ParseAxis("window_turns=1..3")
	return Plan{Policy: def, Grid: Grid{ax, ax2}, Shard: Shard{K: 2, N: 2}, Workers: workers, TrackLoss: true,
		Fixed: map[string]string{"max_tokens": "6000"}}
}

// A sweep fed while its corpus loads gives what a sweep of the loaded
// corpus gives, in job order, whatever the order sessions arrive in,
// the workers, a session the loader drops (a file read twice) or one it
// never handed over; done hears of every job once, with its result.
func TestRunnerWhileLoading(t *testing.T) {
	sessions := runnerCorpus(5)
	want, ok, err := Run(context.Background(), runnerPlan(1), sessions, runnerMeasure, nil)
	if err != nil {
		t.Fatal(err)
	}
	jobs := runnerPlan(1).Jobs(len(sessions))
	for i, j := range jobs {
		if !ok[i] || want[i].Set != j.Set || want[i].Session != sessions[j.Session].ID || want[i].Sent == 0 || want[i].Lost < 0 {
			t.Fatalf("job %d (set %d, session %d): %+v", i, j.Set, j.Session, want[i])
		}
	}
	dropped := synth.ToolHeavySession(90)
	dropped.ID = "s0" // a second reading of s0's file
	rng := rand.New(rand.NewPCG(1, 2))
	for _, workers := range []int{1, 2, 4} {
		for round := range 3 {
			early := append([]*corpus.Session{dropped}, sessions[:4]...) // s4 comes only with Seal
			rng.Shuffle(len(early), func(i, j int) { early[i], early[j] = early[j], early[i] })
			r := Start(context.Background(), runnerPlan(workers), runnerMeasure)
			var wg sync.WaitGroup
			for _, s := range early {
				wg.Add(1)
				go func() { defer wg.Done(); r.Add([]*corpus.Session{s}) }()
			}
			if round > 0 {
				wg.Wait() // round 0 seals while sessions still arrive
			}
			var mu sync.Mutex
			heard := map[int]jobResult{}
			r.Seal(sessions, func(j Job, res jobResult) {
				mu.Lock()
				defer mu.Unlock()
				if _, dup := heard[j.Index]; dup {
					t.Errorf("job %d heard twice", j.Index)
				}
				heard[j.Index] = res
			})
			wg.Wait()
			got, gotOK, err := r.Wait()
			if err != nil {
				t.Fatal(err)
			}
			for i := range jobs {
				if !gotOK[i] || got[i] != want[i] || heard[i] != want[i] {
					t.Errorf("%d workers, round %d, job %d: %+v (heard %+v), want %+v", workers, round, i, got[i], heard[i], want[i])
				}
			}
			if len(heard) != len(jobs) {
				t.Errorf("%d workers, round %d: done heard %d jobs of %d", workers, round, len(heard), len(jobs))
			}
		}
	}
}

// A sweep abandoned while loading (a file failed, a check refused the
// corpus) stops its workers; one cancelled returns what finished, with
// the context's error.
func TestRunnerStopAndCancel(t *testing.T) {
	sessions := runnerCorpus(3)
	r := Start(context.Background(), runnerPlan(2), runnerMeasure)
	r.Add(sessions)
	r.Stop() // returns once every worker has: the test would hang otherwise

	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	r = Start(ctx, runnerPlan(2), func(set int64, s *corpus.Session, p policy.Policy, tr *replay.Trace) jobResult {
		once.Do(cancel)
		return runnerMeasure(set, s, p, tr)
	})
	r.Seal(sessions, nil)
	_, ok, err := r.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	n := 0
	for _, o := range ok {
		if o {
			n++
		}
	}
	if n == 0 || n == len(ok) {
		t.Errorf("%d of %d jobs finished after a cancel at the first", n, len(ok))
	}
}
