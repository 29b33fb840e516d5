package main

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/calib-dev/calib/replay/cache"
	"github.com/calib-dev/calib/report"
)

// TestCostTableHitRate: a session that sent no prompt (a Codex rollout
// with no request) has no hit rate, a blank cell, as its JSON metrics
// leave cache_hit_rate out; it showed 0.0%, "nothing cached". A session
// with a prompt shows reads over it.
func TestCostTableHitRate(t *testing.T) {
	none := &cache.SessionCost{Session: "none"}
	some := &cache.SessionCost{Session: "some", Totals: cache.Totals{Tokens: cache.Tokens{Uncached: 10, Write5m: 30, Read: 60}}}
	var buf bytes.Buffer
	if err := report.WriteCSV(&buf, costTables([]*cache.SessionCost{none, some})[0]); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range rows[0] {
		if h == "hit rate" {
			col = i
		}
	}
	if col < 0 || len(rows) != 3 {
		t.Fatalf("header %v, %d rows", rows[0], len(rows))
	}
	if rows[1][col] != "" || rows[2][col] != "0.6000" {
		t.Errorf("hit rates %q and %q, want \"\" and \"0.6000\" (the fraction compare and sweep show)", rows[1][col], rows[2][col])
	}
}
