package main

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/metrics"
)

// --columns resolves to the names in the order given, the command's
// default when not given, nil (every column) for all, and refuses bad
// lists as usage errors (exit 2) naming what is wrong.
func TestColumnsResolve(t *testing.T) {
	def := []string{"usd"}
	noNeeds := func(metrics.Needs) bool { return false }
	for _, tc := range []struct {
		name    string
		flag    *columnsFlag
		have    func(metrics.Needs) bool
		want    []string
		wantErr string
	}{
		{"not given", &columnsFlag{}, nil, def, ""},
		{"all", &columnsFlag{value: "all", given: true}, nil, nil, ""},
		{"order kept", &columnsFlag{value: "results_lost, tokens_sent,reclaimed_prune", given: true}, nil, []string{"results_lost", "tokens_sent", "reclaimed_prune"}, ""},
		{"unknown", &columnsFlag{value: "usd,nope", given: true}, nil, nil, "--columns nope: no such metric (known: tokens_sent, "},
		{"twice", &columnsFlag{value: "usd,usd", given: true}, nil, nil, "usd is listed twice"},
		{"empty", &columnsFlag{value: " ", given: true}, nil, nil, "no names given"},
		{"empty name", &columnsFlag{value: "usd,", given: true}, nil, nil, "empty name between commas"},
		{"all with others", &columnsFlag{value: "usd,all", given: true}, nil, nil, "all stands alone"},
		{"no such stage", &columnsFlag{value: "reclaimed_window", given: true}, nil, nil, `no policy has a stage "window"`},
		{"not produced", &columnsFlag{value: "agreement_exact", given: true}, noNeeds, nil, "agreement metrics need --compare-recorded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.flag.resolve(def, tc.have)
			if tc.wantErr != "" {
				var ue *usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want a usage error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
				t.Fatalf("resolve = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// compare's default columns are registry metrics a plain replay reports,
// so its default table never has a blank or unlabeled column.
func TestCompareDefaultColumns(t *testing.T) {
	for _, n := range strings.Split(compareDefaultColumns, ",") {
		m, ok := metrics.Lookup(n)
		if !ok || m.Family || m.Part || m.Needs != metrics.NeedsNothing {
			t.Errorf("%s: not a plain-replay table metric of the registry", n)
		}
	}
}

// TestCompareAllColumnsWidth: the README's reason for compare's default
// columns, that all of them (policy, sessions and every metric) are 29
// columns some 330 characters wide on the demo, more than a terminal.
func TestCompareAllColumnsWidth(t *testing.T) {
	code, text, errOut := runCalib(t, "compare", "--demo", "-q", "--columns", "all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, csv, _ := runCalib(t, "compare", "--demo", "-q", "--columns", "all", "--format", "csv")
	header := strings.Split(text, "\n")[1]
	if n, w := len(strings.Split(strings.SplitN(csv, "\n", 2)[0], ",")), len(header); n != 29 || w < 320 || w > 340 {
		t.Errorf("--columns all: %d columns, %d characters wide; want 29, some 330:\n%s", n, w, header)
	}
}
