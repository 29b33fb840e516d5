// Package metrics turns replay traces and loaded sessions into rows: per
// compaction event, per session and per job, plus growth fits and
// comparisons with what the agent recorded. It computes; it never prints.
package metrics

import (
	"sort"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/loss"
)

// StageRow is what one stage did in one compaction.
type StageRow struct {
	Name          string `json:"name"`
	BeforeTokens  int    `json:"before_tokens"`
	AfterTokens   int    `json:"after_tokens"`
	Reclaimed     int    `json:"reclaimed_tokens"`
	BlocksTouched int    `json:"blocks_touched"`
	BytesRemoved  int64  `json:"bytes_removed"`
	// Loss is what the results this stage hid cost (replay/loss), when
	// the replay tracked loss.
	Loss *loss.Counts `json:"loss,omitempty"`
}

// EventRow is one compaction.
type EventRow struct {
	Session       string `json:"session"`
	Index         int    `json:"index"`
	Checkpoint    int    `json:"checkpoint"`
	Turn          int    `json:"turn"`
	Strategy      string `json:"strategy"`
	BeforeTokens  int    `json:"before_tokens"`
	AfterTokens   int    `json:"after_tokens"`
	TargetTokens  int    `json:"target_tokens"`
	ReachedTarget bool   `json:"reached_target"`
	Exhausted     bool   `json:"exhausted"`
	Removed       int    `json:"removed_messages"`
	Summarizer    string `json:"summarizer,omitempty"`
	// OutputCap marks an event that only capped tool output as it arrived
	// (policy.IsArrivalOnly): counted in output_caps, not a compaction.
	OutputCap bool       `json:"output_cap,omitempty"`
	Stages    []StageRow `json:"stages"`
}

// SessionRow sums up one session's replay: what the policy cost (tokens
// sent across all requests, compactions, each of which changes the prompt
// and, when it changed what an earlier request sent, breaks the provider's
// cache) and what it lost (results mangled or summarized away, target
// misses, exhausted contexts).
type SessionRow struct {
	ID       string `json:"id"`
	Format   string `json:"format"`
	Messages int    `json:"messages"`
	Requests int    `json:"requests"`
	// Compactions are the events of the policy's compaction stages;
	// OutputCaps the events that only capped tool output as it arrived
	// (policy.IsArrivalOnly), which are not compactions. A compaction
	// may also have changed only what was appended since the previous
	// request (a clear of results the model has not seen yet): the cost
	// layer then prices no rewrite (replay.Request.Rewrote).
	Compactions int `json:"compactions"`
	OutputCaps  int `json:"output_caps,omitempty"`
	// PeakTokens is the largest request actually sent; PeakBefore the
	// largest context the policy was handed.
	PeakTokens int   `json:"peak_tokens"`
	PeakBefore int   `json:"peak_before_tokens"`
	TokensSent int64 `json:"tokens_sent"`
	// Reclaimed is tokens reclaimed per stage name, summed over events.
	Reclaimed map[string]int `json:"reclaimed_by_stage"`
	// ResultsMangled counts tool results whose text in the final history
	// differs from what was recorded; ResultsDropped those no longer in it.
	ResultsMangled int `json:"results_mangled"`
	ResultsDropped int `json:"results_dropped"`
	TargetMisses   int `json:"target_misses"`
	Exhausted      int `json:"exhausted"`
	// OverWindow counts the requests whose context, as the policy's
	// trigger measures it, went past the window the policy assumes
	// (replay.Trace.Window): requests the agent could not have sent.
	OverWindow    int                `json:"over_window,omitempty"`
	Violations    int                `json:"violations"`
	ViolationList []replay.Violation `json:"violation_list,omitempty"`
	// Loss is what hiding tool results cost the agent, when the replay
	// tracked it.
	Loss *LossRow `json:"loss,omitempty"`
}

// Events turns a trace's compactions into rows.
func Events(t *replay.Trace) []EventRow {
	rows := make([]EventRow, 0, len(t.Events))
	for _, e := range t.Events {
		o := e.Outcome
		r := EventRow{Session: t.Session.ID, Index: e.Index, Checkpoint: e.Request, Turn: e.Turn,
			Strategy: string(o.Strategy), BeforeTokens: o.BeforeTokens, AfterTokens: o.AfterTokens,
			TargetTokens: o.TargetTokens, ReachedTarget: o.ReachedTarget, Exhausted: o.Exhausted,
			Removed: o.Removed, Summarizer: o.Summarizer, OutputCap: policy.IsArrivalOnly(o), Stages: make([]StageRow, 0, len(o.Stages))}
		if r.OutputCap {
			// A cap shortens one arriving output and aims at no context
			// size: it showed its policy's compaction target as missed,
			// though no target miss is counted.
			r.TargetTokens, r.ReachedTarget = 0, true
		}
		for _, s := range o.Stages {
			sr := stageRow(s)
			if t.Loss != nil {
				if c, ok := t.Loss.ByEventStage[e.Index][s.Name]; ok {
					sr.Loss = &c
				} else {
					sr.Loss = &loss.Counts{}
				}
			}
			r.Stages = append(r.Stages, sr)
		}
		rows = append(rows, r)
	}
	return rows
}

func stageRow(s policy.StageReport) StageRow {
	return StageRow{Name: s.Name, BeforeTokens: s.BeforeTokens, AfterTokens: s.AfterTokens,
		Reclaimed: s.BeforeTokens - s.AfterTokens, BlocksTouched: s.BlocksTouched, BytesRemoved: s.BytesRemoved}
}

// Session sums up a trace. Loss counts need the final history
// (replay.Options.KeepFinal); without it they are zero.
func Session(t *replay.Trace) SessionRow {
	r := SessionRow{ID: t.Session.ID, Format: string(t.Session.Format), Messages: t.Messages,
		Requests: len(t.Requests), Reclaimed: map[string]int{},
		Violations: len(t.Violations), ViolationList: t.Violations}
	for _, q := range t.Requests {
		if t.Window > 0 && q.Context > t.Window {
			r.OverWindow++
		}
		r.TokensSent += int64(q.Sent)
		r.PeakTokens = max(r.PeakTokens, q.Sent)
		r.PeakBefore = max(r.PeakBefore, q.Tokens)
	}
	for _, e := range t.Events {
		if policy.IsArrivalOnly(e.Outcome) {
			r.OutputCaps++
		} else {
			r.Compactions++
		}
		for _, s := range e.Outcome.Stages {
			r.Reclaimed[s.Name] += s.BeforeTokens - s.AfterTokens
		}
		// An output cap is no compaction (output_caps): it misses no target.
		if !e.Outcome.ReachedTarget && !policy.IsArrivalOnly(e.Outcome) {
			r.TargetMisses++
		}
		if e.Outcome.Exhausted {
			r.Exhausted++
		}
	}
	if t.Final != nil {
		r.ResultsMangled, r.ResultsDropped = resultLoss(t.Session.Messages, t.Final)
	}
	r.Loss = Loss(t)
	return r
}

// resultLoss compares the final history's tool results with the recorded
// ones, by tool call id.
func resultLoss(raw, final []corpus.Message) (mangled, dropped int) {
	main := false
	for i := range raw {
		main = main || !raw[i].Sidechain
	}
	// One map sized once, from a tool call id to its result's index in
	// texts, and a slice of seen flags: a map of texts grown entry by
	// entry and a second map of ids seen were most of this.
	n := 0
	for i := range raw {
		if raw[i].Sidechain && main {
			continue
		}
		for j := range raw[i].Blocks {
			if raw[i].Blocks[j].Kind == corpus.KindToolResult {
				n++
			}
		}
	}
	orig := make(map[string]int32, n)
	texts := make([]string, 0, n)
	for i := range raw {
		if raw[i].Sidechain && main {
			continue
		}
		for j := range raw[i].Blocks {
			b := &raw[i].Blocks[j]
			if b.Kind != corpus.KindToolResult {
				continue
			}
			if k, ok := orig[b.ToolCallID]; ok {
				texts[k] = b.Text // the last result with an id is its text
				continue
			}
			orig[b.ToolCallID] = int32(len(texts))
			texts = append(texts, b.Text)
		}
	}
	seen, nSeen := make([]bool, len(texts)), 0
	for i := range final {
		for j := range final[i].Blocks {
			b := &final[i].Blocks[j]
			if b.Kind != corpus.KindToolResult {
				continue
			}
			if k, ok := orig[b.ToolCallID]; ok && !seen[k] {
				seen[k] = true
				nSeen++
				if texts[k] != b.Text {
					mangled++
				}
			}
		}
	}
	return mangled, len(texts) - nSeen
}

// StageNames lists the stage names that occur in rows, in first-seen
// order, so tables get one column per stage.
func StageNames(rows []SessionRow, events []EventRow) []string {
	seen := map[string]bool{}
	var names []string
	for _, e := range events {
		for _, s := range e.Stages {
			if !seen[s.Name] {
				seen[s.Name] = true
				names = append(names, s.Name)
			}
		}
	}
	var rest []string
	for _, r := range rows {
		for n := range r.Reclaimed {
			if !seen[n] {
				seen[n] = true
				rest = append(rest, n)
			}
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}
