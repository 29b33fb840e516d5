// Package cputime measures the process's CPU time, for the readers' load
// benchmarks: the machines calib is measured on are shared, and MB per
// CPU-second is the figure that does not depend on what else runs.
package cputime

import "time"

// Reporter is what ReportMBPerCPUSecond needs of a *testing.B.
type Reporter interface{ ReportMetric(n float64, unit string) }

// ReportMBPerCPUSecond reports bytes (all iterations together) per CPU
// second spent since start, as the metric "MB/cpu-s".
func ReportMBPerCPUSecond(b Reporter, bytes float64, start time.Duration) {
	if s := (Now() - start).Seconds(); s > 0 {
		b.ReportMetric(bytes/1e6/s, "MB/cpu-s")
	}
}
