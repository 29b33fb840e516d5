package metrics

import "github.com/calib-dev/calib/replay/cache"

// CostMetrics names a session's bill through the prompt-cache model (the
// cost metrics of the Registry). A session its model does not price has
// usd 0 and unpriced_sessions 1, so a sum over sessions says how much of
// it is priced.
func CostMetrics(sc *cache.SessionCost) map[string]float64 {
	t := sc.Totals
	m := map[string]float64{
		"billed_tokens":      round1(t.Billed),
		"usd":                round4(t.USD),
		"input_tokens":       float64(t.Uncached),
		"cache_write_tokens": float64(t.Write()),
		"cache_read_tokens":  float64(t.Read),
		"output_tokens":      float64(t.Output),
		"cache_breaks":       float64(t.Breaks),
		"summary_calls":      float64(t.SummaryCalls),
		"prompt_tokens":      float64(t.Prompt()),
		"unpriced_sessions":  0,
	}
	if !sc.Priced {
		m["unpriced_sessions"] = 1
	}
	fillRatios(Registry(), m)
	return m
}
