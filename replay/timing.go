package replay

import (
	"slices"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// CompactionAgreement is one full compaction the agent recorded (a Claude
// Code compact_boundary, a 1.0.x isCompactSummary line, a Codex compacted
// line) against the policy's own replay of the session: the request before
// which each compacted, and the context each measured there. The JSON
// names are calib's output contract (`agreement.compactions`).
type CompactionAgreement struct {
	Session string `json:"session"`
	Line    int    `json:"line"`
	// Kind is claude-code-boundary, claude-code-summary (a 1.0.x log that
	// writes only the summary) or codex-compacted.
	Kind            string `json:"kind"`
	RecordedRequest int    `json:"recorded_request"`
	// PredictedRequest is the policy's own compaction nearest to this one
	// (and nearer to it than to any other recorded compaction); nil when
	// the policy did not compact there.
	PredictedRequest *int `json:"predicted_request"`
	// RecordedTokens is what the agent measured (preTokens, or the last
	// token_count's total_tokens before a Codex compaction); nil when the
	// log does not say (1.0.x summaries). PredictedTokens is the context
	// the policy measured at its compaction.
	RecordedTokens  *int `json:"recorded_tokens"`
	PredictedTokens *int `json:"predicted_tokens"`
}

// fullCompactionKind names a recorded full compaction, or "" for any
// other recorded event (microcompact, clai digests, smith).
func fullCompactionKind(s *corpus.Session, c *corpus.Compaction) string {
	switch {
	case c.Clearing() || c.AtMessage < 0:
		return ""
	case s.Format == corpus.FormatCodex && c.Strategy == "compacted":
		return "codex-compacted"
	case s.Format == corpus.FormatClaudeCode && c.Strategy == "compact" && c.ID != "":
		return "claude-code-boundary"
	case s.Format == corpus.FormatClaudeCode && c.Strategy == "compact":
		return "claude-code-summary"
	}
	return ""
}

// AgreeCompactions compares every recorded full compaction of s with the
// full compactions (summarized or rotated) of t, p's replay of s. Requests
// are numbered as the replay numbers them; the scan is linear in the
// session.
func AgreeCompactions(s *corpus.Session, p policy.Policy, t *Trace) []CompactionAgreement {
	at := map[int][]int{} // AtMessage -> recorded full compactions
	var out []CompactionAgreement
	for i := range s.Recorded.Compactions {
		c := &s.Recorded.Compactions[i]
		if kind := fullCompactionKind(s, c); kind != "" {
			at[c.AtMessage] = append(at[c.AtMessage], len(out))
			a := CompactionAgreement{Session: s.ID, Line: c.Line, Kind: kind}
			if c.TokensBefore > 0 {
				a.RecordedTokens = intPtr(c.TokensBefore)
			}
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil
	}
	// The request each recorded compaction came before, counted as the
	// replay counts: the thread's checkpoints, skipping what it skips.
	w := newWalker(s, p, followPolicy)
	for i := 0; i <= len(s.Messages); i++ {
		for _, k := range at[i] {
			out[k].RecordedRequest = w.reqs
		}
		if i == len(s.Messages) {
			break
		}
		m := &s.Messages[i]
		if w.skips(m) {
			continue
		}
		if w.checks(m) {
			w.reqs++
		}
		w.prev = m
		w.raw++
	}
	matchPredicted(out, t.Events)
	return out
}

// matchPredicted matches each policy compaction of events with the
// recorded one of out it is nearest to by request (the first listed of
// those as near), if that one has none nearer. The nearest is found in
// O(log n): a pass over out for each made a log that compacts at each of
// thousands of recorded compactions quadratic (32,000 took 6 s).
func matchPredicted(out []CompactionAgreement, events []Event) {
	order := make([]int, len(out))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return out[a].RecordedRequest - out[b].RecordedRequest })
	reqs := make([]int, len(out))
	for i, k := range order {
		reqs[i] = out[k].RecordedRequest
	}
	for _, e := range events {
		if e.Outcome.Strategy != policy.Summarized && e.Outcome.Strategy != policy.Rotated {
			continue
		}
		a := &out[order[policy.NearestAt(reqs, order, e.Request)]]
		if a.PredictedRequest == nil || absInt(a.RecordedRequest-e.Request) < absInt(a.RecordedRequest-*a.PredictedRequest) {
			a.PredictedRequest, a.PredictedTokens = intPtr(e.Request), intPtr(e.Outcome.BeforeTokens)
		}
	}
}

func intPtr(v int) *int { return &v }

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
