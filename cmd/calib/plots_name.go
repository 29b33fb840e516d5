package main

import "github.com/calib-dev/calib/report"

// sessionPlotName is the file name (without extension) of a plot about one
// session: the command, the session's id and what the plot shows
// ("replay-<id>-context"). Every per-session plot is named here, so that
// telling apart two inputs with the same session id is one change.
func sessionPlotName(command, id, what string) string {
	return command + "-" + id + "-" + what
}

// namedChart is a chart description of package report (LineChart,
// StackedBars, ...) and the name its figure is saved under.
type namedChart struct {
	name  string
	chart interface{ Plot() (report.Chart, error) }
}

// appendFigures plots each chart in order and appends its figure to figs;
// the first chart that cannot be drawn stops it.
func appendFigures(figs []report.Figure, charts ...namedChart) ([]report.Figure, error) {
	for _, c := range charts {
		p, err := c.chart.Plot()
		if err != nil {
			return nil, err
		}
		figs = append(figs, report.Figure{Name: c.name, Chart: p})
	}
	return figs, nil
}
