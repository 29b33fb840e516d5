package main

import (
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress returns a progress bar over total steps for long commands
// (sweep, digest-growth). It draws on stderr, and only when stderr is a
// terminal and --quiet is not set: piped or CI runs get no bytes at all, so
// logs and golden files never see it. Call Add(1) per finished job from any
// goroutine and Finish at the end; both are cheap when the bar is hidden.
func (a *app) progress(total int, description string) *progressbar.ProgressBar {
	return progressbar.NewOptions64(int64(total),
		progressbar.OptionSetWriter(a.IO.ErrOut), // the library's default is stdout
		progressbar.OptionSetVisibility(a.IO.StderrTTY && !a.flags.quiet),
		progressbar.OptionSetDescription(description),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond), // default 0 redraws on every Add
		progressbar.OptionClearOnFinish(),
	)
}

// growingBar is a progress bar whose total grows as work is found: a
// command that works on each session as it loads (sessionJobs) does not
// know how many there are when it starts.
type growingBar struct {
	*progressbar.ProgressBar
	mu    sync.Mutex
	total int
}

func (a *app) growingProgress(description string) *growingBar {
	return &growingBar{ProgressBar: a.progress(0, description)}
}

// grow adds n steps to the total; it may be called from any goroutine.
func (b *growingBar) grow(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += n
	b.ChangeMax(b.total)
}
