package sweep

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/calib-dev/calib/metrics"
)

func row(set int, m map[string]float64) Row { return Row{Set: set, Metrics: m} }

func TestMarkParetoAndSort(t *testing.T) {
	rows := []Row{
		row(0, map[string]float64{"tokens_sent": 10, "results_mangled": 5}),
		row(1, map[string]float64{"tokens_sent": 8, "results_mangled": 9}),
		row(2, map[string]float64{"tokens_sent": 12, "results_mangled": 6}), // beaten by 0
		row(3, map[string]float64{"tokens_sent": 10, "results_mangled": 5}), // equal to 0: both on the front
	}
	markPareto(rows, "tokens_sent", "results_mangled")
	got := [4]bool{rows[0].Pareto, rows[1].Pareto, rows[2].Pareto, rows[3].Pareto}
	if got != [4]bool{true, true, false, true} {
		t.Fatalf("pareto = %v", got)
	}
	if err := sortRows(rows, "tokens_sent"); err != nil {
		t.Fatal(err)
	}
	if rows[0].Set != 1 || rows[1].Set != 0 || rows[2].Set != 3 || rows[3].Set != 2 {
		t.Fatalf("sorted sets = %d %d %d %d", rows[0].Set, rows[1].Set, rows[2].Set, rows[3].Set)
	}
	if err := sortRows(rows, "nope"); err == nil {
		t.Fatal("unknown metric accepted")
	}
	tie := []Row{row(0, map[string]float64{"compactions": 1, "peak_tokens": 5}), row(1, map[string]float64{"compactions": 1, "peak_tokens": 2}), row(2, map[string]float64{"compactions": 0, "peak_tokens": 9})}
	if err := sortRows(tie, "compactions,peak_tokens"); err != nil || tie[0].Set != 2 || tie[1].Set != 1 {
		t.Fatalf("tie-break order: %v %d %d", err, tie[0].Set, tie[1].Set)
	}
	up := []Row{row(0, map[string]float64{"agreement_exact": 0.2}), row(1, map[string]float64{"agreement_exact": 0.9}), row(2, nil)}
	if err := sortRows(up, "agreement_exact"); err != nil {
		t.Fatal(err)
	}
	if up[0].Set != 1 || up[2].Set != 2 {
		t.Fatal("agreement must sort high first, a row without it last")
	}
}

// TestAggregateUnpricedModels: a set's unpriced models are its sessions',
// each once, sorted, whatever the session order; unpriced_sessions sums.
func TestAggregateUnpricedModels(t *testing.T) {
	rows := []Row{
		{Session: "a", Metrics: map[string]float64{"usd": 0, "unpriced_sessions": 1}, UnpricedModels: []string{"m2"}},
		{Session: "b", Metrics: map[string]float64{"usd": 1.5, "unpriced_sessions": 0}},
		{Session: "c", Metrics: map[string]float64{"usd": 0, "unpriced_sessions": 1}, UnpricedModels: []string{""}},
		{Session: "d", Metrics: map[string]float64{"usd": 0, "unpriced_sessions": 1}, UnpricedModels: []string{"m2"}},
	}
	agg := aggregate(0, nil, rows)
	if got := agg.UnpricedModels; len(got) != 2 || got[0] != "" || got[1] != "m2" {
		t.Errorf("unpriced models = %q, want [\"\" \"m2\"]", got)
	}
	if agg.Metrics["unpriced_sessions"] != 3 || agg.Metrics["sessions"] != 4 || agg.Metrics["usd"] != 1.5 {
		t.Errorf("metrics = %v, want unpriced_sessions 3 of 4 sessions, usd 1.5", agg.Metrics)
	}
}

// TestMixedDirections: each metric of a Pareto pair or a sort key keeps
// its own direction (agreement_exact higher, tokens_sent lower is
// better), whichever position it takes.
func TestMixedDirections(t *testing.T) {
	mk := func() []Row {
		return []Row{
			row(0, map[string]float64{"tokens_sent": 10, "agreement_exact": 0.5}),
			row(1, map[string]float64{"tokens_sent": 8, "agreement_exact": 0.9}), // beats 0 and 2
			row(2, map[string]float64{"tokens_sent": 12, "agreement_exact": 0.5}),
			row(3, map[string]float64{"tokens_sent": 6, "agreement_exact": 0.2}), // cheapest
			row(4, map[string]float64{"tokens_sent": 9, "agreement_exact": 0.9}), // beaten by 1
		}
	}
	for _, pair := range [][2]string{{"tokens_sent", "agreement_exact"}, {"agreement_exact", "tokens_sent"}} {
		rows := mk()
		markPareto(rows, pair[0], pair[1])
		var got []bool
		for _, r := range rows {
			got = append(got, r.Pareto)
		}
		if want := []bool{false, true, false, true, false}; !slices.Equal(got, want) {
			t.Errorf("pareto %v = %v, want %v", pair, got, want)
		}
	}
	for by, want := range map[string][]int{
		"agreement_exact,tokens_sent": {1, 4, 0, 2, 3},
		"tokens_sent,agreement_exact": {3, 1, 4, 0, 2},
	} {
		rows := mk()
		if err := sortRows(rows, by); err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, r := range rows {
			got = append(got, r.Set)
		}
		if !slices.Equal(got, want) {
			t.Errorf("sort by %s = %v, want %v", by, got, want)
		}
	}
}

// pairPareto is markPareto as it was before the sort: every row against
// every other. The oracle of TestParetoMatchesPairs.
func pairPareto(rows []Row, a, b string) []bool {
	better := func(x, y float64, higher bool) (geq, gt bool) {
		if higher {
			return x >= y, x > y
		}
		return x <= y, x < y
	}
	higherA, higherB := metrics.HigherIsBetter(a), metrics.HigherIsBetter(b)
	out := make([]bool, len(rows))
	for i := range rows {
		out[i] = true
		for j := range rows {
			if i == j {
				continue
			}
			ge1, gt1 := better(rows[j].Metrics[a], rows[i].Metrics[a], higherA)
			ge2, gt2 := better(rows[j].Metrics[b], rows[i].Metrics[b], higherB)
			if ge1 && ge2 && (gt1 || gt2) {
				out[i] = false
				break
			}
		}
	}
	return out
}

// The sorted front flags the rows the pair test flags, on random sets
// with ties, equal rows, NaN, infinities, signed zeros and missing
// metrics, for each pairing of directions.
func TestParetoMatchesPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	values := []float64{0, math.Copysign(0, -1), 1, 2, 3, -1, math.Inf(1), math.Inf(-1), math.NaN()}
	pairs := [][2]string{{"tokens_sent", "results_mangled"}, {"agreement_exact", "tokens_sent"},
		{"tokens_sent", "agreement_exact"}, {"agreement_exact", "agreement_jaccard"}}
	for round := range 3000 {
		pair := pairs[round%len(pairs)]
		var rows []Row
		for i := range rng.IntN(12) {
			m := map[string]float64{}
			for _, k := range pair {
				if rng.IntN(12) > 0 { // else missing: read as 0
					m[k] = values[rng.IntN(len(values))]
				}
			}
			rows = append(rows, row(i, m))
		}
		want := pairPareto(rows, pair[0], pair[1])
		markPareto(rows, pair[0], pair[1])
		for i, r := range rows {
			if r.Pareto != want[i] {
				t.Fatalf("round %d, %v: row %d pareto %v, the pair test says %v; rows %v", round, pair, i, r.Pareto, want[i], rows)
			}
		}
	}
}
