package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// sampleCharts builds every chart kind calib draws, from fixed data shaped
// like what the commands feed them: long session ids, 54 compactions, a
// categorical parameter, an uneven grid with a NaN cell, a front with two
// sets on one point, ten chains with bands and a budget.
func sampleCharts(t *testing.T) map[string]Chart {
	t.Helper()
	var x, sq, root []float64
	for i := 0; i < 20; i++ {
		x = append(x, float64(i+1))
		sq = append(sq, float64(i*i*1000))
		root = append(root, 1000*math.Sqrt(float64(i)))
	}
	charts := map[string]Chart{}
	add := func(name string, c Chart, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		charts[name] = c
	}
	ids := ShortIDs([]string{"0a725fb5-6378-432a-9e84-9f3f49d4043d", "0a725fb5-6378-432a-9e84-9f3f49d4043d/sidechain-1",
		"session-1786205678-d4e5f6", "session-1786201234-a1b2c3", "9034225e-c367-4ab6-b1eb-1f478a7ae27a"})
	c, err := StackedBars{Title: "Content by role", CategoryLabel: "session", ValueLabel: "KiB", Categories: ids, Stacks: []Stack{
		{Name: "user", Values: []float64{10, 20, 30, 5, 6}},
		{Name: "assistant", Values: []float64{40, 10, 5, 5, 6}},
		{Name: "tool", Values: []float64{100, 0, 50, 5, 6}},
	}}.Plot()
	add("inspect-bars", c, err)

	var cats []string
	summ, thin := make([]float64, 54), make([]float64, 54)
	for i := range 54 {
		cats = append(cats, FormatInt(int64(100+i*37)))
		summ[i], thin[i] = float64(30000+i*100), float64(i%5*500)
	}
	c, err = StackedBars{Title: "0a725fb5: tokens reclaimed per compaction (smith-staged)", CategoryLabel: "compaction at request",
		ValueLabel: "tokens reclaimed", Categories: cats, Stacks: []Stack{{Name: "thinking", Values: thin}, {Name: "summarize", Values: summ}}}.Plot()
	add("reclaim-bars", c, err)

	var events []Event
	for i := 3; i < 20; i += 4 {
		events = append(events, Event{X: float64(i), Label: "S"})
	}
	c, err = LineChart{Title: "0a725fb5: context per request (smith-staged)", XLabel: "request", YLabel: "context tokens",
		IntegerX: true, ZeroY: true, Series: []Series{{Name: "before compaction", X: x, Y: sq}, {Name: "sent", X: x, Y: sq}},
		Refs:   []RefLine{{Y: 96000, Label: "trigger 96,000"}, {Y: 60000, Label: "target 60,000"}},
		Events: events, EventName: "compaction (S summarized)"}.Plot()
	add("context-line", c, err)

	c, err = LineChart{Title: "tokens_sent by variant (clai-rotation)", XLabel: "variant", YLabel: "tokens_sent",
		Categories: []string{"legacy", "fixed"}, Series: []Series{{X: []float64{0, 1}, Y: []float64{2315618, 2314867}}}}.Plot()
	add("sweep-categorical", c, err)

	c, err = LineChart{Title: "tokens_sent by compact_at (smith-staged)", XLabel: "compact_at", YLabel: "tokens_sent", Markers: true,
		Series: []Series{{Name: "window_turns=1", X: []float64{0.6, 0.7, 0.8}, Y: []float64{7.9e6, 8.1e6, 8.7e6}},
			{Name: "window_turns=2", X: []float64{0.6, 0.7, 0.8}, Y: []float64{7.4e6, 8.1e6, 8.7e6}}}}.Plot()
	add("sweep-line", c, err)

	c, err = HeatMap{Title: "tokens_sent over cap × window", XLabel: "cap", YLabel: "window", ValueLabel: "tokens_sent",
		XTicks: []string{"10", "20", "50", "100"}, YTicks: []string{"1", "3"},
		Z: [][]float64{{7401675, 8180178, 8629142, 8966169}, {7456142, math.NaN(), 8771100, 8721390}}, CellPrec: 0}.Plot()
	add("heat-map", c, err)

	c, err = Pareto{Title: "Pareto front: tokens_sent vs results_mangled", XLabel: "tokens_sent", YLabel: "results_mangled",
		FrontName: "Pareto front, labeled compact_at, window_turns", MarkName: "smith-staged defaults (0.8, 3)", Points: []ParetoPoint{
			{X: 7401675, Y: 4, Label: "0.6, 3", Front: true}, {X: 7401675, Y: 4, Label: "0.6, 4", Front: true},
			{X: 8629142, Y: 0, Label: "0.8, 3", Front: true, Marked: true}, {X: 7939380, Y: 43}, {X: 8966169, Y: 39}, {X: 8137237, Y: 4}}}.Plot()
	add("pareto", c, err)

	low, high := make([]float64, len(x)), make([]float64, len(x))
	for i := range x {
		low[i], high[i] = sq[i]*0.5, sq[i]*2
	}
	c, err = LineChart{Title: "Digest size per rotation", XLabel: "rotation", YLabel: "digest bytes", IntegerX: true, ZeroY: true, Markers: true,
		Series: []Series{{Name: "legacy (5 chains)", X: x, Y: sq, Low: low, High: high}, {Name: "fixed (5 chains)", X: x, Y: root, Low: root, High: root}},
		Refs:   []RefLine{{Y: 96000, Label: "budget 96,000 bytes"}}}.Plot()
	add("digest-growth", c, err)

	ones := make([]float64, len(x))
	for i := range ones {
		ones[i] = 1
	}
	c, err = LineChart{Title: "Preamble nesting per rotation", XLabel: "rotation", YLabel: "copies", IntegerX: true, ZeroY: true, Markers: true,
		Series: []Series{{Name: "legacy", X: x, Y: x}, {Name: "fixed", X: x, Y: ones}, {Name: "fixed, other chain", X: x, Y: ones}}}.Plot()
	add("nesting", c, err)

	var rot []string
	pre, content := make([]float64, 20), make([]float64, 20)
	for i := range 20 {
		rot = append(rot, fmt.Sprint(i+1))
		pre[i], content[i] = float64(1000*(i+1)), float64(42000-1000*i)
	}
	c, err = StackedBars{Title: "766d96dd legacy: what the CLI head is made of", CategoryLabel: "rotation", ValueLabel: "bytes",
		Categories: rot, Stacks: []Stack{{Name: "stacked preamble copies", Values: pre}, {Name: "content", Values: content}}}.Plot()
	add("cli-head", c, err)

	c, err = Timeline{Title: "504216d1: hidden tool results (clear-tool-results)", X: x, Context: sq, Lives: []Life{
		{Arrived: 1, Hidden: 5, Needed: 9, Refetched: -1, Lost: true},
		{Arrived: 2, Hidden: 5, Needed: 12, Refetched: 8},
		{Arrived: 3, Hidden: 7, Needed: -1, Refetched: -1}}}.Plot()
	add("loss-timeline", c, err)
	return charts
}

func figures(charts map[string]Chart) []Figure {
	var figs []Figure
	for _, name := range []string{"inspect-bars", "reclaim-bars", "context-line", "sweep-categorical", "sweep-line",
		"heat-map", "pareto", "digest-growth", "nesting", "cli-head", "loss-timeline"} {
		figs = append(figs, Figure{Name: name, Chart: charts[name]})
	}
	return figs
}

func checkPlotFile(t *testing.T, path string) {
	t.Helper()
	if err := CheckPlotFile(path); err != nil {
		t.Error(err)
	}
}

// TestEveryChartKind renders each chart kind calib draws to PNG and SVG and
// checks each file decodes and has the expected size. CALIB_PLOT_SAMPLES=DIR
// also writes them to DIR, to look at.
func TestEveryChartKind(t *testing.T) {
	charts := sampleCharts(t)
	dir := t.TempDir()
	paths, err := SavePlots(dir, figures(charts)...)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2*len(charts) {
		t.Fatalf("wrote %d files for %d charts", len(paths), len(charts))
	}
	for _, p := range paths {
		checkPlotFile(t, p)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "pareto.svg"))
	if !strings.Contains(string(svg), "Liberation Sans") || strings.Contains(string(svg), "Liberation Serif") {
		t.Error("pareto.svg does not use Liberation Sans throughout")
	}
	if out := os.Getenv("CALIB_PLOT_SAMPLES"); out != "" {
		if _, err := SavePlots(out, figures(charts)...); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCheckPlotFileRejects(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"a.png": "not a png", "b.svg": "<html></html>", "c.svg": "<svg", "d.txt": "x"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		if err := CheckPlotFile(p); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if err := CheckPlotFile(filepath.Join(dir, "missing.png")); err == nil {
		t.Error("a missing file accepted")
	}
}

func hashDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		out[e.Name()] = hex.EncodeToString(sum[:])
	}
	return out
}

// TestSavePlotsDeterministic saves every chart kind twice, from freshly
// built charts, and requires byte-identical PNG and SVG files; saving one
// chart twice must also give the same bytes (drawing must not change it).
func TestSavePlotsDeterministic(t *testing.T) {
	d1, d2 := t.TempDir(), filepath.Join(t.TempDir(), "nested", "plots")
	figs := figures(sampleCharts(t))
	if _, err := SavePlots(d1, figs...); err != nil {
		t.Fatal(err)
	}
	if _, err := SavePlots(d2, figures(sampleCharts(t))...); err != nil {
		t.Fatal(err)
	}
	d3 := t.TempDir()
	if _, err := SavePlots(d3, figs...); err != nil {
		t.Fatal(err)
	}
	h1, h2, h3 := hashDir(t, d1), hashDir(t, d2), hashDir(t, d3)
	if len(h1) != 2*len(figs) {
		t.Fatalf("%d files", len(h1))
	}
	for name, h := range h1 {
		if h2[name] != h || h3[name] != h {
			t.Errorf("%s differs between two saves", name)
		}
	}
}

func TestSanitizeName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"replay-s-context", "replay-s-context"},
		{"a b+c", "a-b-c"},
		{"  .x/y:z..", "x-y-z"},
		{"日本語", "plot"},
		{"", "plot"},
	} {
		if got := SanitizeName(c.in); got != c.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// A long name (a session id can be a file's name) is cut to 200 bytes
	// around a hash of the whole, keeping its start and what the plot shows.
	long := "replay-" + strings.Repeat("s", 300) + "-cost-agreement"
	got := SanitizeName(long)
	if len(got) != maxNameBytes || !strings.HasPrefix(got, long[:nameHead]) || !strings.HasSuffix(got, "s-cost-agreement") {
		t.Errorf("SanitizeName(%d bytes) = %q (%d bytes)", len(long), got, len(got))
	}
	if SanitizeName(long) != got {
		t.Error("SanitizeName of a long name is not deterministic")
	}
	other := "replay-" + strings.Repeat("s", 299) + "t" + strings.Repeat("s", 80) + "-cost-agreement"
	if SanitizeName(other) == got {
		t.Error("two long names that differ in the middle got one file name")
	}
	if n := "x" + strings.Repeat("y", maxNameBytes-1); SanitizeName(n) != n {
		t.Error("a name of exactly maxNameBytes was cut")
	}
}

// TestSavePlotsRefusesSharedFile: two figures whose names make one file
// (after SanitizeName, or in another case, one file on macOS and Windows)
// are refused before anything is written, instead of the second silently
// overwriting the first.
func TestSavePlotsRefusesSharedFile(t *testing.T) {
	c := figures(sampleCharts(t))[0].Chart
	for _, names := range [][2]string{{"replay-a b-context", "replay-a+b-context"}, {"replay-T-context", "replay-t-context"}} {
		dir := filepath.Join(t.TempDir(), "plots")
		paths, err := SavePlots(dir, Figure{Name: "first", Chart: c}, Figure{Name: names[0], Chart: c}, Figure{Name: names[1], Chart: c})
		if err == nil || !strings.Contains(err.Error(), "would both be saved as") || len(paths) != 0 {
			t.Errorf("%q and %q: paths %v, error %v; want an error and nothing written", names[0], names[1], paths, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%q and %q: %d files written before the error", names[0], names[1], len(entries))
		}
	}
	if _, err := SavePlots(t.TempDir(), Figure{Name: "replay-a-1-context", Chart: c}, Figure{Name: "replay-a-2-context", Chart: c}); err != nil {
		t.Errorf("distinct names refused: %v", err)
	}
}

// TestNewPlotLeavesDefaultsAlone checks the fonts are set per plot, not by
// mutating gonum's package-level default.
func TestNewPlotLeavesDefaultsAlone(t *testing.T) {
	before := plot.DefaultFont
	p := newPlot("t", "x", "y")
	if plot.DefaultFont != before {
		t.Error("newPlot changed plot.DefaultFont")
	}
	if p.Title.TextStyle.Font.Variant != "Sans" || p.X.Tick.Label.Font.Variant != "Sans" || p.Legend.TextStyle.Font.Variant != "Sans" {
		t.Error("newPlot left a serif font on the plot")
	}
}

func TestHeatMapErrors(t *testing.T) {
	tests := []struct {
		name string
		h    HeatMap
		want string
	}{
		{"empty", HeatMap{}, "heat map: empty grid"},
		{"all NaN", HeatMap{XTicks: []string{"a"}, YTicks: []string{"b"}, Z: [][]float64{{math.NaN()}}}, "heat map: every cell is NaN"},
		{"ticks", HeatMap{XTicks: []string{"a"}, YTicks: []string{"b"}, Z: [][]float64{{1, 2}}}, "heat map: 2×1 grid with 1 x ticks and 1 y ticks"},
	}
	for _, tt := range tests {
		_, err := tt.h.Plot()
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestChartInputErrors(t *testing.T) {
	tests := []struct {
		name string
		plot func() (Chart, error)
		want string
	}{
		{"line lengths", LineChart{Series: []Series{{Name: "a", X: []float64{1}, Y: nil}}}.Plot, `series "a": 1 x values for 0 y values`},
		{"band", LineChart{Series: []Series{{Name: "a", X: []float64{1}, Y: []float64{1}, Low: []float64{1}}}}.Plot, `series "a": band of 1/0 values for 1 points`},
		{"no points", LineChart{}.Plot, "line chart: no points"},
		{"bars", StackedBars{}.Plot, "stacked bars: no categories"},
		{"stack", StackedBars{Categories: []string{"a"}, Stacks: []Stack{{Name: "s"}}}.Plot, `stack "s" has 0 values for 1 categories`},
		{"pareto", Pareto{}.Plot, "pareto: no points"},
		{"timeline", Timeline{X: []float64{1}}.Plot, "timeline: no context curve (or X and Context differ in length)"},
	}
	for _, tt := range tests {
		_, err := tt.plot()
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestRoundTicks checks labels fall on round values with separators:
// 0, 200,000, … rather than 250,000/750,000/1,250,000, and whole rotations
// 5, 10, 15, 20 rather than 4, 12, 20.
func TestRoundTicks(t *testing.T) {
	tests := []struct {
		min, max float64
		integer  bool
		want     string
	}{
		{0, 1300000, false, "0 200,000 400,000 600,000 800,000 1,000,000 1,200,000"},
		{1, 20, true, "5 10 15 20"},
		{0, 5, true, "0 1 2 3 4 5"},
		{7.4e6, 8.97e6, false, "7,400,000 7,600,000 7,800,000 8,000,000 8,200,000 8,400,000 8,600,000 8,800,000"},
		{0.55, 0.95, false, "0.6 0.7 0.8 0.9"},
		{0, 0.05, false, "0.00 0.01 0.02 0.03 0.04 0.05"},
		{3, 3, false, "3"},
	}
	for _, tt := range tests {
		var got []string
		for _, tk := range (roundTicks{integer: tt.integer}).Ticks(tt.min, tt.max) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("ticks(%v, %v) = %q, want %q", tt.min, tt.max, g, tt.want)
		}
	}
}

// TestIntegerTicksWhole checks that a count axis (results lost, rotations)
// gets no tick at a fractional value, labeled or not: a minor tick at 2.5
// on an axis of whole results reads as if half a result could be lost.
func TestIntegerTicksWhole(t *testing.T) {
	for _, r := range [][2]float64{{1, 20}, {2, 7}, {0, 71}, {-0.3, 2.4}, {0, 1}, {0, 3}, {0.5, 1.5}, {3, 3}, {0, 1e6}} {
		ticks := (roundTicks{integer: true}).Ticks(r[0], r[1])
		labeled := 0
		for _, tk := range ticks {
			if tk.Value != math.Trunc(tk.Value) {
				t.Errorf("ticks(%v, %v): tick %v (label %q) is not a whole number", r[0], r[1], tk.Value, tk.Label)
			}
			if tk.Label != "" {
				labeled++
			}
		}
		if labeled == 0 {
			t.Errorf("ticks(%v, %v): no labeled tick in %v", r[0], r[1], ticks)
		}
	}
}

func TestShortIDs(t *testing.T) {
	in := []string{"0a725fb5-6378-432a-9e84-9f3f49d4043d", "0a725fb5-6378-432a-9e84-9f3f49d4043d/sidechain-1",
		"session-1786205678-d4e5f6", "session-1786201234-a1b2c3", "abcdefgh-1", "abcdefgh-2", "short",
		"0a725fb5-6378-432a-9e84-9f3f49d4043d"}
	want := []string{"0a725fb5", "0a725fb5/sidechain-1", "17862056", "17862012", "abcdefgh-1", "abcdefgh-2", "short", "0a725fb5"}
	got := ShortIDs(in)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ShortIDs(%q) = %q, want %q", in[i], got[i], want[i])
		}
	}
}

// TestThinnedTicks: 54 labels on a short axis keep the last one and leave
// gaps between the others; 5 labels on a wide axis are all kept.
func TestThinnedTicks(t *testing.T) {
	p := newPlot("", "", "")
	var many []string
	for i := range 54 {
		many = append(many, FormatInt(int64(1000+i)))
	}
	ticks := thinnedTicks(many, nil, 400, p.X.Tick.Label)
	shown := 0
	for _, tk := range ticks {
		if tk.Label != "" {
			shown++
		}
	}
	if shown == 0 || shown > 20 || ticks[53].Label != "1,053" {
		t.Errorf("54 labels on 400 points: %d shown, last %q", shown, ticks[53].Label)
	}
	for _, tk := range thinnedTicks([]string{"a", "b", "c", "d", "e"}, nil, 400, p.X.Tick.Label) {
		if tk.Label == "" {
			t.Error("5 short labels thinned on a wide axis")
		}
	}
}

// TestThinLabels: without kept labels, every k-th from the last; kept
// ones (a compaction's "15C") are shown first, and the k-th ones only
// where no shown label is nearer than k, so none overlap.
func TestThinLabels(t *testing.T) {
	mark := func(n int, at ...int) []bool {
		keep := make([]bool, n)
		for _, i := range at {
			keep[i] = true
		}
		return keep
	}
	tests := []struct {
		name string
		n, k int
		keep []bool
		want string // shown labels as x, hidden as .
	}{
		{"every label", 5, 1, nil, "xxxxx"},
		{"every 2nd from the last", 27, 2, nil, "x.x.x.x.x.x.x.x.x.x.x.x.x.x"},
		{"504216d1's cost plot", 27, 2, mark(27, 15, 19, 23), "x.x.x.x.x.x.x..x...x...x..x"},
		{"kept ones too close", 10, 3, mark(10, 4, 5, 6, 9), "x...x....x"},
		{"kept last", 9, 3, mark(9, 8), "..x..x..x"},
		{"kept nearly last (the last gives way)", 9, 3, mark(9, 7), "..x....x."},
		{"none with k above n", 3, 5, nil, "..x"},
	}
	for _, tt := range tests {
		var got strings.Builder
		for _, s := range thinLabels(tt.n, tt.k, tt.keep) {
			got.WriteString(map[bool]string{true: "x", false: "."}[s])
		}
		if got.String() != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got.String(), tt.want)
		}
	}
}

// TestHeatMapCellText checks separators and contrast: dark cells (both ends
// of the blue-red scale) get white text, the light middle black.
func TestHeatMapCellText(t *testing.T) {
	c, err := HeatMap{XTicks: []string{"a", "b", "c"}, YTicks: []string{"r"}, Z: [][]float64{{1000000, 1500000, 2000000}}, CellPrec: 0}.Plot()
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := WriteSVG(&svg, c); err != nil {
		t.Fatal(err)
	}
	s := svg.String()
	for _, want := range []string{">1,000,000<", ">1,500,000<", ">2,000,000<"} {
		if !strings.Contains(s, want) {
			t.Errorf("cell text %s missing", want)
		}
	}
	if luminance(colorAt(t, 1000000, 1000000, 2000000)) >= 0.5 || luminance(colorAt(t, 1500000, 1000000, 2000000)) < 0.5 {
		t.Error("the scale's ends should be dark and its middle light")
	}
}

// TestLegendOutside checks a legend never shares the plot's area: the
// chart gets a side column or a strip under the plot.
func TestLegendOutside(t *testing.T) {
	charts := sampleCharts(t)
	for _, name := range []string{"inspect-bars", "reclaim-bars", "context-line", "digest-growth", "nesting", "pareto", "heat-map"} {
		c := charts[name]
		if c.side == nil && c.below == nil {
			t.Errorf("%s: no side column or strip", name)
		}
	}
	if c := charts["sweep-categorical"]; c.side != nil || c.below != nil {
		t.Error("a single unnamed series got a legend")
	}
}

func colorAt(t *testing.T, v, lo, hi float64) interface{ RGBA() (r, g, b, a uint32) } {
	t.Helper()
	cm := heatColours(lo, hi)
	c, err := cm.At(v)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSideColumnLayout draws every sample chart that has a side column
// (a legend, a colour scale) and checks the canvas the column gets: as wide
// as the column asked for (a legend sized to its longest entry is not cut
// at the image edge), inside the margin, and under the title (which spans
// the whole width, the timeline's too, whose title is on its upper plot).
func TestSideColumnLayout(t *testing.T) {
	for name, c := range sampleCharts(t) {
		if c.side == nil {
			continue
		}
		var got draw.Canvas
		side := c.side
		c.side = func(dc draw.Canvas) { got = dc; side(dc) }
		w, h := c.size()
		title := c.plot.Title
		if c.upper != nil {
			title = c.upper.Title
		}
		if title.Text == "" {
			t.Fatalf("%s: sample chart without a title", name)
		}
		c.draw(draw.New(vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PlotDPI))))
		if gw := got.Max.X - got.Min.X; gw < c.sideWidth {
			t.Errorf("%s: side column %.1f pt wide, its content needs %.1f", name, gw, c.sideWidth)
		}
		if got.Max.X > w-margin {
			t.Errorf("%s: side column ends at %.1f pt, past the margin (%.1f)", name, got.Max.X, w-margin)
		}
		if top := h - margin - title.TextStyle.Height(title.Text); got.Max.Y > top {
			t.Errorf("%s: side column's top %.1f pt is beside the title (below %.1f)", name, got.Max.Y, top)
		}
	}
}

// TestLongNamesFit: a title and a legend entry built from a very long
// session name stay inside the chart: the title on two lines (smaller if it
// must be), whole; the legend entry cut in the middle, keeping both ends.
func TestLongNamesFit(t *testing.T) {
	long := "a-very-long-session-name-that-goes-on-and-on-0a725fb5-6378-432a-9e84-9f3f49d4043d/sidechain-12345"
	sty := newPlot("x", "", "").Title.TextStyle
	for _, title := range []string{"short", long + ": context per request (recorded)", strings.Repeat(long, 3) + " x"} {
		w := 6 * vg.Inch
		fs, got := fitTitle(sty, title, w)
		if fs.Width(got) > w {
			t.Errorf("title %.20q…: %.1f pt wide in %.1f", title, fs.Width(got), w)
		}
		if strings.ReplaceAll(got, "\n", " ") != title || strings.Count(got, "\n") > 1 {
			t.Errorf("title %.20q… became %q: not the whole title on at most two lines", title, got)
		}
	}
	c, err := LineChart{Title: "context per request", XLabel: "request", YLabel: "tokens",
		Series: []Series{{Name: long, X: []float64{0, 1}, Y: []float64{1, 2}}, {Name: "sent", X: []float64{0, 1}, Y: []float64{1, 3}}}}.Plot()
	svg := svgText(t, c, err)
	if strings.Contains(svg, ">"+long+"<") {
		t.Error("the legend writes the long name whole, past the image edge")
	}
	if !strings.Contains(svg, ">a-very-long-session-name-") || !strings.Contains(svg, "sidechain-12345<") {
		t.Error("the legend entry lost an end of the name")
	}
	room := DefaultPlotWidth - 2*margin - vg.Inch
	l := newLegend()
	if got := fitText(l.TextStyle, long, room/2); l.TextStyle.Width(got) > room/2 || !strings.Contains(got, "…") {
		t.Errorf("fitText = %q (%.1f pt) for %.1f pt", got, l.TextStyle.Width(got), room/2)
	}
}

// TestStackedBarsKeep: a kept category's label survives the thinning of a
// long vertical chart (27 requests, a compaction at 15); without Keep it
// is dropped, as every other odd request's.
func TestStackedBarsKeep(t *testing.T) {
	c := StackedBars{Title: "cost", CategoryLabel: "request", ValueLabel: "tokens", Stacks: []Stack{{Name: "read"}}}
	for i := range 27 {
		cat := FormatInt(int64(i))
		if i == 15 {
			cat += "C"
		}
		c.Categories = append(c.Categories, cat)
		c.Stacks[0].Values = append(c.Stacks[0].Values, float64(1000*(i+1)))
	}
	svg := func(c StackedBars) string { ch, err := c.Plot(); return svgText(t, ch, err) }
	if strings.Contains(svg(c), ">15C</text>") {
		t.Fatal("without Keep the chart shows every label: the test needs a chart that thins them")
	}
	c.Keep = make([]bool, 27)
	c.Keep[15] = true
	if got := svg(c); !strings.Contains(got, ">15C</text>") || strings.Contains(got, ">14</text>") || strings.Contains(got, ">16</text>") {
		t.Error("with Keep: 15C is labeled and its neighbours 14 and 16 are not")
	}
}

// TestLongSeriesLoseTheirMarkers: a chart asking for markers draws a ring
// at each of 100 points, and none on a series of 101 (a chain of 2,000
// rotations was a wall of rings hiding its line), nor in its legend.
func TestLongSeriesLoseTheirMarkers(t *testing.T) {
	arcs := func(n int) int {
		s := Series{Name: "fixed"}
		for i := range n {
			s.X = append(s.X, float64(i))
			s.Y = append(s.Y, float64(1000+i%7))
		}
		c, err := LineChart{Title: "digest", XLabel: "rotation", YLabel: "bytes", Markers: true, Series: []Series{s}}.Plot()
		return strings.Count(svgText(t, c, err), "A")
	}
	if n := arcs(maxMarkers); n < maxMarkers {
		t.Errorf("%d points: %d arcs, want a ring at each", maxMarkers, n)
	}
	if n := arcs(maxMarkers + 1); n != 0 {
		t.Errorf("%d points: %d arcs, want none", maxMarkers+1, n)
	}
}

// TestThinnedTicksDropCrowdedMinorTicks: 2,000 categories on a short axis
// keep only their labelled ticks (their minor ticks drew a solid bar);
// 54 or 202 on the same axis keep a tick for each.
func TestThinnedTicksDropCrowdedMinorTicks(t *testing.T) {
	p := newPlot("", "", "")
	labels := func(n int) []string {
		var l []string
		for i := range n {
			l = append(l, FormatInt(int64(i+1)))
		}
		return l
	}
	ticks := thinnedTicks(labels(2000), nil, 500, p.X.Tick.Label)
	for _, tk := range ticks {
		if tk.Label == "" {
			t.Fatalf("2,000 categories on 500 points: an unlabelled tick at %v", tk.Value)
		}
	}
	if len(ticks) == 0 || len(ticks) > 100 {
		t.Errorf("2,000 categories on 500 points: %d ticks", len(ticks))
	}
	for _, n := range []int{54, 202} { // a long real session's requests
		if got := len(thinnedTicks(labels(n), nil, 500, p.X.Tick.Label)); got != n {
			t.Errorf("%d categories on 500 points: %d ticks, want one each", n, got)
		}
	}
}

// TestRefLabelsBesideEvents: a reference line is named in the legend and,
// on a chart without events, also at its right end. On a chart with events
// the legend alone names it: a trigger above all the data (opencode's
// 180,000 on a session that never nears it) had its label among the event
// labels, drawn over them.
func TestRefLabelsBesideEvents(t *testing.T) {
	chart := func(events []Event) string {
		c, err := LineChart{Title: "context", XLabel: "request", YLabel: "tokens",
			Series: []Series{{Name: "sent", X: []float64{0, 1, 2, 3}, Y: []float64{1000, 2000, 3000, 4000}}},
			Refs:   []RefLine{{Y: 180000, Label: "trigger 180,000"}}, Events: events, EventName: "compaction or output cap (O output cap)"}.Plot()
		return svgText(t, c, err)
	}
	if n := strings.Count(chart(nil), ">trigger 180,000</text>"); n != 2 {
		t.Errorf("without events the trigger is named %d times, want 2 (legend and line)", n)
	}
	svg := chart([]Event{{X: 2, Label: "O"}, {X: 3, Label: "O"}})
	if n := strings.Count(svg, ">trigger 180,000</text>"); n != 1 {
		t.Errorf("with events the trigger is named %d times, want 1 (the legend)", n)
	}
	if n := strings.Count(svg, ">O</text>"); n != 2 {
		t.Errorf("%d event labels, want 2", n)
	}
}
