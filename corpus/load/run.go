package load

import (
	"runtime"
	"slices"
	"sync"

	"github.com/calib-dev/calib/corpus"
)

// unit is one piece of loading work: a file, a folder an agent writes, or
// standard input.
type unit func() ([]*corpus.Session, error)

type result struct {
	sessions []*corpus.Session
	err      error
}

// run runs the units on up to GOMAXPROCS goroutines and returns their
// results in unit order, so what Load returns does not depend on the
// parallelism. Loading keeps every session anyway, so running files side
// by side adds only the readers' transient buffers to peak memory. each,
// when not nil, gets each unit's sessions as the unit finishes.
func run(units []unit, each func([]*corpus.Session)) []result {
	results := make([]result, len(units))
	do := func(i int) {
		results[i].sessions, results[i].err = units[i]()
		for _, s := range results[i].sessions {
			inLineOrder(s)
		}
		if each != nil && len(results[i].sessions) > 0 {
			each(results[i].sessions)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(units))
	if workers <= 1 {
		for i := range units {
			do(i)
		}
		return results
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				do(i)
			}
		}()
	}
	for i := range units {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// inLineOrder orders a session's warnings by line within each file (the
// files in the order the reader first warned about them), as the README
// promises and the 20 shown assume: a reader's later passes (a smith
// transcript's tool pairing, after its lines) appended theirs after the
// lines' own. A clai database's are in table, then row, order already
// (its rows are numbered per table).
func inLineOrder(s *corpus.Session) {
	if s.Format == corpus.FormatClai || len(s.Warnings) < 2 {
		return
	}
	rank := map[string]int{}
	for _, w := range s.Warnings {
		if _, ok := rank[w.File]; !ok {
			rank[w.File] = len(rank)
		}
	}
	slices.SortStableFunc(s.Warnings, func(a, b corpus.Warning) int {
		if ra, rb := rank[a.File], rank[b.File]; ra != rb {
			return ra - rb
		}
		return a.Line - b.Line
	})
}
