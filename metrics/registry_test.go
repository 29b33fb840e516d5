package metrics

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/cache"
	"github.com/calib-dev/calib/replay/loss"
)

func TestCombineSessions(t *testing.T) {
	// agreement_exact is a rate over events: 1 of 1 and 16 of 21 exact
	// is 17/22 = 0.7727, not the mean of the session rates (0.881).
	got := CombineSessions([]map[string]float64{
		{"tokens_sent": 100, "peak_tokens": 50, "max_nesting": 3,
			"exact_events": 1, "recorded_events": 1, "agreement_exact": 1},
		{"tokens_sent": 200, "peak_tokens": 70, "max_nesting": 1,
			"exact_events": 16, "recorded_events": 21, "agreement_exact": 0.7619},
	})
	want := map[string]float64{"tokens_sent": 300, "peak_tokens": 70, "max_nesting": 3,
		"exact_events": 17, "recorded_events": 22, "agreement_exact": 0.7727}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("combined\n got %v\nwant %v", got, want)
	}
}

// TestRegistry checks every declaration is usable: ratios name summed
// parts that exist, names are unique and meanings given.
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
	var unknown *UnknownError
	if err := Check("nope", nil); !errors.As(err, &unknown) || unknown.Name != "nope" || !strings.Contains(err.Error(), "tokens_sent, compactions") {
		t.Errorf("unknown metric: %v", err)
	}
	var unavailable *UnavailableError
	noCompare := func(n Needs) bool { return n != NeedsCompare }
	if err := Check("agreement_exact", noCompare); !errors.As(err, &unavailable) || unavailable.Needs != NeedsCompare {
		t.Errorf("agreement_exact without a comparison: %v, want an *UnavailableError needing %q", err, NeedsCompare)
	}
	if err := Check("max_nesting", noCompare); err != nil {
		t.Errorf("max_nesting with rotations: %v", err)
	}
}

// TestSessionMetricsDeclared: every value SessionMetrics produces (plain,
// chain and agreement figures, and CostMetrics the bill) is declared in the Registry, and every
// declared metric that is not a sweep's own count (sessions) is produced
// by one of these traces, so a declaration without a computation fails.
func TestSessionMetricsDeclared(t *testing.T) {
	compacted := &replay.Trace{Session: &corpus.Session{ID: "x"}, Final: []corpus.Message{}, Messages: 3,
		Requests: []replay.Request{{Tokens: 30, Sent: 12}},
		Events: []replay.Event{{Outcome: policy.Outcome{Strategy: policy.Truncated, BeforeTokens: 30, AfterTokens: 12,
			Stages: []policy.StageReport{{Name: "truncate", BeforeTokens: 30, AfterTokens: 12, BytesRemoved: 70}}}}},
		Loss: &loss.Report{Counts: loss.Counts{Hidden: 1}}}
	// A tool output capped as it arrived is not a compaction.
	capped := &replay.Trace{Session: &corpus.Session{ID: "c"}, Requests: []replay.Request{{Tokens: 30, Sent: 20}},
		Events: []replay.Event{{Outcome: policy.Outcome{Strategy: policy.Truncated, BeforeTokens: 30, AfterTokens: 20, TargetTokens: 18,
			Stages: []policy.StageReport{{Name: policy.ArrivalStage, BeforeTokens: 30, AfterTokens: 20}}}}}}
	// Nor, ending above a target (its outcome's ReachedTarget is false
	// here), a target miss, which counts compactions.
	if m := SessionMetrics(capped, nil, nil, nil); m["output_caps"] != 1 || m["compactions"] != 0 || m["target_misses"] != 0 {
		t.Errorf("a capped output: %v caps, %v compactions, %v misses; want 1, 0 and 0", m["output_caps"], m["compactions"], m["target_misses"])
	}
	// The row replay's JSON prints beside "metrics" says the same.
	if r := Session(capped); r.OutputCaps != 1 || r.Compactions != 0 || r.TargetMisses != 0 {
		t.Errorf("a capped output's session row: %d caps, %d compactions, %d misses; want 1, 0 and 0", r.OutputCaps, r.Compactions, r.TargetMisses)
	}
	// Its event shows no target, as a policy without one does: it showed
	// the compaction target (here 18) as missed.
	if e := Events(capped); len(e) != 1 || !e[0].OutputCap || e[0].TargetTokens != 0 || !e[0].ReachedTarget {
		t.Errorf("a capped output's event %+v; want an output cap with target 0, reached", e)
	}
	// A policy that assumes a window counts the requests whose context
	// went past it (the trigger's measure, Context, not the history sent);
	// one that assumes none has no count at all (a blank column).
	windowed := &replay.Trace{Session: &corpus.Session{ID: "w"}, Window: 100, Requests: []replay.Request{
		{Sent: 90, Context: 99}, {Sent: 95, Context: 100}, {Sent: 99, Context: 101}, {Sent: 120, Context: 90}, {Sent: 80, Context: 150}}}
	if m, r := SessionMetrics(windowed, nil, nil, nil), Session(windowed); m["over_window"] != 2 || r.OverWindow != 2 {
		t.Errorf("over a 100-token window: metric %v, row %d; want 2 (contexts 101 and 150)", m["over_window"], r.OverWindow)
	}
	windowed.Window = 0
	if m := SessionMetrics(windowed, nil, nil, nil); m["over_window"] != 0 {
		t.Errorf("no window: over_window %v, want none", m["over_window"])
	} else if _, ok := m["over_window"]; ok {
		t.Error("no window: over_window present, want it absent (a blank cell)")
	}
	windowed.Window = 100
	a := agreementFixture()[0]
	timing := []replay.CompactionAgreement{{RecordedRequest: 3}}
	produced := map[string]bool{}
	billed := &cache.SessionCost{Totals: cache.Totals{Tokens: cache.Tokens{Uncached: 10, Write5m: 20, Read: 70}, Billed: 42}}
	for _, m := range []map[string]float64{SessionMetrics(compacted, nil, &a, timing), SessionMetrics(chain([]int{100, 200, 300}, func(int) int { return 1 }), nil, nil, nil), SessionMetrics(capped, nil, nil, nil), SessionMetrics(windowed, nil, nil, nil), CostMetrics(billed)} {
		for k := range m {
			if _, ok := Lookup(k); !ok {
				t.Errorf("SessionMetrics produces %s, which the Registry does not declare", k)
			}
			d, _ := Lookup(k)
			produced[d.Name] = true
		}
	}
	for _, d := range Registry() {
		if !produced[d.Name] && d.Name != "sessions" {
			t.Errorf("%s is declared but SessionMetrics never computes it", d.Name)
		}
	}
	m := SessionMetrics(compacted, nil, nil, nil)
	if m["tokens_sent"] != 12 || m["reclaimed_truncate"] != 18 || m["bytes_removed"] != 70 || m["target_misses"] != 1 {
		t.Errorf("values = %v", m)
	}
	if _, ok := m["rotations"]; ok {
		t.Errorf("a trace without rotations has chain figures: %v", m)
	}
	// Each stage of the trace's policy has a value, 0 when it reclaimed
	// nothing; a stage the policy does not have has none.
	compacted.Policy = "smith-legacy"
	m = SessionMetrics(compacted, StageOrder(compacted.Policy), nil, nil)
	if v, ok := m["reclaimed_summarize"]; !ok || v != 0 || m["reclaimed_truncate"] != 18 {
		t.Errorf("smith-legacy's stages: reclaimed_summarize = %v (present %v), reclaimed_truncate = %v; want 0 and 18", v, ok, m["reclaimed_truncate"])
	}
	if _, ok := m["reclaimed_thinking"]; ok {
		t.Errorf("smith-legacy has no thinking stage, yet reclaimed_thinking = %v", m["reclaimed_thinking"])
	}
}

func TestColumnsAndHeaders(t *testing.T) {
	present := []string{"violations", "reclaimed_zeta", "reclaimed_truncate", "requests", "nope", "tokens_sent", "reclaimed_duplicates", "reclaimed_alpha", "exact_events", "agreement_exact", "violations", "reclaimed_thinking"}
	got := Columns(present, StageOrder("smith-staged"))
	want := []string{"tokens_sent", "violations", "agreement_exact", "reclaimed_thinking", "reclaimed_duplicates", "reclaimed_truncate", "reclaimed_alpha", "reclaimed_zeta"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Columns = %v, want %v (registry order, stages in the policy's order then the rest sorted, no parts, unknown names or repeats)", got, want)
	}
	if got := StageOrder("smith-staged"); !reflect.DeepEqual(got, []string{"thinking", "attachments", "duplicates", "truncate", "summarize"}) {
		t.Errorf("StageOrder(smith-staged) = %v, want smith-staged's declared Stages", got)
	}
	for name, h := range map[string]string{"tokens_sent": "tokens sent", "reclaimed_truncate": "truncate", "compactions": "compactions"} {
		if m, _ := Lookup(name); m.Header(name) != h {
			t.Errorf("header of %s = %q, want %q", name, m.Header(name), h)
		}
	}
}

// TestLookupEach: one registry read finds what Lookup finds for each name,
// a family member by its prefix and an unknown name as the zero Metric.
func TestLookupEach(t *testing.T) {
	names := []string{"usd", "reclaimed_truncate", "nope", "reclaimed_", "cache_hit_rate"}
	got := LookupEach(names)
	if len(got) != len(names) {
		t.Fatalf("%d metrics for %d names", len(got), len(names))
	}
	for i, n := range names {
		want, _ := Lookup(n)
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("LookupEach(%s) = %+v, want %+v", n, got[i], want)
		}
	}
	if got[1].Name != "reclaimed_" || got[0].Decimals != 4 || got[2].Name != "" {
		t.Errorf("usd, reclaimed_truncate, nope = %q %q %q", got[0].Name, got[1].Name, got[2].Name)
	}
}
