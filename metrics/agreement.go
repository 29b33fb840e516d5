package metrics

import (
	"math"

	"github.com/calib-dev/calib/replay"
)

// AgreementRow is one recorded tool-result clearing event (a Claude Code
// microcompact_boundary) judged against a policy: the ids it would clear
// there vs the ids the agent cleared, and its token figures vs the agent's.
type AgreementRow struct {
	Session string `json:"session"`
	Event   int    `json:"event"`
	Line    int    `json:"line"`
	// Checkpoint: the policy checks at this point; Fired: on its own
	// trigger it would have acted here.
	Checkpoint bool     `json:"checkpoint"`
	Fired      bool     `json:"fired"`
	Recorded   int      `json:"recorded_ids"`
	Predicted  int      `json:"predicted_ids"`
	Missing    []string `json:"missing"`
	Extra      []string `json:"extra"`
	Unknown    []string `json:"unknown"`
	Exact      bool     `json:"exact"`
	Jaccard    float64  `json:"jaccard"`
	// Token figures: the agent's preTokens and tokensSaved and the
	// policy's own, with the errors (predicted minus recorded).
	RecordedBefore  int `json:"recorded_before_tokens"`
	PredictedBefore int `json:"predicted_before_tokens"`
	BeforeError     int `json:"before_error"`
	RecordedSaved   int `json:"recorded_saved_tokens"`
	PredictedSaved  int `json:"predicted_saved_tokens"`
	SavedError      int `json:"saved_error"`
}

// AgreementSummary sums agreement over sessions, weighting every event
// (and every checkpoint) equally.
type AgreementSummary struct {
	Sessions int `json:"sessions"`
	Events   int `json:"events"`
	// Exact counts events where the policy, on its own trigger, acts and
	// clears exactly the recorded ids; ExactIDs those where it clears
	// exactly them when forced; Fired those where its trigger fires.
	Exact    int `json:"exact"`
	ExactIDs int `json:"exact_ids"`
	Fired    int `json:"fired"`
	// Unknown counts recorded ids that name no earlier tool result.
	Unknown            int     `json:"unknown_ids"`
	MeanJaccard        float64 `json:"mean_jaccard"`
	MeanAbsSavedError  float64 `json:"mean_abs_saved_error"`
	MeanAbsBeforeError float64 `json:"mean_abs_before_error"`
	// Trigger agreement over every checkpoint of the policy: where it and
	// the agent both acted, or both did not.
	Checkpoints      int     `json:"checkpoints"`
	AgentActed       int     `json:"agent_acted"`
	PolicyActed      int     `json:"policy_acted"`
	BothActed        int     `json:"both_acted"`
	TriggerAgreement float64 `json:"trigger_agreement"`
}

// AgreementRows lists every judged event, session by session.
func AgreementRows(as []replay.Agreement) []AgreementRow {
	var rows []AgreementRow
	for _, a := range as {
		for _, e := range a.Events {
			rows = append(rows, AgreementRow{Session: a.Session, Event: e.Event, Line: e.Line,
				Checkpoint: e.Checkpoint, Fired: e.Fired, Recorded: len(e.Recorded), Predicted: len(e.Predicted),
				Missing: nonNil(e.Missing), Extra: nonNil(e.Extra), Unknown: nonNil(e.Unknown),
				Exact: e.Exact, Jaccard: round4(e.Jaccard),
				RecordedBefore: e.RecordedBefore, PredictedBefore: e.PredictedBefore, BeforeError: e.PredictedBefore - e.RecordedBefore,
				RecordedSaved: e.RecordedSaved, PredictedSaved: e.PredictedSaved, SavedError: e.PredictedSaved - e.RecordedSaved})
		}
	}
	return rows
}

// nonNil makes empty lists print as [] in JSON, not null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// SummarizeAgreement sums up agreement over sessions. Sessions without a
// recorded clearing event count towards Sessions and their checkpoints
// only.
func SummarizeAgreement(as []replay.Agreement) AgreementSummary {
	s := AgreementSummary{Sessions: len(as)}
	var jac, saved, before float64
	off := 0
	for _, a := range as {
		s.Checkpoints += a.Checkpoints
		s.AgentActed += a.AgentActed
		s.PolicyActed += a.PolicyActed
		s.BothActed += a.BothActed
		for _, e := range a.Events {
			s.Events++
			if e.Exact {
				s.ExactIDs++
				if e.Fired {
					s.Exact++
				}
			}
			if e.Fired {
				s.Fired++
			}
			if !e.Checkpoint {
				off++
			}
			s.Unknown += len(e.Unknown)
			jac += e.Jaccard
			saved += math.Abs(float64(e.PredictedSaved - e.RecordedSaved))
			before += math.Abs(float64(e.PredictedBefore - e.RecordedBefore))
		}
	}
	if s.Events > 0 {
		n := float64(s.Events)
		s.MeanJaccard, s.MeanAbsSavedError, s.MeanAbsBeforeError = round4(jac/n), round1(saved/n), round1(before/n)
	}
	s.TriggerAgreement = triggerAgreement(s.Checkpoints, off, s.AgentActed, s.PolicyActed, s.BothActed)
	return s
}

// triggerAgreement is the fraction of checkpoints where the policy and the
// agent agree on acting. An agent event where the policy does not check
// (off) is a disagreement that adds a point.
func triggerAgreement(checkpoints, off, agent, policy, both int) float64 {
	n := checkpoints + off
	if n == 0 {
		return 1
	}
	agree := n - (policy - both) - (agent - both)
	return round4(float64(agree) / float64(n))
}

// agreementMetrics names one session's agreement for sweeps. A session
// without a recorded clearing event has none. Each rate comes with its
// numerator and denominator (see the Registry), so a parameter set's rate
// is the rate over all its events, as replay's summary reports it, not a
// mean of per-session rates.
func agreementMetrics(a replay.Agreement) map[string]float64 {
	if len(a.Events) == 0 {
		return nil
	}
	s := SummarizeAgreement([]replay.Agreement{a})
	var saved, before, jac float64
	off := 0
	for _, e := range a.Events {
		saved += relErr(e.PredictedSaved, e.RecordedSaved)
		before += relErr(e.PredictedBefore, e.RecordedBefore)
		jac += e.Jaccard
		if !e.Checkpoint {
			off++
		}
	}
	points := s.Checkpoints + off
	agreed := points - (s.PolicyActed - s.BothActed) - (s.AgentActed - s.BothActed)
	m := map[string]float64{
		"recorded_events":  float64(s.Events),
		"exact_events":     float64(s.Exact),
		"jaccard_sum":      jac,
		"trigger_points":   float64(points),
		"trigger_agreed":   float64(agreed),
		"saved_error_sum":  saved,
		"before_error_sum": before,
	}
	fillRatios(Registry(), m)
	return m
}

// relErr is |got − want| / want; when nothing was recorded (a boundary
// without figures) it is 0 for a prediction of 0 and 1 for any other.
func relErr(got, want int) float64 {
	d := math.Abs(float64(got - want))
	if want == 0 {
		return math.Min(d, 1)
	}
	return d / float64(want)
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }
