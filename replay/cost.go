package replay

import (
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/cache"
)

// Cost prices a replay's requests through the prompt-cache model: the
// cache is a layer every policy's replay goes through (replay/cache), fed
// with what each request sent and what each compaction did.
func Cost(t *Trace, o cache.Options) (*cache.SessionCost, error) {
	sent := make([]cache.Sent, len(t.Requests))
	for i, r := range t.Requests {
		sent[i] = cache.Sent{Next: r.Next, Tokens: r.Sent, Response: r.Response, Thinking: r.Thinking}
		if r.Event >= 0 {
			out := &t.Events[r.Event].Outcome
			sent[i].Strategy = out.Strategy
			sent[i].Before = out.BeforeTokens
			if summarizes(out) {
				sent[i].Summary = out.SummaryTokens
			}
		}
	}
	o.Faithful = o.Faithful || t.Policy == "recorded"
	return cache.Cost(t.Session, sent, o)
}

// summarizes reports whether a compaction calls a model to summarize (a
// deterministic digest does not).
func summarizes(o *policy.Outcome) bool { return o.Strategy == policy.Summarized }
