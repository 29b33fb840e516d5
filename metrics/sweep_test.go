package metrics

import (
	"reflect"
	"strings"
	"testing"

	"github.com/calib-dev/calib/policy"
)

func row(set int, m map[string]float64) SweepRow { return SweepRow{Set: set, Metrics: m} }

func TestAggregate(t *testing.T) {
	// agreement_exact is a rate over events: 1 of 1 and 16 of 21 exact
	// is 17/22 = 0.7727, not the mean of the session rates (0.881).
	a := Aggregate(2, policy.Params{{Name: "x", Value: "1"}}, []SweepRow{
		row(2, map[string]float64{"tokens_sent": 100, "peak_tokens": 50, "max_nesting": 3,
			"exact_events": 1, "recorded_events": 1, "agreement_exact": 1}),
		row(2, map[string]float64{"tokens_sent": 200, "peak_tokens": 70, "max_nesting": 1,
			"exact_events": 16, "recorded_events": 21, "agreement_exact": 0.7619}),
	})
	want := map[string]float64{"tokens_sent": 300, "peak_tokens": 70, "max_nesting": 3, "sessions": 2,
		"exact_events": 17, "recorded_events": 22, "agreement_exact": 0.7727}
	if !reflect.DeepEqual(a.Metrics, want) {
		t.Errorf("aggregate\n got %v\nwant %v", a.Metrics, want)
	}
}

// TestRegistry checks every declaration is usable: ratios name summed
// parts that exist, names are unique, and every metric SweepMetrics and
// AgreementMetrics produce is declared.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Registry() {
		if seen[m.Name] {
			t.Errorf("%s declared twice", m.Name)
		}
		seen[m.Name] = true
		if m.Meaning == "" || m.Unit == "" || m.Combine == "" {
			t.Errorf("%s: incomplete declaration %+v", m.Name, m)
		}
		if m.Combine == Ratio {
			for _, part := range []string{m.Num, m.Den} {
				if p, ok := Lookup(part); !ok || p.Combine != Sum {
					t.Errorf("%s: part %q is not a declared sum", m.Name, part)
				}
			}
		}
	}
	if _, ok := Lookup("reclaimed_truncate"); !ok {
		t.Error("family member reclaimed_truncate not found")
	}
	if _, ok := Lookup("reclaimed_"); ok {
		t.Error("the bare family prefix is not a metric")
	}
	if err := Check("--sort", "nope", nil); err == nil || !strings.Contains(err.Error(), "tokens_sent, compactions") {
		t.Errorf("unknown metric: %v", err)
	}
}

func TestMarkParetoAndSort(t *testing.T) {
	rows := []SweepRow{
		row(0, map[string]float64{"tokens_sent": 10, "results_mangled": 5}),
		row(1, map[string]float64{"tokens_sent": 8, "results_mangled": 9}),
		row(2, map[string]float64{"tokens_sent": 12, "results_mangled": 6}), // beaten by 0
		row(3, map[string]float64{"tokens_sent": 10, "results_mangled": 5}), // equal to 0: both on the front
	}
	MarkPareto(rows, "tokens_sent", "results_mangled")
	got := [4]bool{rows[0].Pareto, rows[1].Pareto, rows[2].Pareto, rows[3].Pareto}
	if got != [4]bool{true, true, false, true} {
		t.Fatalf("pareto = %v", got)
	}
	if err := SortRows(rows, "tokens_sent"); err != nil {
		t.Fatal(err)
	}
	if rows[0].Set != 1 || rows[1].Set != 0 || rows[2].Set != 3 || rows[3].Set != 2 {
		t.Fatalf("sorted sets = %d %d %d %d", rows[0].Set, rows[1].Set, rows[2].Set, rows[3].Set)
	}
	if err := SortRows(rows, "nope"); err == nil {
		t.Fatal("unknown metric accepted")
	}
	tie := []SweepRow{row(0, map[string]float64{"compactions": 1, "peak_tokens": 5}), row(1, map[string]float64{"compactions": 1, "peak_tokens": 2}), row(2, map[string]float64{"compactions": 0, "peak_tokens": 9})}
	if err := SortRows(tie, "compactions,peak_tokens"); err != nil || tie[0].Set != 2 || tie[1].Set != 1 {
		t.Fatalf("tie-break order: %v %d %d", err, tie[0].Set, tie[1].Set)
	}
	up := []SweepRow{row(0, map[string]float64{"agreement_exact": 0.2}), row(1, map[string]float64{"agreement_exact": 0.9}), row(2, nil)}
	if err := SortRows(up, "agreement_exact"); err != nil {
		t.Fatal(err)
	}
	if up[0].Set != 1 || up[2].Set != 2 {
		t.Fatal("agreement must sort high first, a row without it last")
	}
}
