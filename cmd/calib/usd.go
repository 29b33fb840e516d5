package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/replay/cache"
	"github.com/calib-dev/calib/replay/sweep"
	"github.com/calib-dev/calib/report"
)

// A usd sum covers only the sessions whose model has a price: an
// unpriced session adds 0 and counts in unpriced_sessions. Tables say so
// rather than show a partial bill as a complete one: usd over some of a
// row's sessions is marked ("1.9731*") with a footnote under the table
// naming the models without a price, and usd over none of them is "-".
// CSV keeps plain numbers and, whenever it shows usd, the
// unpriced_sessions column next to it; JSON rows carry unpriced_sessions
// (and unpriced_models) always.

const (
	usdMetric      = "usd"
	unpricedMetric = "unpriced_sessions"
)

// usdCoverage is how much of a row's sessions its usd covers.
type usdCoverage struct {
	total, unpriced int
	// models are the unpriced sessions' models, sorted; "" is a session
	// that names no model.
	models []string
}

// coverageOf reads a row's coverage from its metrics: sessions (1 for a
// session's own row) and unpriced_sessions. ok is false when usd is
// complete or the row has no usd.
func coverageOf(values map[string]float64, models []string) (usdCoverage, bool) {
	u, ok := values[unpricedMetric]
	if _, has := values[usdMetric]; !ok || !has || u == 0 {
		return usdCoverage{}, false
	}
	total := 1
	if n, ok := values["sessions"]; ok {
		total = int(n)
	}
	return usdCoverage{total: total, unpriced: int(u), models: models}, true
}

// why names what has no price: "model claude-sonnet-5", "models a, b",
// "no model named".
func (c usdCoverage) why() string {
	var named []string
	none := false
	for _, m := range c.models {
		if m == "" {
			none = true
		} else {
			named = append(named, m)
		}
	}
	var parts []string
	switch len(named) {
	case 0:
	case 1:
		parts = append(parts, "model "+named[0])
	default:
		parts = append(parts, "models "+strings.Join(named, ", "))
	}
	if none {
		parts = append(parts, "no model named")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// note is the footnote's text after its marker.
func (c usdCoverage) note() string {
	switch {
	case c.total == 1:
		return fmt.Sprintf("usd unknown: the session has no price%s; %s", c.why(), c.advice())
	case c.unpriced >= c.total:
		return fmt.Sprintf("usd unknown: none of the %d sessions has a price%s; %s", c.total, c.why(), c.advice())
	}
	have := "have"
	if c.unpriced == 1 {
		have = "has"
	}
	return fmt.Sprintf("usd covers %d of %d sessions: the other %d %s no price%s; %s", c.total-c.unpriced, c.total, c.unpriced, have, c.why(), c.advice())
}

// advice says what prices the unpriced sessions: --prices for a model the
// table lacks, --set model=NAME for a session that names none (a price
// file cannot price it, and --prices was all it said).
func (c usdCoverage) advice() string {
	named, none := false, false
	for _, m := range c.models {
		named = named || m != ""
		none = none || m == ""
	}
	switch {
	case none && named:
		return "give prices with --prices, and name the model of a session that names none with --set model=NAME"
	case none:
		return "name its model with --set model=NAME"
	}
	return "give prices with --prices"
}

// usdRow is one table row's metrics and unpriced models.
type usdRow struct {
	values map[string]float64
	models []string
}

// usdNotes marks one table's usd cells. Rows whose usd covers the same
// part (the same footnote) share a marker: "*" when the table has one
// such footnote, "*1", "*2"... in row order when it has several. A usd
// over none of its sessions is "-", explained by footnotes that start
// with "-".
type usdNotes struct {
	marks   map[string]string
	partial []string
	none    []string
}

// newUSDNotes reads every row of a table first, so that markers do not
// depend on what comes later.
func newUSDNotes(rows []usdRow) *usdNotes {
	n := &usdNotes{marks: map[string]string{}}
	for _, r := range rows {
		c, ok := coverageOf(r.values, r.models)
		if !ok {
			continue
		}
		text := c.note()
		if c.unpriced >= c.total {
			if !slices.Contains(n.none, text) {
				n.none = append(n.none, text)
			}
		} else if !slices.Contains(n.partial, text) {
			n.partial = append(n.partial, text)
		}
	}
	for i, text := range n.partial {
		n.marks[text] = "*"
		if len(n.partial) > 1 {
			n.marks[text] = fmt.Sprintf("*%d", i+1)
		}
	}
	return n
}

// mark qualifies the usd cell among cells (the cells of the metric
// columns cols) of a row.
func (n *usdNotes) mark(cols []string, cells []report.Cell, r usdRow) {
	i := slices.Index(cols, usdMetric)
	c, ok := coverageOf(r.values, r.models)
	if i < 0 || !ok {
		return
	}
	if c.unpriced >= c.total {
		cells[i] = cells[i].Dashed()
		return
	}
	cells[i] = cells[i].Marked(n.marks[c.note()])
}

// notes are the footnotes of a table whose metric columns are cols.
func (n *usdNotes) notes(cols []string) []string {
	if !slices.Contains(cols, usdMetric) {
		return nil
	}
	var out []string
	for _, text := range n.partial {
		out = append(out, n.marks[text]+" "+text)
	}
	for _, text := range n.none {
		out = append(out, "- "+text)
	}
	return out
}

// csvUSDColumns adds unpriced_sessions after usd in a CSV's chosen
// columns (nil: every column, which has it already), since CSV cells carry
// no marks: the column says what each usd covers.
func csvUSDColumns(cols []string, f report.Format) []string {
	i := slices.Index(cols, usdMetric)
	if f != report.CSV || i < 0 || slices.Contains(cols, unpricedMetric) {
		return cols
	}
	return slices.Insert(slices.Clone(cols), i+1, unpricedMetric)
}

// usdRanked lists the view's uses of usd as a ranking: --sort,
// --pareto, and --plot-metric when plots are drawn.
func usdRanked(v sweep.View, plotMetric string, plots bool) []string {
	var flags []string
	if slices.Contains(strings.Split(v.Sort, ","), usdMetric) {
		flags = append(flags, "--sort")
	}
	if slices.Contains(v.Pareto, usdMetric) {
		flags = append(flags, "--pareto")
	}
	if plots && plotMetric == usdMetric {
		flags = append(flags, "--plot-metric")
	}
	return flags
}

// refuseUSDRanking refuses to rank parameter sets by a usd that covers
// only some sessions (c): every set would be ranked on the priced sessions
// alone (in the demo the smith sessions, the ones the swept policy acts
// on, have no price, so usd is the same for every set) while the column
// reads as the whole bill. Ranking and marking was the alternative; a
// ranking whose key leaves out the sessions that matter is not one.
func refuseUSDRanking(flags []string, c usdCoverage) error {
	if len(flags) == 0 || c.unpriced == 0 {
		return nil
	}
	effect := fmt.Sprintf("usd would rank the sets on the other %d alone", c.total-c.unpriced)
	if c.unpriced >= c.total {
		effect = "usd is 0 for every set"
	}
	return usageErrorf("%s usd: %d of %d sessions have no price%s, so %s; %s (see README, Prices), or rank by billed_tokens",
		strings.Join(flags, ", "), c.unpriced, c.total, c.why(), effect, c.advice())
}

// coverage is what usd will cover of a corpus before any replay:
// a session's price depends on its model, not on the policy.
func (c *costSetup) coverage(ss []*corpus.Session) usdCoverage {
	cov := usdCoverage{total: len(ss)}
	for _, s := range ss {
		m := cache.ModelOf(s, c.model)
		if _, ok := c.prices.Lookup(m); !ok {
			cov.unpriced++
			if !slices.Contains(cov.models, m) {
				cov.models = append(cov.models, m)
			}
		}
	}
	slices.Sort(cov.models)
	return cov
}
