package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// paretoCases are Pareto charts whose labels once touched or covered
// something: the real-logs sweep (one front point labeled with four sets,
// a grey set just above and to its right), the demo sweep (front labels
// near other sets), compare's cost-loss scatter (a front point with grey
// ones beside it) and a front labeled on every point, close together.
var paretoCases = []struct {
	name string
	c    Pareto
}{
	{"real sweep", Pareto{Title: "Pareto front: billed_tokens vs results_lost", XLabel: "billed_tokens", YLabel: "results_lost",
		FrontName: "Pareto front, labeled keep_value, trigger_at", MarkName: "defaults (40000, 148500)", IntegerY: true,
		Points: []ParetoPoint{
			{X: 8.86e6, Y: 0, Front: true, Label: "10000, 180000"}, {X: 8.86e6, Y: 0, Front: true, Label: "20000, 180000"},
			{X: 8.86e6, Y: 0, Front: true, Label: "40000, 180000"}, {X: 8.86e6, Y: 0, Front: true, Label: "80000, 180000"},
			{X: 9.35e6, Y: 3}, {X: 10.0e6, Y: 6}, {X: 11.13e6, Y: 31, Marked: true}, {X: 11.28e6, Y: 31},
			{X: 11.6e6, Y: 66}, {X: 11.6e6, Y: 59}, {X: 12.39e6, Y: 71}, {X: 12.77e6, Y: 61}}}},
	{"demo sweep", Pareto{Title: "Pareto front: tokens_sent vs results_lost", XLabel: "tokens_sent", YLabel: "results_lost",
		FrontName: "Pareto front", MarkName: "defaults (0.8, 3)", IntegerY: true,
		Points: []ParetoPoint{{X: 7401675, Y: 4, Front: true, Label: "0.6, 3"}, {X: 7939380, Y: 2, Front: true, Label: "0.6, 1"},
			{X: 8143747, Y: 6}, {X: 8137237, Y: 2}, {X: 8629142, Y: 7, Marked: true}, {X: 8634947, Y: 7},
			{X: 8702985, Y: 3}, {X: 8966169, Y: 2}}}},
	{"compare", Pareto{Title: "Cost against loss", XLabel: "billed_tokens", YLabel: "results_lost", FrontName: "front", IntegerY: true,
		Points: []ParetoPoint{{X: 1.45e6, Y: 20, Front: true, Label: "aider"}, {X: 1.68e6, Y: 3, Front: true, Label: "codex"},
			{X: 1.73e6, Y: 0, Front: true, Label: "gemini-cli"}, {X: 1.8e6, Y: 3}, {X: 1.85e6, Y: 1}, {X: 1.85e6, Y: 0},
			{X: 2.02e6, Y: 7}, {X: 2.18e6, Y: 3}, {X: 2.51e6, Y: 2}, {X: 2.69e6, Y: 16}, {X: 3.39e6, Y: 15}, {X: 3.49e6, Y: 8}}}},
	// compare as it is drawn now: every policy labeled, the front's first
	// (the figures of `calib compare --demo`).
	{"compare labeled", Pareto{Title: "Cost against loss", XLabel: "billed_tokens", YLabel: "results_lost", FrontName: "front",
		RestName: "beaten", LabelRest: true, IntegerY: true,
		Points: []ParetoPoint{{X: 1.68e6, Y: 21, Front: true, Label: "aider"}, {X: 1.85e6, Y: 3, Front: true, Label: "codex"},
			{X: 1.90e6, Y: 0, Front: true, Label: "gemini-cli"}, {X: 1.97e6, Y: 3, Label: "goose"}, {X: 2.02e6, Y: 1, Label: "cline"},
			{X: 2.01e6, Y: 0, Label: "openhands"}, {X: 2.19e6, Y: 7, Label: "smith-staged"}, {X: 2.36e6, Y: 3, Label: "smith-legacy"},
			{X: 2.68e6, Y: 2, Label: "claude-code"}, {X: 3.49e6, Y: 24, Label: "opencode"}, {X: 3.82e6, Y: 22, Label: "swe-agent"},
			{X: 3.65e6, Y: 8, Label: "anthropic-context-editing"}, {X: 3.65e6, Y: 8, Label: "twin"}}}},
	{"dense front", Pareto{Title: "dense", XLabel: "x", YLabel: "y", FrontName: "front", Points: func() []ParetoPoint {
		var pts []ParetoPoint
		for i := range 12 {
			pts = append(pts, ParetoPoint{X: float64(i), Y: 12 - float64(i), Front: true, Label: fmt.Sprintf("set %d, long name", i)},
				ParetoPoint{X: float64(i) + 0.3, Y: 12.5 - float64(i)})
		}
		return pts
	}()}},
}

// TestParetoLabelsClear draws each case (as a PNG, at the size calib
// writes) and checks where its front labels went, in canvas points: each
// inside the plot's data area, at least labelGap from every point's glyph
// (its own included) and from the front line, and apart from every other
// label. Computed from the drawn geometry, not by looking.
func TestParetoLabelsClear(t *testing.T) {
	for _, tt := range paretoCases {
		var rects []vg.Rectangle
		var obs labelObstacles
		var bounds vg.Rectangle
		tt.c.placed = func(r []vg.Rectangle, o labelObstacles, b vg.Rectangle) { rects, obs, bounds = r, o, b }
		ch, err := tt.c.Plot()
		if err != nil {
			t.Fatal(err)
		}
		if err := WritePNG(io.Discard, ch); err != nil {
			t.Fatal(err)
		}
		if len(rects) == 0 {
			t.Fatalf("%s: no front label drawn", tt.name)
		}
		drawn := len(tt.c.Points) - dupFront(tt.c.Points)
		if tt.c.LabelRest {
			// The other points are labeled too, one label per place.
			drawn -= dupRest(tt.c.Points)
			if len(rects) != drawn {
				t.Errorf("%s: %d labels, want one per point drawn (%d)", tt.name, len(rects), drawn)
			}
		}
		if len(obs.discs) != drawn {
			t.Errorf("%s: %d points kept clear of, want every drawn point (%d)", tt.name, len(obs.discs), drawn)
		}
		for i, r := range rects {
			if r.Min.X < bounds.Min.X || r.Min.Y < bounds.Min.Y || r.Max.X > bounds.Max.X || r.Max.Y > bounds.Max.Y {
				t.Errorf("%s: label %d at %v leaves the data area %v", tt.name, i, r, bounds)
			}
			for _, d := range obs.discs {
				nx := math.Min(math.Max(float64(d.C.X), float64(r.Min.X)), float64(r.Max.X))
				ny := math.Min(math.Max(float64(d.C.Y), float64(r.Min.Y)), float64(r.Max.Y))
				if dist := math.Hypot(float64(d.C.X)-nx, float64(d.C.Y)-ny); dist < float64(d.R+labelGap) {
					t.Errorf("%s: label %d at %v is %.1f pt from the centre of a point of radius %v", tt.name, i, r, dist, d.R)
				}
			}
			for _, s := range obs.segs {
				for k := 0.0; k <= 200; k++ { // sample the segment
					x := float64(s.A.X) + (float64(s.B.X)-float64(s.A.X))*k/200
					y := float64(s.A.Y) + (float64(s.B.Y)-float64(s.A.Y))*k/200
					if x > float64(r.Min.X-labelGap) && x < float64(r.Max.X+labelGap) && y > float64(r.Min.Y-labelGap) && y < float64(r.Max.Y+labelGap) {
						t.Errorf("%s: label %d at %v crosses the front line at (%.1f, %.1f)", tt.name, i, r, x, y)
						break
					}
				}
			}
			for j, q := range rects[:i] {
				if r.Min.X < q.Max.X && q.Min.X < r.Max.X && r.Min.Y < q.Max.Y && q.Min.Y < r.Max.Y {
					t.Errorf("%s: labels %d and %d overlap (%v, %v)", tt.name, j, i, q, r)
				}
			}
		}
	}
}

// dupFront counts front points drawn on top of an earlier one (same two
// metrics): they share one disc and one label.
func dupFront(pts []ParetoPoint) int { return dups(pts, true) }

// dupRest is dupFront for the other points, which share a disc and a
// label when they are labeled (LabelRest).
func dupRest(pts []ParetoPoint) int { return dups(pts, false) }

func dups(pts []ParetoPoint, front bool) int {
	seen, n := map[[2]float64]bool{}, 0
	for _, p := range pts {
		if p.Front != front {
			continue
		}
		k := [2]float64{p.X, p.Y}
		if seen[k] {
			n++
		}
		seen[k] = true
	}
	return n
}

// TestParetoLabelRest: with LabelRest every other point gets its label,
// in grey, and points sharing a place share one; without it they get none.
func TestParetoLabelRest(t *testing.T) {
	var c Pareto
	for _, tt := range paretoCases {
		if tt.name == "compare labeled" {
			c = tt.c
		}
	}
	svg := func(c Pareto) string { ch, err := c.Plot(); return svgText(t, ch, err) }
	const grey = "fill:#666666\">"
	got := svg(c)
	for _, want := range []string{grey + "swe-agent</text>", grey + "anthropic-context-editing | twin</text>", "font-size:8px\">aider</text>"} {
		if !strings.Contains(got, want) {
			t.Errorf("LabelRest: the SVG has no %q", want)
		}
	}
	c.LabelRest = false
	if got := svg(c); strings.Contains(got, "swe-agent") || !strings.Contains(got, "font-size:8px\">aider</text>") {
		t.Error("without LabelRest: only the front is labeled, in black")
	}
}
