package cache

import (
	"math"
	"sort"
)

// Side is one column of a cost agreement: recorded or predicted input,
// as the provider reports it.
type Side struct {
	InputTokens      int     `json:"input_tokens"`
	CacheWriteTokens int     `json:"cache_write_tokens"`
	CacheReadTokens  int     `json:"cache_read_tokens"`
	BilledTokens     float64 `json:"billed_tokens"`
}

// SideOf summarizes tokens billed with rates.
func SideOf(t Tokens, r Rates) Side {
	return Side{InputTokens: t.Uncached, CacheWriteTokens: t.Write(), CacheReadTokens: t.Read, BilledTokens: round2(r.Billed(t))}
}

// RequestAgreement is one request of a session: what the provider
// recorded and what the model predicted.
type RequestAgreement struct {
	Request   int    `json:"request"`
	Line      int    `json:"line"`
	Reason    Reason `json:"reason"`
	Recorded  Side   `json:"recorded"`
	Predicted Side   `json:"predicted"`
}

// SessionAgreement is one session of `replay --compare-recorded`.
type SessionAgreement struct {
	Session   string `json:"session"`
	Requests  int    `json:"requests"`
	Recorded  Side   `json:"recorded"`
	Predicted Side   `json:"predicted"`
	// BilledError is predicted/recorded − 1 of billed input (a fraction).
	BilledError float64 `json:"billed_error"`
	// PerRequest is for the text tables and plots; the JSON keeps the
	// issue's shape.
	PerRequest []RequestAgreement `json:"-"`
}

// AgreementSummary is the overall line.
type AgreementSummary struct {
	Sessions           int     `json:"sessions"`
	MeanAbsBilledError float64 `json:"mean_abs_billed_error"`
	MaxAbsBilledError  float64 `json:"max_abs_billed_error"`
}

// Agreement is the cost_agreement object.
type Agreement struct {
	Sessions []SessionAgreement `json:"sessions"`
	Summary  AgreementSummary   `json:"summary"`
}

// Compare builds one session's agreement from the recorded and predicted
// tokens of the same requests (equal lengths; requests the log recorded
// no usage for are left out by the caller). rates prices both sides.
func Compare(session string, rates Rates, lines []int, recorded []Tokens, predicted []Step) SessionAgreement {
	a := SessionAgreement{Session: session, Requests: len(recorded)}
	var rec, pred Tokens
	for i := range recorded {
		rec = rec.Add(recorded[i])
		pred = pred.Add(predicted[i].Tokens)
		ra := RequestAgreement{Request: i, Reason: predicted[i].Reason,
			Recorded: SideOf(recorded[i], rates), Predicted: SideOf(predicted[i].Tokens, rates)}
		if i < len(lines) {
			ra.Line = lines[i]
		}
		a.PerRequest = append(a.PerRequest, ra)
	}
	a.Recorded, a.Predicted = SideOf(rec, rates), SideOf(pred, rates)
	if a.Recorded.BilledTokens > 0 {
		a.BilledError = round6(rates.Billed(pred)/rates.Billed(rec) - 1)
	}
	return a
}

// Summarize orders sessions by name and computes the summary.
func Summarize(ss []SessionAgreement) Agreement {
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].Session < ss[j].Session })
	a := Agreement{Sessions: ss}
	if ss == nil {
		a.Sessions = []SessionAgreement{}
	}
	var sum float64
	for _, s := range ss {
		e := math.Abs(s.BilledError)
		sum += e
		a.Summary.MaxAbsBilledError = max(a.Summary.MaxAbsBilledError, e)
	}
	a.Summary.Sessions = len(ss)
	if len(ss) > 0 {
		a.Summary.MeanAbsBilledError = round6(sum / float64(len(ss)))
	}
	return a
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
