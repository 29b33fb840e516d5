package metrics

import (
	"testing"

	"github.com/calib-dev/calib/replay/cache"
)

func TestCostMetrics(t *testing.T) {
	sc := &cache.SessionCost{Priced: true, Totals: cache.Totals{Tokens: cache.Tokens{Uncached: 10, Write5m: 15, Write1h: 5, Read: 70, Output: 3},
		Billed: 10 + 1.25*15 + 2*5 + 7, USD: 0.12345, Breaks: 2, SummaryCalls: 1}}
	m := CostMetrics(sc)
	want := map[string]float64{"billed_tokens": 45.8, "usd": 0.1235, "input_tokens": 10, "cache_write_tokens": 20, "cache_read_tokens": 70,
		"output_tokens": 3, "cache_breaks": 2, "summary_calls": 1, "prompt_tokens": 100, "cache_hit_rate": 0.7, "unpriced_sessions": 0}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	// Summed over sessions, the hit rate is reads over all input, not a
	// mean of rates.
	c := CombineSessions([]map[string]float64{m, CostMetrics(&cache.SessionCost{Totals: cache.Totals{Tokens: cache.Tokens{Uncached: 300}}})})
	if c["cache_hit_rate"] != 0.175 {
		t.Errorf("combined hit rate %v, want 70/400", c["cache_hit_rate"])
	}
	// The second session has no price: its usd is 0 and it is counted,
	// so the sum says usd covers 1 of 2 sessions.
	if c["unpriced_sessions"] != 1 || c["usd"] != 0.1235 {
		t.Errorf("combined unpriced_sessions %v usd %v, want 1 and 0.1235", c["unpriced_sessions"], c["usd"])
	}
}
