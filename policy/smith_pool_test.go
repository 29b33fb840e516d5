package policy

import (
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// TestWorkPoolReuse checks that a policy whose compactions reuse the
// scratch of earlier ones (workPool) decides as a fresh policy does:
// every outcome of one policy compacting a run of different histories,
// twice, in two orders, and from four goroutines at once, equals that of a
// new policy compacting the history alone, and no input is modified. The
// histories share call ids with different calls (randomCalls) and repeat
// reads (benchHistory), so that stale maps or candidates would stub or cut
// the wrong results.
func TestWorkPoolReuse(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	hs := [][]corpus.Message{benchHistory(300), thinkingHistory(), benchHistory(90)}
	for range 6 {
		hs = append(hs, randomCalls(r, 10+r.IntN(30)))
	}
	for _, pc := range []struct{ name, set string }{
		{"smith-staged", "max_tokens=120000"},
		{"smith-staged", "max_tokens=3000,window_turns=1"},
		{"smith-staged", "max_tokens=3000,window_turns=1,stage_summarize=false"},
		{"smith-staged", "max_tokens=1000,summarizer=fail"},
		{"smith-legacy", "max_tokens=3000"},
	} {
		t.Run(pc.name+"/"+pc.set, func(t *testing.T) {
			at := func(p Policy, h []corpus.Message) Checkpoint {
				return Checkpoint{Units: units(p, h), Count: int64(len(h))}
			}
			want := make([]Outcome, len(hs))
			snapshots := make([][]corpus.Message, len(hs))
			stages := map[string]bool{}
			for i, h := range hs {
				snapshots[i] = deepCopy(h)
				p := newPolicy(t, pc.name, pc.set)
				want[i] = p.Compact(h, at(p, h))
				for _, s := range want[i].Stages {
					stages[s.Name] = true
				}
			}
			if len(stages) == 0 {
				t.Fatal("no history was compacted: the test checks nothing")
			}
			shared := newPolicy(t, pc.name, pc.set)
			check := func(i int) {
				if got := shared.Compact(hs[i], at(shared, hs[i])); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("history %d: a reused working gave %s with %d messages and stages %v, a fresh one %s with %d and %v",
						i, got.Strategy, len(got.History), got.Stages, want[i].Strategy, len(want[i].History), want[i].Stages)
				}
			}
			for i := range hs {
				check(i)
			}
			for i := len(hs) - 1; i >= 0; i-- {
				check(i)
			}
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := range 2 * len(hs) {
						check((k + g) % len(hs))
					}
				}()
			}
			wg.Wait()
			for i, h := range hs {
				if !reflect.DeepEqual(h, snapshots[i]) {
					t.Errorf("history %d was modified", i)
				}
			}
		})
	}
}

// TestWorkPoolSavesScratch pins what the pool saves: a compaction by a
// policy that has compacted before allocates at least the working and
// its scratch (sizes, owned, the calls, two maps, the candidates) fewer
// times than the same compaction by a policy that has not.
func TestWorkPoolSavesScratch(t *testing.T) {
	const runs = 20
	h := benchHistory(300)
	fresh := make([]Policy, runs+1) // AllocsPerRun runs once more to warm up
	for i := range fresh {
		fresh[i] = staged(t, "max_tokens=120000")
	}
	at := Checkpoint{Units: units(fresh[0], h), Count: int64(len(h))}
	if o := fresh[0].Compact(h, at); len(o.Stages) < 3 {
		t.Fatalf("stages %v: the compaction must run the duplicates and truncate stages", o.Stages)
	}
	next := 1
	cold := testing.AllocsPerRun(runs, func() {
		fresh[next%len(fresh)].Compact(h, at)
		next++
	})
	warm := testing.AllocsPerRun(runs, func() { fresh[0].Compact(h, at) })
	if cold-warm < 6 {
		t.Errorf("a compaction allocates %v times with a new policy and %v with one that compacted before: the pool saves less than the scratch", cold, warm)
	}
}
