package main

import (
	"fmt"

	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/replay/sweep"
	"github.com/calib-dev/calib/report"
)

// writeSweep prints a sweep report and its plots; merge uses it too, so a
// merged report is byte-identical to a single run's. columns are the
// tables' metric columns (nil: all); JSON has every metric.
func writeSweep(a *app, rep *sweep.Report, perSession bool, plotMetric string, columns []string, broke []report.Annotation) error {
	doc := sweepDoc(rep, perSession, columns, a.Format)
	doc.Annotations = broke
	return a.writeWithPlots(doc, func() ([]report.Figure, error) {
		figs, err := sweepFigures(rep, plotMetric)
		if err != nil {
			return nil, &usageError{err}
		}
		return figs, nil
	})
}

// sweepDoc is the report in format: --format json writes rep itself, so
// the tables (a cell per metric of every set and session) are built only
// for the formats that print them.
func sweepDoc(rep *sweep.Report, perSession bool, columns []string, format report.Format) report.Doc {
	doc := report.Doc{JSON: rep}
	if format != report.JSON {
		doc.Tables = sweepTables(rep, perSession, columns, format)
	}
	return doc
}

// metricColumns are the metrics present in rows of a sweep of policy that
// make table columns (metrics.Columns, stages in the policy's order).
func metricColumns(rows []sweep.Row, policy string) []string {
	return metrics.Columns(sweep.MetricNames(rows), metrics.StageOrder(policy))
}

// A usd over only some sessions is marked (usdNotes); CSV (format) gets
// unpriced_sessions next to usd instead.
func sweepTables(rep *sweep.Report, perSession bool, columns []string, format report.Format) []*report.Table {
	mcols := csvUSDColumns(pickColumns(metricColumns(rep.Sets, rep.Policy), columns), format)
	title := fmt.Sprintf("Parameter sets (policy %s, %d of %d sets, %d sessions", rep.Policy, len(rep.Sets), rep.Points, len(rep.Sessions))
	if rep.Shard != "1/1" {
		title += ", shard " + rep.Shard
	}
	if !rep.Complete {
		title += ", INTERRUPTED"
	}
	title += ")"
	cols := []report.Column{report.NumCol("set")}
	for _, ax := range rep.Grid {
		cols = append(cols, report.TextCol(ax.Name))
	}
	for _, m := range mcols {
		cols = append(cols, report.NumCol(m))
	}
	if len(rep.View.Pareto) == 2 {
		cols = append(cols, report.TextCol("pareto"))
	}
	partial := false
	for _, r := range rep.Sets {
		partial = partial || r.Incomplete
	}
	if partial {
		cols = append(cols, report.TextCol("incomplete"))
	}
	sets := report.NewTable(title, cols...)
	notes := newUSDNotes(usdRows(rep.Sets))
	for _, r := range rep.Sets {
		cells := sweepCells(r, rep, mcols, notes)
		if partial {
			mark := ""
			if r.Incomplete {
				mark = fmt.Sprintf("%d of %d sessions, not ranked", int(r.Metrics["sessions"]), len(rep.Sessions))
			}
			cells = append(cells, report.Str(mark))
		}
		sets.AddRow(cells...)
	}
	sets.Notes = notes.notes(mcols)
	// Where the policy as shipped sits among the sets answers "are my
	// numbers good?"; only the Pareto plot ringed it.
	for _, r := range rep.Sets {
		if atDefaults(rep, r.Params) {
			sets.Notes = append(sets.Notes, fmt.Sprintf("set %d (%s) is %s's defaults", r.Set, paramText(r), rep.Policy))
		}
	}
	tables := []*report.Table{sets}
	if perSession {
		cols := []report.Column{report.NumCol("set")}
		for _, ax := range rep.Grid {
			cols = append(cols, report.TextCol(ax.Name))
		}
		cols = append(cols, report.TextCol("session"))
		mc := csvUSDColumns(pickColumns(metricColumns(rep.Rows, rep.Policy), columns), format)
		for _, m := range mc {
			cols = append(cols, report.NumCol(m))
		}
		t := report.NewTable("Per session", cols...)
		notes := newUSDNotes(usdRows(rep.Rows))
		for _, r := range rep.Rows {
			cells := []report.Cell{report.Int(r.Set)}
			for _, p := range r.Params {
				cells = append(cells, report.Str(p.Value))
			}
			cells = append(cells, report.Str(r.Session))
			mcells := metricCells(mc, r.Metrics)
			notes.mark(mc, mcells, usdRow{r.Metrics, r.UnpricedModels})
			cells = append(cells, mcells...)
			t.AddRow(cells...)
		}
		t.Notes = notes.notes(mc)
		tables = append(tables, t)
	}
	return tables
}

func sweepCells(r sweep.Row, rep *sweep.Report, mcols []string, notes *usdNotes) []report.Cell {
	cells := []report.Cell{report.Int(r.Set)}
	for _, p := range r.Params {
		cells = append(cells, report.Str(p.Value))
	}
	mcells := metricCells(mcols, r.Metrics)
	notes.mark(mcols, mcells, usdRow{r.Metrics, r.UnpricedModels})
	cells = append(cells, mcells...)
	if len(rep.View.Pareto) == 2 {
		mark := ""
		if r.Pareto {
			mark = "*"
		}
		cells = append(cells, report.Str(mark))
	}
	return cells
}

// usdRows are sweep rows as usdNotes reads them.
func usdRows(rows []sweep.Row) []usdRow {
	out := make([]usdRow, len(rows))
	for i, r := range rows {
		out[i] = usdRow{r.Metrics, r.UnpricedModels}
	}
	return out
}
