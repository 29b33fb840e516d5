package main

import (
	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/report"
)

// metricJSON is one registry entry as `calib metrics --format json` prints it.
type metricJSON struct {
	Name     string `json:"name"`
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
		Short: "List the metrics sweep and merge report, sort and plot by",
		Long: `List every metric a sweep or merge can report: its unit, how it combines
over the sessions of a parameter set (sum, max, or ratio: a rate over all
events, from the summed numerator and denominator), whether lower or higher
is better (what --sort and --pareto rank by), its display precision, what
it needs (--compare-recorded, a rotation policy) and what it means.`,
		Example: `  calib metrics
  calib metrics --format json`,
		GroupID: groupAnalysis,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			t := report.NewTable("Metrics (sweep, merge: --sort, --pareto, --plot-metric)",
				report.TextCol("metric"), report.TextCol("unit"), report.TextCol("combine"), report.TextCol("better"),
				report.NumCol("decimals"), report.TextCol("needs"), report.TextCol("meaning"))
			out := struct {
				Metrics []metricJSON `json:"metrics"`
			}{Metrics: []metricJSON{}}
			for _, m := range metrics.Registry() {
				j := metricJSON{Name: m.Name, Unit: string(m.Unit), Combine: string(m.Combine), Better: "lower",
					Decimals: m.Decimals, Needs: string(m.Needs), Meaning: m.Meaning}
				if m.Family {
					j.Name += "<stage>"
				}
				if m.HigherBetter {
					j.Better = "higher"
				}
				if m.Combine == metrics.Ratio {
					j.Combine = "ratio " + m.Num + " / " + m.Den
				}
				out.Metrics = append(out.Metrics, j)
				t.AddRow(report.Str(j.Name), report.Str(j.Unit), report.Str(j.Combine), report.Str(j.Better),
					report.Int(j.Decimals), report.Str(j.Needs), report.Str(j.Meaning))
			}
			return a.write(report.Doc{JSON: out, Tables: []*report.Table{t}})
		},
	}
}
