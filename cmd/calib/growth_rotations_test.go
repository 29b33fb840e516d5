package main

import (
	"fmt"
	"strings"
	"testing"
)

// digest-growth lets a chain run up to replay.MaxBoundedRotations only when
// every run's digest is bounded (clai's clamp on, with a budget up to
// policy.MaxBoundedBudget), and says so to a user
// refused at the legacy cap who could have asked for the fixed variant.
func TestGrowthRotationsBoundedByTheDigest(t *testing.T) {
	for _, c := range []struct {
		variants []string
		set      []string
		n        int
		want     string // "" for no error; else a part of it
	}{
		{[]string{"fixed"}, nil, 1000, ""},
		{[]string{"fixed"}, nil, 5000, ""},
		{nil, []string{"variant=fixed"}, 1000, ""},
		{nil, []string{"clamp=on"}, 1000, ""}, // legacy with the clamp: bounded
		{[]string{"fixed"}, nil, 5001, "--rotations 5001: at most 5000 for a bounded digest"},
		{[]string{"legacy", "fixed"}, nil, 500, ""},
		{[]string{"legacy", "fixed"}, nil, 1000, "--rotations 1000: at most 500; a legacy digest grows"},
		{nil, nil, 1000, "1000 would take about 2 min and 0.8 GB); chains whose digest is bounded (the fixed variant alone, with a budget up to 200000) may run 5000"},
		{[]string{"fixed"}, []string{"clamp=off"}, 1000, "--rotations 1000: at most 500;"},
		{nil, nil, 9000, "9000 would take about 3 h and 6.8 GB)"},
		// A budget a long chain cannot afford bounds nothing: budget=1e9
		// took the 5,000-rotation allowance (about 35 min).
		{[]string{"fixed"}, []string{"budget=1000000000"}, 1000, "--rotations 1000: at most 500;"},
		{[]string{"fixed"}, []string{"budget=200000"}, 1000, ""},
	} {
		name := fmt.Sprintf("%v %v %d", c.variants, c.set, c.n)
		runs, err := growthRuns(&growthOptions{policy: "clai-rotation", variants: c.variants, set: c.set})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		err = checkGrowthRotations(c.n, runs)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", name, err, c.want)
		case c.n == 9000 && strings.Contains(err.Error(), "bounded"):
			t.Errorf("%s: %v: a hint past the bounded cap", name, err)
		}
	}
}

// TestSweepRotationsEstimate: a rotation sweep chains every session once
// per set, so the grid's whole time is estimated and refused past ten
// minutes a session unless --yes (1,000 legacy sets at 500 rotations
// started a run of hours); each chain alone was within its limit.
func TestSweepRotationsEstimate(t *testing.T) {
	code, _, errOut := runCalib(t, "sweep", "--demo", "-p", "clai-rotation", "--grid", "budget=1000..1000000:1000", "--rotations", "500", "-q")
	want := "calib: --rotations 500 over 1,000 parameter set(s) chains every session once per set: about 1 h per session of the demo's size (replay.ChainSeconds); use fewer sets or rotations, split it with --shard k/n, or pass --yes\n"
	if code != 2 || !strings.HasPrefix(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	// A shard of it is a tenth: within the bound (checked, not run).
	if _, err := planSweep(&sweepOptions{policy: "clai-rotation", grid: []string{"budget=1000..1000000:1000"}, rotations: 500, shard: "1/10", plotMetric: "billed_tokens"}); err != nil {
		t.Errorf("a tenth of the grid: %v", err)
	}
}
