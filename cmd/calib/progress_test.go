package main

import (
	"bytes"
	"sync"
	"testing"
)

// A command that works on each session as it loads (compare,
// digest-growth) does not know its total up front: its bar's total is the
// sum of what every session's job announced, from many goroutines at
// once, and the bar is full exactly when that much work is done.
func TestGrowingProgressTotal(t *testing.T) {
	var errOut bytes.Buffer
	a := &app{IO: &IO{ErrOut: &errOut, StderrTTY: true}}
	b := a.growingProgress("compare")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() { b.grow(i + 1) }) // 1+2+...+8 = 36 replays
	}
	wg.Wait()
	if got := b.GetMax(); got != 36 {
		t.Fatalf("total %d after eight sessions announced 36 replays", got)
	}
	for range 35 {
		_ = b.Add(1)
	}
	if b.IsFinished() || b.State().CurrentPercent == 1 {
		t.Errorf("bar finished with 35 of 36 replays done: %+v", b.State())
	}
	_ = b.Add(1)
	if got := b.State().CurrentNum; got != 36 {
		t.Errorf("bar at %d after 36 replays", got)
	}
	if errOut.Len() == 0 {
		t.Error("a bar on a terminal drew nothing on stderr")
	}
}
