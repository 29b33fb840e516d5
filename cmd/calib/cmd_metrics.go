package main

import (
	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/report"
)

// metricJSON is one registry entry as `calib metrics --format json` prints it.
type metricJSON struct {
	Name     string `json:"name"`
	Label    string `json:"label"`
	Unit     string `json:"unit"`
	Combine  string `json:"combine"`
	Better   string `json:"better"`
	Decimals int    `json:"decimals"`
	Needs    string `json:"needs,omitempty"`
	Meaning  string `json:"meaning"`
}

func newMetricsCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "metrics",
		Short: "List the metrics replay, digest-growth, sweep and merge report",
		Long: `List every metric replay, digest-growth, sweep or merge can report (each
table's metric columns, in this order): its unit, how it combines
over the sessions of a parameter set (sum, max, or ratio: a rate over all
events, from the summed numerator and denominator), whether lower or higher
is better (what --sort and --pareto rank by), its display precision, what
it needs (--compare-recorded, a rotation policy) and what it means.
Sweep and merge head their columns with the metric's name (what --sort,
--pareto and --plot-metric take), replay and digest-growth with its label.`,
		Example: `  calib metrics
  calib metrics --format json`,
		GroupID: groupAnalysis,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			t := report.NewTable("Metrics (replay and digest-growth columns are headed by the label; sweep, merge, --sort, --pareto and --plot-metric take the name)",
				report.TextCol("metric"), report.TextCol("label"), report.TextCol("unit"), report.TextCol("combine"), report.TextCol("better"),
				report.NumCol("decimals"), report.TextCol("needs"), report.TextCol("meaning"))
			out := struct {
				Metrics []metricJSON `json:"metrics"`
			}{Metrics: []metricJSON{}}
			for _, m := range metrics.Registry() {
				j := metricJSON{Name: m.Name, Label: m.Header(m.Name), Unit: string(m.Unit), Combine: string(m.Combine), Better: "lower",
					Decimals: m.Decimals, Needs: string(m.Needs), Meaning: m.Meaning}
				if m.Family {
					j.Name += "<stage>"
					j.Label = "<stage>"
				}
				if m.HigherBetter {
					j.Better = "higher"
				}
				if m.Combine == metrics.Ratio {
					j.Combine = "ratio " + m.Num + " / " + m.Den
				}
				out.Metrics = append(out.Metrics, j)
				t.AddRow(report.Str(j.Name), report.Str(j.Label), report.Str(j.Unit), report.Str(j.Combine), report.Str(j.Better),
					report.Int(j.Decimals), report.Str(j.Needs), report.Str(j.Meaning))
			}
			return a.write(report.Doc{JSON: out, Tables: []*report.Table{t}})
		},
	}
}
