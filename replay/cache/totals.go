package cache

// Totals sums a session's (or a compaction's) requests: what the cost
// metrics report.
type Totals struct {
	Tokens
	Requests     int
	Billed       float64
	USD          float64
	Breaks       int
	SummaryCalls int
	// SummaryTokens is the summarizer calls' share of Tokens (input and
	// output), for stacked bars.
	SummaryInput  int
	SummaryOutput int
}

// Add counts one step, priced with price (nil: no USD).
func (t *Totals) Add(st Step, price *Price) {
	t.Tokens = t.Tokens.Add(st.Tokens)
	t.Requests++
	t.Billed += st.Billed
	if price != nil {
		t.USD += price.USD(st.Tokens)
	}
	if st.Break {
		t.Breaks++
	}
	if st.Reason == ReasonSummarizer {
		t.SummaryCalls++
		t.SummaryInput += st.Uncached
		t.SummaryOutput += st.Output
	}
}

// HitRate is cache reads over all input (cache_hit_rate); 0 without input.
func (t Totals) HitRate() float64 {
	if p := t.Prompt(); p > 0 {
		return float64(t.Read) / float64(p)
	}
	return 0
}

// Run prices a whole session's requests in order.
func Run(p Params, s Session, reqs []Request, price *Price) ([]Step, Totals) {
	m := New(p, s)
	steps := make([]Step, len(reqs))
	var tot Totals
	for i, r := range reqs {
		steps[i] = m.Step(r)
		tot.Add(steps[i], price)
	}
	return steps, tot
}
