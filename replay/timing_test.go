package replay

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/policy"
)

// The full compactions of the real 1.0.53 logs against claude-code's
// replay: each recorded summary is matched with the policy's nearest
// compaction, 1.0.x records no preTokens (recorded_tokens null).
func TestAgreeCompactionsReal1053(t *testing.T) {
	p, err := policy.New(policy.ClaudeCodeName, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl": `[{"session":"0a725fb5-6378-432a-9e84-9f3f49d4043d","line":451,"kind":"claude-code-summary","recorded_request":158,"predicted_request":158,"recorded_tokens":null,"predicted_tokens":155510}]`,
		"f67ab274-e83b-41ac-ac85-77488d6b5c28.jsonl": `[{"session":"f67ab274-e83b-41ac-ac85-77488d6b5c28","line":384,"kind":"claude-code-summary","recorded_request":140,"predicted_request":140,"recorded_tokens":null,"predicted_tokens":155902},` +
			`{"session":"f67ab274-e83b-41ac-ac85-77488d6b5c28","line":599,"kind":"claude-code-summary","recorded_request":223,"predicted_request":222,"recorded_tokens":null,"predicted_tokens":155062}]`,
		// A 2.x log with only microcompacts has no full compaction to judge.
		"b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl": `null`,
	}
	for f, w := range want {
		s := realCC(t, f)
		tr, err := Run(t.Context(), s, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(AgreeCompactions(s, p, tr))
		if string(got) != w {
			t.Errorf("%s:\n got %s\nwant %s", f, got, w)
		}
	}
}

// A Codex rollout written from the documented shapes (corpus/codex
// testdata): its two compacted lines against the codex policy with a
// limit the fixture's small token counts reach. The policy compacts
// before request 2 (the last total_tokens, 15,400, reached 15,000); the
// agent's first compaction came before request 3 and recorded the last
// token_count (15,860). The second, at the log's end, has no policy
// compaction near it.
func TestAgreeCompactionsCodex(t *testing.T) {
	path := filepath.Join("..", "corpus", "codex", "testdata", "rollout-2026-02-10T10-00-00-019c0000-aaaa-7bbb-8ccc-000000000002.jsonl")
	ss, err := load.Load([]string{path}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(policy.CodexName, map[string]string{"auto_compact_limit": "15000"})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Run(t.Context(), ss[0], p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(AgreeCompactions(ss[0], p, tr))
	want := `[{"session":"019c0000-aaaa-7bbb-8ccc-000000000002","line":21,"kind":"codex-compacted","recorded_request":3,"predicted_request":2,"recorded_tokens":15860,"predicted_tokens":15400},` +
		`{"session":"019c0000-aaaa-7bbb-8ccc-000000000002","line":28,"kind":"codex-compacted","recorded_request":4,"predicted_request":null,"recorded_tokens":15860,"predicted_tokens":null}]`
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// scanMatch is matchPredicted as it was before the search by request: a
// pass over out for each policy compaction. The oracle of
// TestMatchPredictedMatchesScan.
func scanMatch(out []CompactionAgreement, events []Event) {
	for _, e := range events {
		if e.Outcome.Strategy != policy.Summarized && e.Outcome.Strategy != policy.Rotated {
			continue
		}
		best := -1
		for k := range out {
			if best < 0 || absInt(out[k].RecordedRequest-e.Request) < absInt(out[best].RecordedRequest-e.Request) {
				best = k
			}
		}
		a := &out[best]
		if a.PredictedRequest == nil || absInt(a.RecordedRequest-e.Request) < absInt(a.RecordedRequest-*a.PredictedRequest) {
			a.PredictedRequest, a.PredictedTokens = intPtr(e.Request), intPtr(e.Outcome.BeforeTokens)
		}
	}
}

// The search pairs each policy compaction as the pass did, on recorded
// compactions out of request order, several at one request, ties between
// the one before and the one after, and events that are not compactions.
func TestMatchPredictedMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	strategies := []policy.Strategy{policy.Summarized, policy.Rotated, policy.Truncated, policy.None}
	for round := range 2000 {
		var recorded []int
		for range 1 + rng.IntN(8) {
			recorded = append(recorded, rng.IntN(30))
		}
		var events []Event
		for i := range rng.IntN(10) {
			events = append(events, Event{Request: rng.IntN(34), Outcome: policy.Outcome{
				Strategy: strategies[rng.IntN(len(strategies))], BeforeTokens: 1000 + i}})
		}
		slices.SortFunc(events, func(a, b Event) int { return a.Request - b.Request })
		fresh := func() []CompactionAgreement {
			out := make([]CompactionAgreement, len(recorded))
			for k, r := range recorded {
				out[k] = CompactionAgreement{Line: k, RecordedRequest: r}
			}
			return out
		}
		got, want := fresh(), fresh()
		matchPredicted(got, events)
		scanMatch(want, events)
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Fatalf("round %d: recorded %v, events %+v:\n got %s\nwant %s", round, recorded, events, g, w)
		}
	}
	// Spot values: recorded at 10 and 4 (listed in that order), policy
	// compactions at 7 (as near to both: the first listed, 10) and 5.
	out := []CompactionAgreement{{RecordedRequest: 10}, {RecordedRequest: 4}}
	matchPredicted(out, []Event{
		{Request: 5, Outcome: policy.Outcome{Strategy: policy.Summarized, BeforeTokens: 50}},
		{Request: 7, Outcome: policy.Outcome{Strategy: policy.Summarized, BeforeTokens: 70}},
	})
	if *out[0].PredictedRequest != 7 || *out[1].PredictedRequest != 5 || *out[0].PredictedTokens != 70 {
		t.Errorf("predicted %d and %d, want 7 and 5", *out[0].PredictedRequest, *out[1].PredictedRequest)
	}
}
