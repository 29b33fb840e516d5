package main

import (
	"math"

	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/report"
)

// labelColumns heads the metric columns cols (metrics.Columns) with their
// registry labels, as replay's and digest-growth's tables do; sweep and
// merge head theirs with the names --sort takes.
func labelColumns(cols []string) []report.Column {
	out := make([]report.Column, len(cols))
	for i, n := range cols {
		m, _ := metrics.Lookup(n)
		out[i] = report.NumCol(m.Header(n))
	}
	return out
}

// metricCells are one row's cells for the metric columns cols.
func metricCells(cols []string, values map[string]float64) []report.Cell {
	cells := make([]report.Cell, len(cols))
	for i, n := range cols {
		v, ok := values[n]
		cells[i] = metricCell(n, v, ok)
	}
	return cells
}

// metricCell displays a value with its metric's declared precision; a
// missing value (the metric does not apply to the row) is blank.
func metricCell(name string, v float64, ok bool) report.Cell {
	if !ok {
		return report.Str("")
	}
	m, _ := metrics.Lookup(name)
	if m.Decimals == 0 {
		return report.Int(int64(math.Round(v)))
	}
	return report.Float(v, m.Decimals)
}
