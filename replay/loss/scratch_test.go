package loss

import (
	"slices"
	"sync"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// scratchJob is one report the scratch tests make: a session, a hide set
// and the report of an index built without a scratch.
type scratchJob struct {
	name  string
	s     *corpus.Session
	hides []Hide
	fresh Report
}

// checkScratchReuse reports every job on three goroutines, each with a
// Scratch of its own reused for all its reports: one from the largest
// session to the smallest (a large session's tables, then a small one's
// in the same memory), one the other way, one in hide-set order. Every
// report must equal the one built without a scratch. Run it with -race:
// the goroutines share the sessions and nothing else.
func checkScratchReuse(t *testing.T, jobs []scratchJob) {
	t.Helper()
	for i := range jobs {
		jobs[i].fresh = Build(jobs[i].s, Options{}).Report(jobs[i].hides)
	}
	bigFirst := slices.Clone(jobs)
	slices.SortStableFunc(bigFirst, func(a, b scratchJob) int { return len(b.s.Messages) - len(a.s.Messages) })
	smallFirst := slices.Clone(bigFirst)
	slices.Reverse(smallFirst)
	var wg sync.WaitGroup
	for _, order := range [][]scratchJob{bigFirst, smallFirst, jobs} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := new(Scratch)
			for _, j := range order {
				rep := Build(j.s, Options{Scratch: sc}).Report(j.hides)
				if d := diffReports(rep, j.fresh); d != "" {
					t.Errorf("%s: with a reused scratch: %s (got the first, fresh the second)", j.name, d)
				}
			}
		}()
	}
	wg.Wait()
}

// scratchJobs collects a job per hide set of the sessions a check visits.
func scratchJobs(jobs *[]scratchJob) func(t *testing.T, name string, s *corpus.Session) int {
	return func(t *testing.T, name string, s *corpus.Session) int {
		sets := hideSets(Build(s, Options{}))
		for set, hides := range sets {
			*jobs = append(*jobs, scratchJob{name: name + "/" + set, s: s, hides: hides})
		}
		return len(sets)
	}
}

func TestScratchReuse(t *testing.T) {
	var jobs []scratchJob
	checkSynthSessions(t, scratchJobs(&jobs))
	checkScratchReuse(t, jobs)
}

func TestScratchReuseReal(t *testing.T) {
	var jobs []scratchJob
	checkRealSessions(t, scratchJobs(&jobs))
	checkScratchReuse(t, jobs)
}
