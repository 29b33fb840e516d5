package metrics

import (
	"testing"

	"github.com/calib-dev/calib/policy"
)

func row(set int, m map[string]float64) SweepRow { return SweepRow{Set: set, Metrics: m} }

func TestAggregate(t *testing.T) {
	a := Aggregate(2, policy.Params{{Name: "x", Value: "1"}}, []SweepRow{
		row(2, map[string]float64{"tokens_sent": 100, "peak_tokens": 50, "agreement": 1, "max_nesting": 3}),
		row(2, map[string]float64{"tokens_sent": 200, "peak_tokens": 70, "agreement": 0, "max_nesting": 1}),
	})
	want := map[string]float64{"tokens_sent": 300, "peak_tokens": 70, "agreement": 0.5, "max_nesting": 3, "sessions": 2}
	for k, v := range want {
		if a.Metrics[k] != v {
			t.Errorf("%s = %v, want %v", k, a.Metrics[k], v)
		}
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
	tie := []SweepRow{row(0, map[string]float64{"a": 1, "b": 5}), row(1, map[string]float64{"a": 1, "b": 2}), row(2, map[string]float64{"a": 0, "b": 9})}
	if err := SortRows(tie, "a,b"); err != nil || tie[0].Set != 2 || tie[1].Set != 1 {
		t.Fatalf("tie-break order: %v %d %d", err, tie[0].Set, tie[1].Set)
	}
	up := []SweepRow{row(0, map[string]float64{"agreement": 0.2}), row(1, map[string]float64{"agreement": 0.9})}
	SortRows(up, "agreement")
	if up[0].Set != 1 {
		t.Fatal("agreement must sort high first")
	}
}
