package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/sweep"
	"github.com/calib-dev/calib/report"
)

// cmdPlotfiles is `plotfiles DIR N`: DIR holds exactly N files and each is
// a PNG or SVG that decodes and has the default plot size
// (report.CheckPlotFile), so a script's "the plots were written" means
// readable images, not just a folder.
func cmdPlotfiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: plotfiles DIR N")
	}
	want, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("plotfiles: %q is not a number", args[1])
	}
	entries, err := os.ReadDir(ts.MkAbs(args[0]))
	ts.Check(err)
	if len(entries) != want {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		ts.Fatalf("plotfiles: %d files in %s, want %d: %v", len(entries), args[0], want, names)
	}
	for _, e := range entries {
		ts.Check(report.CheckPlotFile(filepath.Join(ts.MkAbs(args[0]), e.Name())))
	}
}

// contextTrace is a session of 10 requests with one compaction at request
// 6 whose outcome is o.
func contextTrace(o policy.Outcome) *replay.Trace {
	t := &replay.Trace{Session: &corpus.Session{ID: "0a725fb5-6378-432a-9e84-9f3f49d4043d"}, Policy: "p"}
	for i := range 10 {
		t.Requests = append(t.Requests, replay.Request{Index: i, Tokens: 1000 * i, Sent: 1000 * i, Context: 1000 * i, ContextBefore: 1000 * i, Event: -1})
	}
	o.Strategy = policy.Truncated
	t.Events = []replay.Event{{Request: 6, Outcome: o}}
	return t
}

// TestContextChartUnits: trigger and target are drawn only in context
// tokens. clear-tool-results counting result tokens has neither line; a
// trigger equal to its target is one line; smith's differing trigger and
// target are two.
func TestContextChartUnits(t *testing.T) {
	tests := []struct {
		name string
		o    policy.Outcome
		want []string
	}{
		{"result tokens", policy.Outcome{TriggerTokens: 40000, TargetTokens: 40000, TriggerUnit: "result tokens"}, nil},
		{"results", policy.Outcome{TriggerTokens: 30, TargetTokens: 30, TriggerUnit: "results"}, nil},
		{"context, no target", policy.Outcome{TriggerTokens: 100000, TargetTokens: 100000}, []string{"trigger 100,000"}},
		{"smith", policy.Outcome{TriggerTokens: 96000, TargetTokens: 60000}, []string{"trigger 96,000", "target 60,000"}},
	}
	for _, tt := range tests {
		c := contextChart(contextTrace(tt.o), "0a725fb5")
		var got []string
		for _, r := range c.Refs {
			got = append(got, r.Label)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: reference lines %q, want %q", tt.name, got, tt.want)
		}
		if c.Title != "0a725fb5: context per request (p)" || c.EventName != "compaction (T truncated)" {
			t.Errorf("%s: title %q, events %q", tt.name, c.Title, c.EventName)
		}
	}
}

// TestContextChartEveryTrigger: each trigger the compactions report is
// drawn once, in the order they first occur: claude-code's clears cross
// microcompact's trigger, its summaries auto-compaction's.
func TestContextChartEveryTrigger(t *testing.T) {
	tr := contextTrace(policy.Outcome{TriggerTokens: 148500, TargetTokens: 148500})
	clear2 := policy.Outcome{Strategy: policy.Truncated, TriggerTokens: 148500, TargetTokens: 148500}
	summary := policy.Outcome{Strategy: policy.Summarized, TriggerTokens: 167000, TargetTokens: 167000}
	tr.Events = append(tr.Events, replay.Event{Request: 7, Outcome: clear2}, replay.Event{Request: 8, Outcome: summary})
	var got []string
	for _, r := range contextChart(tr, "0a725fb5").Refs {
		got = append(got, r.Label)
	}
	if want := []string{"trigger 148,500", "trigger 167,000"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reference lines %q, want %q", got, want)
	}
}

func sweepReport(grid ...sweep.Axis) *sweep.Report {
	rep := &sweep.Report{Header: sweep.Header{Policy: "clai-rotation", Grid: grid}}
	for i, v := range grid[0].Values {
		rep.Sets = append(rep.Sets, sweep.Row{Set: i, Params: policy.Params{{Name: grid[0].Name, Value: v}},
			Metrics: map[string]float64{"tokens_sent": float64(1000 - i), "results_mangled": float64(i)}, Pareto: true})
	}
	return rep
}

// TestSweepLineAxis: a parameter with values that are not numbers gets a
// categorical axis (0, 1 labeled legacy, fixed), a numeric one its values.
func TestSweepLineAxis(t *testing.T) {
	rep := sweepReport(sweep.Axis{Name: "variant", Values: []string{"legacy", "fixed"}})
	figs, err := sweepFigures(rep, "tokens_sent")
	if err != nil || len(figs) != 1 || figs[0].Name != "sweep-tokens_sent-by-variant" {
		t.Fatalf("figures %v, err %v", figs, err)
	}
	c := sweepLine(rep, "tokens_sent", setValues(rep, "tokens_sent"))
	if fmt.Sprint(c.Categories) != "[legacy fixed]" || fmt.Sprint(c.Series[0].X) != "[0 1]" {
		t.Errorf("categorical: categories %v, x %v", c.Categories, c.Series[0].X)
	}
	num := sweepReport(sweep.Axis{Name: "compact_at", Values: []string{"0.6", "0.7"}})
	c = sweepLine(num, "tokens_sent", setValues(num, "tokens_sent"))
	if c.Categories != nil || fmt.Sprint(c.Series[0].X) != "[0.6 0.7]" {
		t.Errorf("numeric: categories %v, x %v", c.Categories, c.Series[0].X)
	}
	// A count ticks at whole numbers (results_lost ran 4.0, 4.5, ... 7.0),
	// a fraction does not.
	if !sweepLine(num, "results_lost", setValues(num, "results_lost")).IntegerY || sweepLine(num, "cache_hit_rate", setValues(num, "cache_hit_rate")).IntegerY {
		t.Error("IntegerY: want it for results_lost, not for cache_hit_rate")
	}
}

// TestParetoChartLabels: front points carry their set's values; the
// legend names the parameters.
func TestParetoChartLabels(t *testing.T) {
	rep := sweepReport(sweep.Axis{Name: "variant", Values: []string{"legacy", "fixed"}})
	rep.View.Pareto = []string{"tokens_sent", "results_mangled"}
	rep.Sets[1].Pareto = false
	c := paretoChart(rep)
	if c.FrontName != "Pareto front, labeled variant" || len(c.Points) != 2 || c.Points[0].Label != "legacy" || !c.Points[0].Front || c.Points[1].Front {
		t.Errorf("pareto chart %+v", c)
	}
}

// TestParetoChartDefaults: the set whose values are the policy's defaults
// (compared normalized, and with the sweep's fixed values) is marked and
// named in the legend; a fixed value off its default marks none.
func TestParetoChartDefaults(t *testing.T) {
	for _, tt := range []struct {
		name   string
		fixed  policy.Params
		marked []bool
		legend string
	}{
		{"defaults in the grid", nil, []bool{false, true}, "smith-staged defaults (0.80, 3)"},
		{"fixed off default", policy.Params{{Name: "window_turns", Value: "1"}}, []bool{false, false}, ""},
		{"fixed at default", policy.Params{{Name: "window_turns", Value: "3"}}, []bool{false, true}, "smith-staged defaults (0.80, 3)"},
	} {
		rep := &sweep.Report{Header: sweep.Header{Policy: "smith-staged", Fixed: tt.fixed,
			Grid: sweep.Grid{{Name: "compact_at", Values: []string{"0.6", "0.80"}}}}}
		rep.View.Pareto = []string{"tokens_sent", "results_lost"}
		for i, v := range []string{"0.6, 3", "0.80, 3"} {
			ca, wt, _ := strings.Cut(v, ", ")
			rep.Sets = append(rep.Sets, sweep.Row{Set: i, Params: policy.Params{{Name: "compact_at", Value: ca}, {Name: "window_turns", Value: wt}},
				Metrics: map[string]float64{"tokens_sent": float64(1000 + i), "results_lost": float64(i)}})
		}
		c := paretoChart(rep)
		if !c.IntegerX || !c.IntegerY {
			t.Errorf("%s: tokens_sent and results_lost are counts, but IntegerX %v, IntegerY %v", tt.name, c.IntegerX, c.IntegerY)
		}
		var marked []bool
		for _, p := range c.Points {
			marked = append(marked, p.Marked)
		}
		if fmt.Sprint(marked) != fmt.Sprint(tt.marked) || c.MarkName != tt.legend {
			t.Errorf("%s: marked %v, legend %q; want %v, %q", tt.name, marked, c.MarkName, tt.marked, tt.legend)
		}
	}
}

// TestGrowthSeries: up to maxChainLines chains get a line each; more
// become one median line per variant with a min-max band; the budget is a
// reference line with separators.
func TestGrowthSeries(t *testing.T) {
	chain := func(id, variant string, sizes ...int) growthSessionJSON {
		s := growthSessionJSON{Variant: variant}
		s.ID = id
		for i, b := range sizes {
			s.Rotations = append(s.Rotations, metrics.RotationRow{Rotation: i + 1, DigestBytes: b, P1: i + 1, Budget: 96000})
		}
		return s
	}
	// The budget comes from the chains' digests, not from a parameter
	// read by name: the report's policy carries a different one.
	out := growthJSON{Policy: policyRef{Params: policy.Params{{Name: "budget", Value: "5000"}}}}
	for i := range 3 {
		out.Sessions = append(out.Sessions, chain(fmt.Sprintf("session-17862%05d-abc", i), "legacy", 100*(i+1), 200*(i+1)),
			chain(fmt.Sprintf("session-17862%05d-abc", i), "fixed", 50, 60+i))
	}
	figs, err := growthFigures(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 2+6 {
		t.Fatalf("%d figures", len(figs))
	}
	ids := []string{"session-1786200000-abc", "session-1786200001-abc", "session-1786200002-abc"}
	series := growthSeries(out.Sessions, report.ShortIDs(append(append(ids, ids...), ids...))[:6], func(r metrics.RotationRow) int { return r.DigestBytes })
	if len(series) != 2 {
		t.Fatalf("%d series for 6 chains, want one per variant", len(series))
	}
	lg := series[0]
	if lg.Name != "legacy (3 chains)" || fmt.Sprint(lg.Y) != "[200 400]" || fmt.Sprint(lg.Low) != "[100 200]" || fmt.Sprint(lg.High) != "[300 600]" {
		t.Errorf("legacy series %+v", lg)
	}
	few := growthSeries(out.Sessions[:2], []string{"a", "a"}, func(r metrics.RotationRow) int { return r.P1 })
	var names []string
	for _, s := range few {
		names = append(names, s.Name)
	}
	sort.Strings(names)
	if fmt.Sprint(names) != "[a fixed a legacy]" || few[0].Low != nil {
		t.Errorf("few chains: %v", names)
	}
	if growthBudget(out) != 96000 {
		t.Errorf("budget %d, want the digests' 96000", growthBudget(out))
	}
}

// TestSetValuesThirdParameter: with three swept parameters the charts show
// the sets whose third is at its first value, and say so.
func TestSetValuesThirdParameter(t *testing.T) {
	rep := &sweep.Report{Header: sweep.Header{Policy: "p", Grid: []sweep.Axis{
		{Name: "a", Values: []string{"1"}}, {Name: "b", Values: []string{"2"}}, {Name: "c", Values: []string{"256", "512"}}}}}
	for i, c := range []string{"256", "512"} {
		rep.Sets = append(rep.Sets, sweep.Row{Params: policy.Params{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}, {Name: "c", Value: c}},
			Metrics: map[string]float64{"m": float64(10 + i)}})
	}
	// The 512 set comes last: before, it overwrote the 256 one.
	if got := setValues(rep, "m"); len(got) != 1 || got["[1 2]"] != 10 {
		t.Errorf("setValues = %v, want the c=256 set", got)
	}
	if got := heldParams(rep); got != " at c=256" {
		t.Errorf("heldParams = %q", got)
	}
}

// TestContextChartNeedsTwoRequests: one request is no curve (a lone point
// on an axis from -1 to 1); two are.
func TestContextChartNeedsTwoRequests(t *testing.T) {
	for _, c := range []struct {
		requests int
		want     string
	}{{1, "[]"}, {2, "[replay-s-context]"}} {
		tr := &replay.Trace{Session: &corpus.Session{ID: "s"}, Policy: "smith-staged"}
		for i := range c.requests {
			tr.Requests = append(tr.Requests, replay.Request{Index: i, Context: 100 * (i + 1), ContextBefore: 100 * (i + 1)})
		}
		figs, err := replayFigures(tr, "s")
		var names []string
		for _, f := range figs {
			names = append(names, f.Name)
		}
		if err != nil || fmt.Sprint(names) != c.want {
			t.Errorf("%d request(s): figures %v, %v; want %s", c.requests, names, err, c.want)
		}
	}
}
