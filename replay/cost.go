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
		// The metered sizes (Sent, Tokens), not the trigger's figures
		// (Context): a policy anchored on recorded usage measures the
		// request before, and the calibration (overhead and scale from
		// recorded prompts) then read one request's history against the
		// next one's prompt (claude-code billed 1.1-1.7x recorded on
		// sessions where both compacted alike).
		sent[i] = cache.Sent{Next: r.Next, Tokens: r.Sent, Overhead: r.Overhead, Response: r.Response, Thinking: r.Thinking}
		if r.Event >= 0 {
			out := &t.Events[r.Event].Outcome
			if i > 0 && !r.Rewrote && (out.Strategy == policy.Truncated || out.Strategy == policy.Dropped) {
				// It changed only messages appended since the previous
				// request (a cap on arriving output, a persisted output
				// placed at its arrival): nothing sent before changed
				// (cache.Sent.Arrival). A summary or rotation is priced
				// as one whatever it touched: it has a summarizer call.
				sent[i].Arrival = true
				continue
			}
			sent[i].Strategy = out.Strategy
			sent[i].Before = r.Tokens
			if summarizes(out) {
				sent[i].Summary = out.SummaryTokens
			}
		}
	}
	o.Faithful = o.Faithful || t.Policy == "recorded"
	if !o.Faithful {
		o.Fit = t.Fit
	}
	return cache.Cost(t.Session, sent, o)
}

// summarizes reports whether a compaction calls a model to summarize (a
// deterministic digest does not).
func summarizes(o *policy.Outcome) bool {
	// Codex's compaction rotates to a model-written summary; clai's
	// rotation writes its digest without a model (Outcome.Digest). Codex's
	// summarizer call went unbilled: summary_calls 0 on every sweep.
	return o.Strategy == policy.Summarized || o.Strategy == policy.Rotated && o.Digest == nil
}
