package main

import (
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/report"
)

// labelColumns heads the metric columns cols (metrics.Columns) with their
// registry labels, as replay's and digest-growth's tables do; sweep and
// merge head theirs with the names --sort takes.
func labelColumns(cols []string) []report.Column {
	out := make([]report.Column, len(cols))
	for i, m := range metrics.LookupEach(cols) {
		out[i] = report.NumCol(m.Header(cols[i]))
	}
	return out
}

// metricCells are one row's cells for the metric columns cols, looked up
// in the registry once for the row, not once per cell.
func metricCells(cols []string, values map[string]float64) []report.Cell {
	cells := make([]report.Cell, len(cols))
	for i, m := range metrics.LookupEach(cols) {
		v, ok := values[cols[i]]
		cells[i] = metricCell(m, v, ok)
	}
	return cells
}

// metricCell displays a value with its metric's declared precision; a
// missing value (the metric does not apply to the row) is blank.
func metricCell(m metrics.Metric, v float64, ok bool) report.Cell {
	if !ok {
		return report.Str("")
	}
	if m.Decimals == 0 {
		return report.Int(int64(math.Round(v)))
	}
	return report.Float(v, m.Decimals)
}

// allColumns is the --columns value that shows every metric column.
const allColumns = "all"

// columnsFlag is --columns NAMES: which metric columns the tables show,
// in the order given. It records whether it was given, so a command can
// keep its own default (compare's short set) when it was not.
type columnsFlag struct {
	value string
	given bool
}

func (c *columnsFlag) String() string { return c.value }
func (c *columnsFlag) Type() string   { return "NAMES" }
func (c *columnsFlag) Set(s string) error {
	c.value, c.given = s, true
	return nil
}

// addColumnsFlag registers --columns on cmd; def says what a table shows
// without it.
func addColumnsFlag(cmd *cobra.Command, c *columnsFlag, def string) {
	cmd.Flags().Var(c, "columns", "metric columns of the tables, in this order: comma-separated `NAMES` from calib metrics (reclaimed_<stage> by full name), or all; "+
		"the identifying columns always come first, and --format json always carries every metric (default: "+def+")")
}

// resolve validates --columns before any work, with the checker --sort
// and --pareto use (metrics.Check; have as it takes it): every name must
// be a metric the run produces, listed once, and the list not empty. It
// returns the names in the order given, def when the flag was not given,
// and nil (every column) for all.
func (c *columnsFlag) resolve(def []string, have func(metrics.Needs) bool) ([]string, error) {
	if !c.given {
		return def, nil
	}
	if strings.TrimSpace(c.value) == allColumns {
		return nil, nil
	}
	if strings.TrimSpace(c.value) == "" {
		return nil, usageErrorf("--columns: no names given; list metric names (calib metrics lists them), e.g. --columns tokens_sent,billed_tokens, or all")
	}
	var cols []string
	seen := map[string]bool{}
	for _, n := range strings.Split(c.value, ",") {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return nil, usageErrorf("--columns %s: empty name between commas", c.value)
		case n == allColumns:
			return nil, usageErrorf("--columns %s: all stands alone (it shows every column)", c.value)
		case seen[n]:
			// Refused rather than dropped: a name given twice is a typo
			// for another one more often than not.
			return nil, usageErrorf("--columns %s: %s is listed twice", c.value, n)
		}
		if err := checkMetric("--columns", n, have); err != nil {
			return nil, err
		}
		if err := checkStageColumn(n); err != nil {
			return nil, err
		}
		seen[n] = true
		cols = append(cols, n)
	}
	return cols, nil
}

// checkStageColumn refuses a reclaimed_<stage> whose stage no policy
// declares (metrics.Check takes any suffix): a typo would otherwise be a
// column left blank on every row.
func checkStageColumn(name string) error {
	m, _ := metrics.Lookup(name)
	if !m.Family {
		return nil
	}
	stages := metrics.StageOrder(policy.Names()...)
	if stage := strings.TrimPrefix(name, m.Name); !slices.Contains(stages, stage) {
		return usageErrorf("--columns %s: no policy has a stage %q (stages: %s; calib policies shows each policy's)", name, stage, strings.Join(stages, ", "))
	}
	return nil
}

// producedColumns refuses, before any work, a chosen column that a replay
// or compare run does not produce (have: as metrics.Check takes it).
// Their flags are not sweep's, so checkMetric's hints do not fit them. A
// metric that only some rows have (a rotation policy's digest figures) is
// blank in the others.
func producedColumns(cols []string, have func(metrics.Needs) bool) error {
	for _, n := range cols {
		m, _ := metrics.Lookup(n)
		if m.Needs == metrics.NeedsNothing || have(m.Needs) {
			continue
		}
		why := "digest metrics need a rotation policy (clai-rotation), and none of this run's rotates"
		if m.Needs == metrics.NeedsCompare {
			why = "agreement metrics need --compare-recorded (calib replay and calib sweep take it)"
		}
		return usageErrorf("--columns %s: %s", n, why)
	}
	return nil
}

// pickColumns are the metric columns a table shows: the chosen ones
// (resolve) or, when nil, every column the rows have (metrics.Columns).
func pickColumns(present, chosen []string) []string {
	if chosen == nil {
		return present
	}
	return chosen
}

// checkMetric checks a metric named by a flag (metrics.Check) and words
// its error for the command line: the flag first, and which flag or
// policy gives what the metric needs.
func checkMetric(flag, name string, have func(metrics.Needs) bool) error {
	err := metrics.Check(name, have)
	var unknown *metrics.UnknownError
	var unavailable *metrics.UnavailableError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &unknown):
		return usageErrorf("%s %v; `calib metrics` explains each", flag, err)
	case errors.As(err, &unavailable):
		switch unavailable.Needs {
		case metrics.NeedsCompare:
			return usageErrorf("%s %s: agreement metrics need --compare-recorded", flag, name)
		case metrics.NeedsRotation:
			return usageErrorf("%s %s: digest metrics need a rotation policy (e.g. -p clai-rotation)", flag, name)
		}
	}
	return usageErrorf("%s %v", flag, err)
}
