package metrics

import (
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/loss"
)

// LossRow is one session's loss signals (replay/loss), as the session's
// JSON "loss" object: the counts, and the same counts per stage that hid
// the results.
type LossRow struct {
	loss.Counts
	ByStage map[string]loss.Counts `json:"by_stage"`
}

// LossAt names a moment of a replay: the request and the log line of the
// message it produced.
type LossAt struct {
	Request int `json:"request"`
	Line    int `json:"line"`
}

// LossDetail is one result that was lost or fetched back (--loss-detail
// and the report's top-level "losses").
type LossDetail struct {
	Session     string  `json:"session"`
	ToolCallID  string  `json:"tool_call_id"`
	Tool        string  `json:"tool"`
	Subject     string  `json:"subject"`
	Stage       string  `json:"stage"`
	HiddenAt    LossAt  `json:"hidden_at"`
	NeededAt    *LossAt `json:"needed_at"`
	RefetchedAt *LossAt `json:"refetched_at"`
	// NeededBy says what the use rests on: "name" (the subject named) or
	// "quote" (a distinctive line quoted). Lost is the signal.
	NeededBy string `json:"needed_by,omitempty"`
	Lost     bool   `json:"lost"`
}

// Loss is a replay's loss row, nil when the replay did not track loss.
func Loss(t *replay.Trace) *LossRow {
	if t.Loss == nil {
		return nil
	}
	r := &LossRow{Counts: t.Loss.Counts, ByStage: map[string]loss.Counts{}}
	for k, v := range t.Loss.ByStage {
		r.ByStage[k] = v
	}
	return r
}

// LossDetails lists every result of a replay that was lost or fetched back
// after it was hidden, in hiding order.
func LossDetails(t *replay.Trace) []LossDetail {
	if t.Loss == nil {
		return nil
	}
	n := 0
	for _, s := range t.Loss.Signals {
		if s.Lost || s.FetchedMsg >= 0 {
			n++
		}
	}
	out := make([]LossDetail, 0, n) // sized once: a large replay lists thousands
	msgs := t.Session.Messages
	line := func(i int) int {
		if i >= 0 && i < len(msgs) {
			return msgs[i].Line
		}
		return 0
	}
	for _, s := range t.Loss.Signals {
		if !s.Lost && s.FetchedMsg < 0 {
			continue
		}
		d := LossDetail{Session: t.Session.ID, ToolCallID: s.Result.ID, Tool: s.Result.Tool, Subject: s.Result.Subject.Display,
			Stage: s.Hide.Stage, HiddenAt: LossAt{s.Hide.Request, line(s.Hide.At)}, NeededBy: s.NeededBy, Lost: s.Lost}
		if s.NeededMsg >= 0 {
			d.NeededAt = &LossAt{s.NeededRequest, s.NeededLine}
		}
		if s.FetchedMsg >= 0 {
			d.RefetchedAt = &LossAt{s.FetchedRequest, s.FetchedLine}
		}
		out = append(out, d)
	}
	return out
}

// lossMetrics are the registry's loss values of one replay.
func lossMetrics(r *loss.Report) map[string]float64 {
	m := map[string]float64{
		"results_hidden":    float64(r.Hidden),
		"results_unseen":    float64(r.Unseen),
		"results_needed":    float64(r.Needed),
		"results_refetched": float64(r.Refetched),
		"results_lost":      float64(r.Lost),
		"refetch_tokens":    float64(r.RefetchTokens),
	}
	return m
}
