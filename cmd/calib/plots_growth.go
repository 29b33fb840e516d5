package main

import (
	"fmt"
	"sort"

	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/report"
)

// maxChainLines is how many chains the growth charts draw one line each
// for; with more, each variant becomes one median line with a band from
// the smallest to the largest chain, so the legend stays short and
// colours never repeat.
const maxChainLines = 4

// growthFigures draws the digest chain: digest bytes per rotation with the
// budget, preamble nesting per rotation, and for each chain the
// composition of the head a fresh CLI session is seeded with (stacked
// preamble copies vs content).
func growthFigures(out growthJSON) ([]report.Figure, error) {
	var chains []growthSessionJSON
	for _, s := range out.Sessions {
		if len(s.Rotations) > 0 {
			chains = append(chains, s)
		}
	}
	if len(chains) == 0 {
		return nil, nil
	}
	// Named by sessionNames, so two inputs with the same id are told
	// apart in legends, titles and file names.
	ids := make([]string, len(chains))
	for i, s := range chains {
		ids[i] = s.plotName()
	}
	short := report.ShortIDs(ids)
	note := ""
	if len(chains) > maxChainLines {
		note = " (line: median of the chains, band: min to max)"
	}
	bytes := report.LineChart{Title: "Digest size per rotation" + note, XLabel: "rotation", YLabel: "digest bytes",
		IntegerX: true, ZeroY: true, Markers: true,
		Series: growthSeries(chains, short, func(r metrics.RotationRow) int { return r.DigestBytes })}
	if budget := growthBudget(out); budget > 0 {
		bytes.Refs = []report.RefLine{{Y: float64(budget), Label: "budget " + report.FormatInt(int64(budget)) + " bytes"}}
	}
	nest := report.LineChart{Title: "Preamble nesting per rotation" + note, XLabel: "rotation", YLabel: "copies of the summary preamble (p1)",
		IntegerX: true, IntegerY: true, ZeroY: true, Markers: true,
		Series: growthSeries(chains, short, func(r metrics.RotationRow) int { return r.P1 })}
	charts := []namedChart{{"digest-growth-bytes", bytes}, {"digest-growth-nesting", nest}}
	for i, s := range chains {
		charts = append(charts, namedChart{sessionPlotName("digest-growth", chainName(s.plotName(), s.Variant), "cli-head"), cliHeadBars(s, short[i])})
	}
	return appendFigures(nil, charts...)
}

// growthBudget is the digest budget the chains were held to, as their
// digests carry it (0: none). With --variants every chain has the same
// one; should they differ, the largest is drawn.
func growthBudget(out growthJSON) int {
	budget := 0
	for _, s := range out.Sessions {
		for _, r := range s.Rotations {
			budget = max(budget, r.Budget)
		}
	}
	return budget
}

func chainName(id, variant string) string {
	if variant == "" {
		return id
	}
	return id + " " + variant
}

// growthSeries is one line per chain when there are few, otherwise one
// per variant: the median over the chains at each rotation, with a band
// from their minimum to their maximum.
func growthSeries(chains []growthSessionJSON, short []string, val func(metrics.RotationRow) int) []report.Series {
	if len(chains) <= maxChainLines {
		var out []report.Series
		for i, s := range chains {
			var x, y []float64
			for _, r := range s.Rotations {
				x, y = append(x, float64(r.Rotation)), append(y, float64(val(r)))
			}
			out = append(out, report.Series{Name: chainName(short[i], s.Variant), X: x, Y: y})
		}
		return out
	}
	var variants []string
	byVariant := map[string]map[int][]float64{}
	count := map[string]int{}
	for _, s := range chains {
		if byVariant[s.Variant] == nil {
			byVariant[s.Variant] = map[int][]float64{}
			variants = append(variants, s.Variant)
		}
		count[s.Variant]++
		for _, r := range s.Rotations {
			byVariant[s.Variant][r.Rotation] = append(byVariant[s.Variant][r.Rotation], float64(val(r)))
		}
	}
	var out []report.Series
	for _, v := range variants {
		rots := make([]int, 0, len(byVariant[v]))
		for r := range byVariant[v] {
			rots = append(rots, r)
		}
		sort.Ints(rots)
		s := report.Series{Name: fmt.Sprintf("%s (%d chains)", nonEmpty(v, "all"), count[v])}
		for _, r := range rots {
			vals := byVariant[v][r]
			sort.Float64s(vals)
			s.X = append(s.X, float64(r))
			s.Y = append(s.Y, median(vals))
			s.Low = append(s.Low, vals[0])
			s.High = append(s.High, vals[len(vals)-1])
		}
		out = append(out, s)
	}
	return out
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// median of sorted values.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// cliHeadBars is one bar per rotation of a chain: the bytes of the head a
// fresh CLI session is seeded with, split into stacked preamble copies and
// content.
func cliHeadBars(s growthSessionJSON, short string) report.StackedBars {
	head := report.StackedBars{Title: chainName(short, s.Variant) + ": what the CLI head is made of",
		CategoryLabel: "rotation", ValueLabel: "bytes of the seeded head", IntegerValues: true}
	pre := report.Stack{Name: "stacked preamble copies"}
	content := report.Stack{Name: "content"}
	for _, r := range s.Rotations {
		head.Categories = append(head.Categories, fmt.Sprint(r.Rotation))
		pre.Values = append(pre.Values, float64(r.CLIHeadPreamble))
		content.Values = append(content.Values, float64(max(0, r.CLIHeadBytes-r.CLIHeadPreamble)))
	}
	head.Stacks = []report.Stack{pre, content}
	return head
}
