package metrics

import (
	"reflect"
	"strings"
	"testing"
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
