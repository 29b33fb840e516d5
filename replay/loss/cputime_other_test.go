//go:build !unix

package loss_test

import "time"

// cpuTime is 0 where the process's CPU time is not read: the benchmark
// then reports wall-clock ratios only.
func cpuTime() time.Duration { return 0 }
