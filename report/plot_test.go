package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// sampleFigures builds one plot of each kind, with the awkward inputs the
// commands will feed them: many categories, an uneven grid with a NaN cell,
// events on a line chart.
func sampleFigures(t *testing.T) []Figure {
	t.Helper()
	var a, b plotter.XYs
	for i := 0; i < 20; i++ {
		a = append(a, plotter.XY{X: float64(i), Y: float64(i * i)})
		b = append(b, plotter.XY{X: float64(i), Y: 100 * math.Sqrt(float64(i))})
	}
	line, err := LineChart{Title: "digest bytes per rotation", XLabel: "rotation", YLabel: "bytes",
		Series: []Series{{Name: "legacy", Points: a}, {Name: "fixed", Points: b}},
		Events: []Event{{X: 5, Label: "compaction 1"}, {X: 12, Label: "compaction 2"}}}.Plot()
	if err != nil {
		t.Fatal(err)
	}
	cats := []string{"demo/smith/a", "demo/smith/b", "demo/clai/c", "d", "e", "f", "g"}
	bars, err := StackedBars{Title: "bytes by role", YLabel: "bytes", Categories: cats, Stacks: []Stack{
		{Name: "user", Values: []float64{10, 20, 30, 5, 6, 7, 8}},
		{Name: "assistant", Values: []float64{40, 10, 5, 5, 6, 7, 8}},
		{Name: "tool", Values: []float64{100, 0, 50, 5, 6, 7, 8}},
	}}.Plot()
	if err != nil {
		t.Fatal(err)
	}
	heat, err := HeatMap{Title: "tokens saved", XLabel: "cap", YLabel: "window",
		XTicks: []string{"10", "20", "50", "100"}, YTicks: []string{"1", "3"},
		Z: [][]float64{{1, 2, 3, 4}, {5, math.NaN(), 7, 8}}, CellPrec: 0}.Plot()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Scatter{Title: "recall vs saved", XLabel: "saved", YLabel: "recall",
		Series: []Series{{Name: "smith", Points: a[:5]}, {Name: "clai", Points: b[:5]}}}.Plot()
	if err != nil {
		t.Fatal(err)
	}
	return []Figure{{Name: "line", Plot: line}, {Name: "bars", Plot: bars}, {Name: "heat", Plot: heat}, {Name: "scatter", Plot: sc}}
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

// TestSavePlotsDeterministic saves the same plots twice, from freshly built
// plot values, and requires byte-identical PNG and SVG files.
func TestSavePlotsDeterministic(t *testing.T) {
	d1, d2 := t.TempDir(), filepath.Join(t.TempDir(), "nested", "plots")
	p1, err := SavePlots(d1, sampleFigures(t)...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SavePlots(d2, sampleFigures(t)...); err != nil {
		t.Fatal(err)
	}
	if len(p1) != 8 {
		t.Fatalf("wrote %d files, want 8: %v", len(p1), p1)
	}
	h1, h2 := hashDir(t, d1), hashDir(t, d2)
	for name, h := range h1 {
		if h2[name] != h {
			t.Errorf("%s differs between two saves", name)
		}
	}
	png, _ := os.ReadFile(filepath.Join(d1, "bars.png"))
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Error("bars.png is not a PNG")
	}
	svg, _ := os.ReadFile(filepath.Join(d1, "bars.svg"))
	if !strings.Contains(string(svg), "Liberation Sans") || strings.Contains(string(svg), "Liberation Serif") {
		t.Error("bars.svg does not use Liberation Sans throughout")
	}
	if dir := os.Getenv("CALIB_PLOT_SAMPLES"); dir != "" {
		if _, err := SavePlots(dir, sampleFigures(t)...); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNewPlotLeavesDefaultsAlone checks the fonts are set per plot, not by
// mutating gonum's package-level default.
func TestNewPlotLeavesDefaultsAlone(t *testing.T) {
	before := plot.DefaultFont
	p := NewPlot("t", "x", "y")
	if plot.DefaultFont != before {
		t.Error("NewPlot changed plot.DefaultFont")
	}
	if p.Title.TextStyle.Font.Variant != "Sans" || p.X.Tick.Label.Font.Variant != "Sans" || p.Legend.TextStyle.Font.Variant != "Sans" {
		t.Error("NewPlot left a serif font on the plot")
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

func TestSanitizeName(t *testing.T) {
	tests := map[string]string{
		"inspect-bytes":           "inspect-bytes",
		"demo/smith/a b":          "demo-smith-a-b",
		"../../etc/passwd":        "etc-passwd",
		"compact_at=0.8,window=3": "compact_at-0.8-window-3",
		"":                        "plot",
		"é":                       "plot",
	}
	for in, want := range tests {
		if got := SanitizeName(in); got != want {
			t.Errorf("SanitizeName(%q) = %q, want %q", in, got, want)
		}
	}
}
