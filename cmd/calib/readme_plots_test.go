package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus/realcorpus"
)

// readmePlots are the images README.md shows, each with the README command
// line that draws it (as readmeCommands joins it) and the file that command
// writes into its --plot folder. The golden copies are in testdata/readme/.
var readmePlots = []struct {
	golden  string // file under testdata/readme
	command string // the README recipe, word for word
	file    string // the file the recipe writes into its --plot folder
}{
	{"sweep-pareto-real.png",
		"calib sweep shared/corpus-real/claude-code/projects/ -p clear-tool-results --grid keep_value=10000,20000,40000,80000 " +
			"--grid trigger_at=100000,148500,180000 --pareto billed_tokens,results_lost " +
			"--columns tokens_sent,billed_tokens,cache_breaks,results_hidden,results_needed,results_refetched,results_lost " +
			"--format markdown --plot plots/real-sweep",
		"sweep-pareto.png"},
	{"sweep-pareto-demo.png",
		"calib sweep --demo -p smith-staged --grid compact_at=0.6,0.7,0.8,0.9 --grid window_turns=1,3 --pareto tokens_sent,results_lost --columns tokens_sent,results_lost --format markdown --plot plots/demo-sweep",
		"sweep-pareto.png"},
	{"loss-504216d1.png",
		"calib replay shared/corpus-real/claude-code/projects/504216d1-8285-4ec4-92be-0db8dc92a18a -p recorded --plot plots/504216d1",
		"replay-504216d1-8285-4ec4-92be-0db8dc92a18a-loss.png"},
}

// TestReadmePlots redraws every image README.md shows, with the README's
// own command line (TestReadmeRecipes runs the same line), into a temporary
// folder, and requires it byte for byte equal to its golden copy: a chart
// change shows up as a changed image in review, and a nondeterministic
// plot fails here. Each is drawn twice, with --jobs 1 and --jobs 8, so a
// plot that depends on the parallelism or differs from run to run is
// reported as that, not as a stale golden file. `go test ./cmd/calib -run
// TestReadmePlots -update` rewrites the golden copies. The real-log images
// skip without shared/corpus-real (and fail under
// CALIB_REQUIRE_REAL_CORPUS=1, as readmeExpand does for the recipes).
//
// Why exact bytes are safe here: the PNG is a function of the data, the
// fonts gonum embeds (Liberation, no system font is read), gonum's and
// golang.org/x/image's rasterizer (versions pinned in go.sum) and the
// standard library's image/png and compress/flate. None reads the clock,
// the locale or the machine; calib orders every result before drawing.
// Checked 2026-12-01: identical bytes under go1.26.8 and go1.26.0 (go.mod's
// go line, which CI runs), with -cpu 1,2,8, and across runs. What could
// still change them without a chart change is a Go release that changes
// compress/flate's output, or floating-point code generation (Go lets the
// compiler fuse x*y+z, and it does on arm64: the goldens are linux/amd64's).
// That shows up as this test failing on every image at once, on a
// toolchain bump; redraw with -update and look at the images.
func TestReadmePlots(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var recipes []string
	for _, r := range readmeCommands(string(md)) {
		recipes = append(recipes, r.text)
	}
	realCC := filepath.Join(realcorpus.Root(), "claude-code")
	if _, err := os.Stat(realCC); err != nil {
		realCC = ""
	}
	for _, p := range readmePlots {
		t.Run(strings.TrimSuffix(p.golden, ".png"), func(t *testing.T) {
			if !slices.Contains(recipes, p.command) {
				t.Fatalf("README.md has no command line %q: the image would not be what the README says drew it", p.command)
			}
			if link := "](cmd/calib/testdata/readme/" + p.golden + ")"; !strings.Contains(string(md), link) {
				t.Errorf("README.md does not show %s (no %q)", p.golden, link)
			}
			runs := readmeExpand(t, readmeRecipe{text: p.command}, realCC)
			if len(runs) == 0 {
				t.Skip("needs the real corpus beside the checkout")
			}
			draw := func(jobs string) []byte {
				t.Helper()
				args := append(slices.Clone(runs[0].args), "--jobs", jobs)
				i := slices.Index(args, "--plot")
				if i < 0 || i+1 >= len(args) {
					t.Fatalf("%q has no --plot folder", p.command)
				}
				dir := t.TempDir()
				args[i+1] = dir
				if code, _, errOut := runCalib(t, args...); code != 0 {
					t.Fatalf("calib %s: exit %d: %s", strings.Join(args, " "), code, errOut)
				}
				b, err := os.ReadFile(filepath.Join(dir, p.file))
				if err != nil {
					t.Fatalf("%q did not write %s: %v", p.command, p.file, err)
				}
				return b
			}
			got := draw("1")
			if again := draw("8"); !bytes.Equal(got, again) {
				t.Fatalf("%s differs between --jobs 1 and --jobs 8: plots must be deterministic", p.file)
			}
			golden := filepath.Join("testdata", "readme", p.golden)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./cmd/calib -run TestReadmePlots -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s (%d bytes) differs from %s (%d bytes): look at both; if the new one is right, "+
					"go test ./cmd/calib -run TestReadmePlots -update rewrites it", p.file, len(got), golden, len(want))
			}
		})
	}
}
