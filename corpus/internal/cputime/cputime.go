// Package cputime measures the process's CPU time, for the readers' load
// benchmarks: the machines calib is measured on are shared, and MB per
// CPU-second is the figure that does not depend on what else runs.
package cputime

import (
	"syscall"
	"time"
)

// Now is the process's user plus system CPU time so far (0 where the
// system cannot tell).
func Now() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Reporter is what ReportMBPerCPUSecond needs of a *testing.B.
type Reporter interface{ ReportMetric(n float64, unit string) }

// ReportMBPerCPUSecond reports bytes (all iterations together) per CPU
// second spent since start, as the metric "MB/cpu-s".
func ReportMBPerCPUSecond(b Reporter, bytes float64, start time.Duration) {
	if s := (Now() - start).Seconds(); s > 0 {
		b.ReportMetric(bytes/1e6/s, "MB/cpu-s")
	}
}
