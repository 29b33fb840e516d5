package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus/synth"
)

// TestBaselineSameIDTwoInputs: two clai databases whose sessions share an
// id (a raw and a recorded copy; here two histories written from one seed,
// 6 and 40 turns) each meet their own chain in a baseline of the same run,
// in either order, and pass. Each was compared with whichever chain the
// baseline held last, and the run failed against its own baseline
// (largest digest 421,491 bytes against 394,717). Moved, the files are
// paired in the order given, and the warning says so.
func TestBaselineSameIDTwoInputs(t *testing.T) {
	dir := t.TempDir()
	small, big := filepath.Join(dir, "a", "data.sqlite"), filepath.Join(dir, "b", "data.sqlite")
	for _, w := range []struct {
		path string
		p    synth.ClaiProfile
	}{
		{small, synth.ClaiProfile{Sessions: 1, Turns: 6, UserBytes: 200, AssistantBytes: 400}},
		{big, synth.ClaiProfile{Sessions: 1, Turns: 40, UserBytes: 2000, AssistantBytes: 8000}},
	} {
		if err := os.MkdirAll(filepath.Dir(w.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := synth.WriteClai(w.path, w.p, 3); err != nil {
			t.Fatal(err)
		}
	}
	code, base, errOut := runCalib(t, "digest-growth", small, big, "-n", "6", "--format", "json", "-q")
	if code != 0 {
		t.Fatalf("baseline run: exit %d: %s", code, errOut)
	}
	basePath := filepath.Join(dir, "base.json")
	if err := os.WriteFile(basePath, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, order := range [][]string{{small, big}, {big, small}} {
		args := append([]string{"digest-growth"}, order...)
		if code, _, errOut := runCalib(t, append(args, "-n", "6", "--baseline", basePath)...); code != 0 || errOut != "" {
			t.Errorf("%v against its own baseline: exit %d, stderr %q; want 0 and nothing", order, code, errOut)
		}
	}
	moved := filepath.Join(dir, "moved")
	if err := os.Rename(filepath.Join(dir, "a"), moved); err != nil {
		t.Fatal(err)
	}
	movedSmall := filepath.Join(moved, "data.sqlite")
	code, _, errOut = runCalib(t, "digest-growth", movedSmall, big, "-n", "6", "--baseline", basePath)
	want := "the baseline holds 2 chains of it, none read from " + movedSmall + ": this run's chain 1 of the session is compared with the baseline's from " + small
	if code != 0 || !strings.Contains(errOut, want) || strings.Count(errOut, "warning:") != 1 {
		t.Errorf("moved: exit %d, stderr %q; want 0 and one warning saying %q", code, errOut, want)
	}
}
