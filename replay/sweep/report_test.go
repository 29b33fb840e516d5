package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/calib-dev/calib/policy"
)

func sweepRows(shard, of int) []Row {
	var rows []Row
	for set := range 6 {
		if of > 1 && set%of != shard-1 {
			continue
		}
		for _, s := range []string{"b", "a"} { // corpus order: b before a
			rows = append(rows, Row{Set: set, Session: s, Params: policy.Params{{Name: "x", Value: fmt.Sprint(set)}},
				Metrics: map[string]float64{"tokens_sent": float64(100 - set*7%5), "results_mangled": float64(set % 4)}})
		}
	}
	return rows
}

func header(shard string) Header {
	return Header{Policy: "p", Grid: Grid{{Name: "x", Values: []string{"0", "1", "2", "3", "4", "5"}}},
		Corpus: "abc", Sessions: []string{"b", "a"}, Points: 6, Shard: shard}
}

func TestMergedShardsEqualOneRun(t *testing.T) {
	view := View{Sort: "tokens_sent", Pareto: []string{"tokens_sent", "results_mangled"}}
	whole, err := Build(header("1/1"), view, true, sweepRows(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	var parts []*Report
	for k := 3; k >= 1; k-- { // any order
		p, err := Build(header(fmt.Sprintf("%d/3", k)), view, true, sweepRows(k, 3))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	merged, err := Merge(parts, []string{"s3", "s2", "s1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(whole)
	b, _ := json.Marshal(merged)
	if string(a) != string(b) {
		t.Fatalf("merged differs from one run:\n%s\n%s", a, b)
	}
	if len(whole.Sets) != 6 || whole.Rows[0].Session != "b" {
		t.Fatalf("sets %d, first row session %s", len(whole.Sets), whole.Rows[0].Session)
	}
}

func TestMergeRefusesMismatchedShards(t *testing.T) {
	mk := func(shard string, mod func(*Header)) *Report {
		h := header(shard)
		if mod != nil {
			mod(&h)
		}
		r, _ := Build(h, View{}, true, nil)
		return r
	}
	tests := []struct {
		name  string
		parts []*Report
		want  string
	}{
		{"missing", []*Report{mk("1/3", nil), mk("3/3", nil)}, "missing shard(s) 2/3"},
		{"duplicate", []*Report{mk("1/2", nil), mk("1/2", nil)}, "f1 and f2 are both shard 1/2: merge joins the shards of one sweep (sweep --shard K/N), each once"},
		// Two whole sweeps of different grids: what differs is named, not
		// that both are shard 1/1.
		{"two whole sweeps", []*Report{mk("1/1", nil), mk("1/1", func(h *Header) { h.Grid[0].Values = []string{"9"} })}, "f1 and f2 come from different sweeps: the grids differ"},
		{"other split", []*Report{mk("1/2", nil), mk("2/3", nil)}, "split the sweep differently"},
		{"other corpus", []*Report{mk("1/2", nil), mk("2/2", func(h *Header) { h.Corpus = "zzz" })}, "corpus abc vs zzz"},
		{"edited sessions", []*Report{mk("1/2", nil), mk("2/2", func(h *Header) { h.Sessions = append(h.Sessions, "b") })},
			"f1 and f2 come from different sweeps: their lists of sessions differ (2 and 3 sessions) under one corpus fingerprint, abc; one file was edited"},
		{"other grid", []*Report{mk("1/2", nil), mk("2/2", func(h *Header) { h.Grid[0].Values = []string{"9"} })}, "grids differ"},
		{"none", nil, "no shard files"},
		// A damaged shard count: before, listing every missing shard took
		// hours and all memory; now a few are named and the rest counted.
		{"huge split", []*Report{mk("1/1000000000000", nil)}, "missing shard(s) 2/1000000000000, 3/1000000000000, 4/1000000000000, 5/1000000000000, 6/1000000000000, 7/1000000000000, 8/1000000000000, 9/1000000000000, 10/1000000000000, 11/1000000000000 and 999999999989 more"},
		{"k beyond n", []*Report{mk("3/2", nil)}, `f1: shard "3/2" is not k/n with 1 <= k <= n`},
		{"trailing junk", []*Report{mk("1/2x", nil)}, `f1: shard "1/2x" is not k/n with 1 <= k <= n`},
		{"interrupted", []*Report{mk("1/2", nil), interrupted(mk("2/2", nil))}, "f2 is an interrupted shard; run it again to completion"},
		{"top", []*Report{mk("1/2", nil), topped(mk("2/2", nil), 3)}, "f2 holds only its first 3 sets and lacks rows; write the shards with every set"},
	}
	for _, tt := range tests {
		names := []string{"f1", "f2", "f3"}
		_, err := Merge(tt.parts, names, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func interrupted(r *Report) *Report     { r.Complete = false; return r }
func topped(r *Report, top int) *Report { r.View.Top = top; return r }

// The command line words a shard kept to its first sets by its flag: it
// finds the error's parts, not its text.
func TestMergeTopShardError(t *testing.T) {
	h1, h2 := header("1/2"), header("2/2")
	r1, _ := Build(h1, View{}, true, nil)
	r2, _ := Build(h2, View{}, true, nil)
	r2.View.Top = 5
	_, err := Merge([]*Report{r1, r2}, []string{"a.json", "b.json"}, nil)
	var top *TopShardError
	if !errors.As(err, &top) || top.File != "b.json" || top.Top != 5 {
		t.Errorf("err = %v, want a *TopShardError for b.json, top 5", err)
	}
}

// A set that finished fewer sessions than the corpus has (an interrupted
// sweep) never ranks: it follows the ranked sets, marked, unsorted, off the
// Pareto front and outside --top, even when its partial sum is the lowest.
func TestBuildSweepIncompleteSetsNeverRank(t *testing.T) {
	rows := sweepRows(1, 1)
	// Drop session "a" of sets 3 and 5: their tokens_sent halves.
	var partial []Row
	for _, r := range rows {
		if r.Session == "a" && (r.Set == 3 || r.Set == 5) {
			continue
		}
		partial = append(partial, r)
	}
	view := View{Sort: "tokens_sent", Top: 2, Pareto: []string{"tokens_sent", "results_mangled"}}
	rep, err := Build(header("1/1"), view, false, partial)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range rep.Sets {
		got = append(got, fmt.Sprintf("%d:%v:%v:%v", s.Set, s.Metrics["tokens_sent"], s.Incomplete, s.Pareto))
	}
	// Complete sets 0,1,2,4 have tokens_sent 200,196,192,194 over two
	// sessions (results_mangled 0,1,2,0: 2 and 4 are on the front); 3 and 5
	// have one session each (99, 100), below every complete set.
	want := "2:192:false:true 4:194:false:true 3:99:true:false 5:100:true:false"
	if strings.Join(got, " ") != want {
		t.Fatalf("sets\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

// Build refuses a view it cannot honour, in its own terms (the command
// has named its flags before any work; Build's errors name none).
func TestBuildRefusesABadView(t *testing.T) {
	for _, c := range []struct {
		view View
		want string
	}{
		{View{Sort: "tokens_sent,nope"}, `sort by "nope": not a metric`},
		{View{Pareto: []string{"tokens_sent"}}, "a Pareto front needs two metrics, not 1"},
		{View{Pareto: []string{"tokens_sent", "nope"}}, `pareto front on "nope": not a metric`},
		{View{Top: -1}, "top -1: expected 0 (all) or more"},
	} {
		if _, err := Build(header("1/1"), c.view, true, nil); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.view, err, c.want)
		}
	}
}

// TestMergeChecksRows: a shard whose rows are not the ones its header
// says the sweep ran (a row duplicated, dropped, moved to another set or
// shard, given values not in the grid, or a session the sweep never had)
// is refused, naming the row; before, each changed the merged totals and
// merge exited 0.
func TestMergeChecksRows(t *testing.T) {
	build := func(edit func(rows []Row) []Row) []*Report {
		t.Helper()
		var parts []*Report
		for k := 1; k <= 2; k++ {
			rows := sweepRows(k, 2)
			if k == 1 {
				rows = edit(rows)
			}
			p, err := Build(header(fmt.Sprintf("%d/2", k)), View{}, true, rows)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, p)
		}
		return parts
	}
	if _, err := Merge(build(func(r []Row) []Row { return r }), []string{"s1", "s2"}, nil); err != nil {
		t.Fatalf("intact shards: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func([]Row) []Row
		want string
	}{
		{"duplicated", func(r []Row) []Row { return append(r, r[0]) }, "s1: rows 0 and 1 are both set 0 of session b"},
		{"dropped", func(r []Row) []Row { return r[1:] }, "s1: set 0 has rows for 1 of the sweep's 2 sessions; a complete shard has them all"},
		{"another shard's set", func(r []Row) []Row { r[0].Set = 1; return r }, "s1: row 1: set 1 is not one of shard 1/2's (of 6 sets)"},
		{"no such set", func(r []Row) []Row { r[0].Set = -1; return r }, "s1: row 0: set -1 is not one of shard 1/2's"},
		{"edited value", func(r []Row) []Row {
			r[0].Params = policy.Params{{Name: "x", Value: "0.99"}}
			return r
		}, "s1: row 0: x=0.99, but set 0 has x=0"},
		{"foreign session", func(r []Row) []Row { r[0].Session = "zz"; return r }, `s1: row 0: session "zz" is not one of the sweep's sessions`},
	} {
		_, err := Merge(build(c.edit), []string{"s1", "s2"}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}
