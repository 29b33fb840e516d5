//go:build ignore

// parallel_ceiling measures what two workers can gain on this machine at
// all: the same arithmetic loop (no memory traffic, no allocation, no
// system calls) split over one goroutine and then over two, alternately,
// ROUNDS times, and prints the median wall time of each and their ratio.
// A perfectly parallel program cannot beat that ratio here, so it is the
// ceiling to hold `calib sweep --jobs 2` against `--jobs 1` to: on a
// shared virtual machine the second core is not always a whole core.
// Excluded from go build/test by its build tag.
//
//	go run scripts/parallel_ceiling.go [ROUNDS]
package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
)

// work is 16 equal tasks: 8 per worker with two, so neither waits.
const (
	tasks = 16
	steps = 50_000_000
)

func main() {
	rounds := 5
	if len(os.Args) > 1 {
		n, err := strconv.Atoi(os.Args[1])
		if err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "usage: parallel_ceiling [ROUNDS], ROUNDS a positive integer")
			os.Exit(2)
		}
		rounds = n
	}
	var one, two []float64
	for range rounds {
		one = append(one, run(1))
		two = append(two, run(2))
	}
	m1, m2 := median(one), median(two)
	fmt.Printf("1 worker %.3f s, 2 workers %.3f s (medians of %d rounds): 2 workers are %.2fx as fast\n",
		m1, m2, rounds, m1/m2)
}

// run does every task with the given number of workers and returns the
// wall time in seconds.
func run(workers int) float64 {
	start := time.Now()
	next := make(chan struct{}, tasks)
	for range tasks {
		next <- struct{}{}
	}
	close(next)
	var wg sync.WaitGroup
	sums := make([]uint64, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sum uint64 // local: workers writing side by side would share a cache line
			for range next {
				sum += spin(steps)
			}
			sums[w] = sum
		}()
	}
	wg.Wait()
	if sums[0] == 1 { // keeps the loop from being optimized away
		fmt.Print("")
	}
	return time.Since(start).Seconds()
}

// spin is a linear congruential generator run n steps: one multiply and
// one add a step, in registers.
func spin(n int) uint64 {
	x := uint64(1)
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
