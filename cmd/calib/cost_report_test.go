package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
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

// TestSummaryCallsBilled: a compaction that has a model write its summary
// bills the summarizer call, Codex's rotation to a summary too (it was
// never billed: summary_calls 0 in every Codex sweep, so compacting early
// looked cheap); clai's rotation writes its digest without a model and
// bills none. On the demo, codex compacts one session once.
func TestSummaryCallsBilled(t *testing.T) {
	for _, c := range []struct {
		policy string
		want   map[string]float64 // summary_calls by session
	}{
		{"codex", map[string]float64{"session-1786201234-a1b2c3": 1}},
		{"clai-rotation", map[string]float64{}},
	} {
		code, out, errOut := runCalib(t, "replay", "--demo", "-q", "-p", c.policy, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.policy, code, errOut)
		}
		var doc struct {
			Cost []struct {
				Session     string             `json:"session"`
				Metrics     map[string]float64 `json:"metrics"`
				Compactions []struct {
					SummaryBilled float64 `json:"summary_billed"`
				} `json:"compactions"`
			} `json:"cost"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		for _, sc := range doc.Cost {
			want := c.want[sc.Session]
			if got := sc.Metrics["summary_calls"]; got != want {
				t.Errorf("%s, %s: summary_calls %v, want %v", c.policy, sc.Session, got, want)
			}
			for _, row := range sc.Compactions {
				if (row.SummaryBilled > 0) != (want > 0) {
					t.Errorf("%s, %s: a compaction's summary_billed %v", c.policy, sc.Session, row.SummaryBilled)
				}
			}
		}
	}
}

// TestCostPerCompactionKeepsALoss: a compaction that grew the prompt (the
// demo's 3c93f0c4: a rotation from 30,164 to 31,011 tokens, its digest
// longer than its window) saves a negative amount, which the net carries;
// it showed 0 saved.
func TestCostPerCompactionKeepsALoss(t *testing.T) {
	var doc struct {
		Cost []struct {
			Session     string `json:"session"`
			Compactions []struct {
				SavedTokens int     `json:"saved_tokens"`
				SavedBilled float64 `json:"saved_billed"`
			} `json:"compactions"`
		} `json:"cost"`
	}
	runJSON(t, &doc, "replay", "--demo", "-q", "-p", "clai-rotation")
	for _, sc := range doc.Cost {
		if sc.Session == "3c93f0c4-cb2d-4a23-a564-a59e91adc860" {
			if c := sc.Compactions; len(c) != 1 || c[0].SavedTokens != -847 || c[0].SavedBilled != -2032.8 {
				t.Errorf("compactions %+v; want one saving -847 tokens, -2,032.8 billed", c)
			}
			return
		}
	}
	t.Error("no cost row for 3c93f0c4")
}
