package report

import (
	"fmt"
	"math"

	"bytes"
	"gonum.org/v1/plot"
	"strings"
	"testing"
)

// svgText renders c as SVG, where every legend entry is a text element.
func svgText(t *testing.T, c Chart, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteSVG(&b, c); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestParetoMark: the ring around the marked set (the policy's defaults)
// has its legend entry only when a point is marked and MarkName says what
// it is.
func TestParetoMark(t *testing.T) {
	pts := func(marked bool) []ParetoPoint {
		return []ParetoPoint{{X: 1, Y: 4, Label: "0.6, 3", Front: true}, {X: 3, Y: 7, Label: "0.8, 3", Marked: marked}}
	}
	tests := []struct {
		name     string
		markName string
		marked   bool
		want     bool
	}{
		{"marked and named", "smith-staged defaults (0.8, 3)", true, true},
		{"defaults not in the grid", "smith-staged defaults (0.8, 3)", false, false},
		{"no name", "", true, false},
	}
	for _, tt := range tests {
		c, err := Pareto{Title: "front", XLabel: "tokens_sent", YLabel: "results_lost", FrontName: "Pareto front",
			MarkName: tt.markName, Points: pts(tt.marked)}.Plot()
		got := strings.Contains(svgText(t, c, err), ">smith-staged defaults (0.8, 3)<")
		if got != tt.want {
			t.Errorf("%s: legend names the defaults: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestTimelineSeenWhole: the thin grey line (the result before it was
// hidden) is named in the legend, beside the fates, when some result was
// seen whole for at least a request.
func TestTimelineSeenWhole(t *testing.T) {
	x, ctx := []float64{0, 1, 2, 3}, []float64{0, 10, 20, 30}
	for _, tt := range []struct {
		name string
		life Life
		want bool
	}{
		{"seen, then hidden", Life{Arrived: 0, Hidden: 2, Needed: -1, Refetched: -1}, true},
		{"hidden on arrival (unseen)", Life{Arrived: 2, Hidden: 2, Needed: 3, Refetched: -1, Lost: true}, false},
	} {
		c, err := Timeline{Title: "t", X: x, Context: ctx, Lives: []Life{tt.life}}.Plot()
		s := svgText(t, c, err)
		if got := strings.Contains(s, ">seen whole<"); got != tt.want {
			t.Errorf("%s: legend has \"seen whole\": %v, want %v", tt.name, got, tt.want)
		}
	}
}

// wholeTicks fails t if the axis ticks any fractional value over its range.
func wholeTicks(t *testing.T, name string, a plot.Axis) {
	t.Helper()
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if tk.Value != math.Trunc(tk.Value) {
			t.Errorf("%s: tick at %v (label %q) on a count axis", name, tk.Value, tk.Label)
		}
	}
}

// TestIntegerAxes: a Pareto chart of results lost (2 to 7, the demo
// sweep's) and a line chart of preamble copies tick whole numbers only,
// as the charts are drawn (their own axis ranges, margins included).
func TestIntegerAxes(t *testing.T) {
	pc, err := Pareto{Title: "front", XLabel: "cache_breaks", YLabel: "results_lost", FrontName: "front", IntegerX: true, IntegerY: true,
		Points: []ParetoPoint{{X: 1, Y: 4, Front: true, Label: "a"}, {X: 2, Y: 2, Front: true, Label: "b"}, {X: 20, Y: 7}}}.Plot()
	if err != nil {
		t.Fatal(err)
	}
	wholeTicks(t, "pareto x", pc.plot.X)
	wholeTicks(t, "pareto y", pc.plot.Y)
	lc, err := LineChart{Title: "nesting", XLabel: "rotation", YLabel: "copies", IntegerX: true, IntegerY: true,
		Series: []Series{{Name: "legacy", X: []float64{1, 2, 20}, Y: []float64{1, 2, 20}}}}.Plot()
	if err != nil {
		t.Fatal(err)
	}
	wholeTicks(t, "line x", lc.plot.X)
	wholeTicks(t, "line y", lc.plot.Y)
}

// TestFlatData: one point, or points all equal, give the axis a span of its
// own (the point inside it, not on an edge, with a few short round tick
// labels, not 0.00000000005), and a lone point on a line chart gets a glyph
// (a one-point line draws nothing).
func TestFlatData(t *testing.T) {
	checkAxis := func(name string, a plot.Axis, v float64) {
		t.Helper()
		if f := (v - a.Min) / (a.Max - a.Min); !(f > 0.05 && f < 0.95) {
			t.Errorf("%s: %v at %.2f of the axis [%v, %v]", name, v, f, a.Min, a.Max)
		}
		n := 0
		for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
			if tk.Label == "" {
				continue
			}
			n++
			if len(tk.Label) > 9 {
				t.Errorf("%s: tick label %q", name, tk.Label)
			}
		}
		if n == 0 {
			t.Errorf("%s: no labeled tick on [%v, %v]", name, a.Min, a.Max)
		}
	}
	for _, pt := range []ParetoPoint{{X: 1000, Y: 3}, {X: 0, Y: 0}, {X: 0.0012, Y: 7.4e6}} {
		pt.Front, pt.Label = true, "a"
		c, err := Pareto{Title: "one set", XLabel: "x", YLabel: "y", FrontName: "front", IntegerY: pt.Y == 3, Points: []ParetoPoint{pt, pt}}.Plot()
		if err != nil {
			t.Fatal(err)
		}
		checkAxis(fmt.Sprintf("pareto x %v", pt.X), c.plot.X, pt.X)
		checkAxis(fmt.Sprintf("pareto y %v", pt.Y), c.plot.Y, pt.Y)
	}
	c, err := LineChart{Title: "flat", XLabel: "request", YLabel: "tokens", IntegerX: true,
		Series: []Series{{Name: "sent", X: []float64{0, 1, 2}, Y: []float64{5000, 5000, 5000}}}}.Plot()
	if err != nil {
		t.Fatal(err)
	}
	checkAxis("flat line y", c.plot.Y, 5000)
	c, err = LineChart{Title: "one request", XLabel: "request", YLabel: "tokens", IntegerX: true, ZeroY: true,
		Series: []Series{{Name: "sent", X: []float64{0}, Y: []float64{1234}}}}.Plot()
	svg := svgText(t, c, err)
	// The ring glyph is the only arc in this chart: one on the plot, one in
	// the legend's thumbnail.
	if n := strings.Count(svg, "A"); n < 2 {
		t.Errorf("one-point line chart: %d arcs drawn, want the point's glyph on the plot and in the legend", n)
	}
}

// TestBarsIntegerValues: one tool call (the smallest count) on bars of
// either orientation ticks 0 and 1, not 0.2, 0.4, ….
func TestBarsIntegerValues(t *testing.T) {
	for _, cat := range []string{"s", "0a725fb5/sidechain-1"} { // short: vertical bars; long: horizontal
		c, err := StackedBars{Title: "Tool calls", CategoryLabel: "session", ValueLabel: "calls", IntegerValues: true,
			Categories: []string{cat}, Stacks: []Stack{{Name: "Read", Values: []float64{1}}}}.Plot()
		if err != nil {
			t.Fatal(err)
		}
		wholeTicks(t, "bars y "+cat, c.plot.Y)
		wholeTicks(t, "bars x "+cat, c.plot.X)
	}
}
