package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/cache"
	"github.com/calib-dev/calib/report"
)

type policyRef struct {
	Name   string        `json:"name"`
	Params policy.Params `json:"params"`
}

type replayJSON struct {
	Policy policyRef          `json:"policy"`
	Events []metrics.EventRow `json:"events"`
	// eventPaths is each event's session file, for the path column.
	eventPaths []string
	Sessions   []replaySessionJSON `json:"sessions"`
	// Agreement compares the policy with the clearing events the agent
	// recorded (Claude Code microcompact), with --compare-recorded.
	Agreement *agreementJSON `json:"agreement,omitempty"`
	// Cost is each session's bill through the prompt-cache model, and
	// CostAgreement (--compare-recorded) its agreement with the usage the
	// provider recorded.
	Cost          []costSessionJSON `json:"cost"`
	CostAgreement *cache.Agreement  `json:"cost_agreement,omitempty"`
	// Losses lists every hidden tool result the agent later lost or
	// fetched back (the --loss-detail table).
	Losses []metrics.LossDetail `json:"losses"`
}

type agreementJSON struct {
	Summary metrics.AgreementSummary `json:"summary"`
	Events  []metrics.AgreementRow   `json:"events"`
	// Compactions judges every recorded full compaction (Claude Code
	// boundary or summary, Codex compacted) against the replay's own.
	Compactions        []replay.CompactionAgreement `json:"compactions"`
	CompactionsSummary metrics.CompactionSummary    `json:"compactions_summary"`
}

type replaySessionJSON struct {
	metrics.SessionRow
	Policy string        `json:"policy"`
	Params policy.Params `json:"params"`
	Path   string        `json:"path"`
	// Metrics are the session's values of the metric registry
	// (metrics.SessionMetrics), by name as sweep rows carry them; the
	// session table's metric columns come from here.
	Metrics map[string]float64 `json:"metrics"`
	Compare *replay.Divergence `json:"compare_recorded,omitempty"`
	// Rederived re-derives each digest clai recorded (clai-rotation only).
	Rederived []replay.Rederived `json:"rederived,omitempty"`
	// recorded says what else the agent recorded (recordedNote).
	recorded string
}

// replayTables are replay's tables; chosen are the session table's metric
// columns (nil: every column the sessions have).
func replayTables(out replayJSON, compare bool, chosen []string) []*report.Table {
	rows := make([]metrics.SessionRow, len(out.Sessions))
	pols := make([]string, len(out.Sessions))
	ids := make([]string, len(out.Sessions))
	for i, s := range out.Sessions {
		rows[i], pols[i], ids[i] = s.SessionRow, s.Policy, s.ID
	}
	withPath := idsRepeat(ids)
	stages := stageColumns(pols, rows, out.Events)

	cols := []report.Column{report.TextCol("session")}
	if withPath {
		cols = append(cols, report.TextCol("path"))
	}
	cols = append(cols, report.NumCol("#"), report.NumCol("request"), report.NumCol("turn"),
		report.TextCol("strategy"), report.NumCol("before"), report.NumCol("after"), report.NumCol("target"),
		report.TextCol("reached"), report.TextCol("exhausted"))
	for _, s := range stages {
		cols = append(cols, report.NumCol(s))
	}
	cols = append(cols, report.TextCol("blocks touched"), report.TextCol("hidden (lost)"))
	title := "Compactions"
	for _, e := range out.Events {
		if e.OutputCap {
			// The caps are events with a stage and a loss, but they
			// rewrite nothing the model saw: not compactions
			// (policy.IsArrivalOnly), and the title must not call them so.
			title = "Compactions and output caps"
			break
		}
	}
	ev := report.NewTable(fmt.Sprintf("%s (policy %s; stage columns are tokens reclaimed; hidden (lost) are tool results per stage)", title, out.Policy.Name), cols...)
	for i, e := range out.Events {
		// A policy without a token target (a rotation keeps a fixed
		// tail; recorded follows the log; swe-agent masks by turns)
		// reports 0: show none, not a target of 0 reached.
		target, reached := report.Int(e.TargetTokens), report.Str(yesNo(e.ReachedTarget))
		if e.TargetTokens == 0 {
			target, reached = report.Str("-"), report.Str("-")
		}
		cells := []report.Cell{report.Str(e.Session)}
		if withPath {
			cells = append(cells, report.Str(out.eventPaths[i]))
		}
		cells = append(cells, report.Int(e.Index+1), report.Int(e.Checkpoint), report.Int(e.Turn),
			report.Str(e.Strategy), report.Int(e.BeforeTokens), report.Int(e.AfterTokens), target, reached, report.Str(yesNo(e.Exhausted)))
		var touched, hid []string
		for _, name := range stages {
			c := report.Empty()
			for _, st := range e.Stages {
				if st.Name == name {
					c = report.Int(st.Reclaimed)
					touched = append(touched, fmt.Sprintf("%s:%d", st.Name, st.BlocksTouched))
					if st.Loss != nil && st.Loss.Hidden > 0 {
						hid = append(hid, fmt.Sprintf("%s:%d (%d)", st.Name, st.Loss.Hidden, st.Loss.Lost))
					}
				}
			}
			cells = append(cells, c)
		}
		cells = append(cells, report.Str(strings.Join(touched, " ")), report.Str(strings.Join(hid, " ")))
		ev.AddRow(cells...)
	}

	// The metric columns are the registry's (metrics.Columns): a metric
	// with a per-session value gets its column here without more code.
	// Stage columns come in the policy's stage order (stageColumns), as
	// in the compactions table.
	var present []string
	for _, name := range stages {
		present = append(present, "reclaimed_"+name)
	}
	for _, s := range out.Sessions {
		for _, k := range slices.Sorted(maps.Keys(s.Metrics)) {
			present = append(present, k)
		}
	}
	mcols := pickColumns(metrics.Columns(present, stages), chosen)
	cols = []report.Column{report.TextCol("session")}
	if withPath {
		cols = append(cols, report.TextCol("path"))
	}
	cols = append(cols, report.TextCol("policy"), report.NumCol("messages"), report.NumCol("requests"))
	cols = append(cols, labelColumns(mcols)...)
	if compare {
		cols = append(cols, report.TextCol("recorded"))
	}
	st := report.NewTable("Sessions (stage columns are tokens reclaimed; mangled/dropped are tool results; calib metrics explains each column)", cols...)
	// The bill's metrics are the cost table's (out.Cost, one per session
	// in the same order); a --columns naming one shows it here too, its
	// usd marked as every usd cell is.
	usd := make([]usdRow, len(out.Sessions))
	for i, s := range out.Sessions {
		usd[i].values = s.Metrics
		if i < len(out.Cost) {
			c := out.Cost[i]
			usd[i].values = maps.Clone(s.Metrics)
			maps.Copy(usd[i].values, c.Metrics)
			if !c.Priced {
				usd[i].models = []string{c.Model}
			}
		}
	}
	notes := newUSDNotes(usd)
	for i, s := range out.Sessions {
		cells := []report.Cell{report.Str(s.ID)}
		if withPath {
			cells = append(cells, report.Str(s.Path))
		}
		cells = append(cells, report.Str(s.Policy), report.Int(s.Messages), report.Int(s.Requests))
		mcells := metricCells(mcols, usd[i].values)
		notes.mark(mcols, mcells, usd[i])
		cells = append(cells, mcells...)
		if compare {
			cells = append(cells, report.Str(compareCell(s)))
		}
		st.AddRow(cells...)
	}
	st.Notes = notes.notes(mcols)
	tables := []*report.Table{ev, st}
	if out.Agreement != nil {
		tables = append(tables, agreementTables(out.Agreement)...)
	}
	return tables
}

// lossDetailTable is --loss-detail: every hidden result the agent later
// lost or fetched back, with the request (and log line) of each moment.
func lossDetailTable(ds []metrics.LossDetail) *report.Table {
	t := report.NewTable("Lost or refetched tool results (request/line; needed by: name or quote)",
		report.TextCol("session"), report.TextCol("tool call id"), report.TextCol("tool"), report.TextCol("subject"),
		report.TextCol("stage"), report.TextCol("hidden at"), report.TextCol("needed at"), report.TextCol("by"),
		report.TextCol("refetched at"), report.TextCol("lost"))
	at := func(a *metrics.LossAt) string {
		if a == nil {
			return "-"
		}
		return fmt.Sprintf("%d/L%d", a.Request, a.Line)
	}
	for _, d := range ds {
		t.AddRow(report.Str(d.Session), report.Str(d.ToolCallID), report.Str(d.Tool), report.Str(d.Subject), report.Str(d.Stage),
			report.Str(at(&d.HiddenAt)), report.Str(at(d.NeededAt)), report.Str(d.NeededBy), report.Str(at(d.RefetchedAt)), report.Str(yesNo(d.Lost)))
	}
	return t
}

func agreementTables(a *agreementJSON) []*report.Table {
	t := report.NewTable("Agreement with the recorded clearing events (ids: cleared by the agent / by the policy; tokens: recorded / predicted)",
		report.TextCol("session"), report.NumCol("line"), report.TextCol("fired"), report.NumCol("agent ids"), report.NumCol("policy ids"),
		report.NumCol("missing"), report.NumCol("extra"), report.TextCol("exact"), report.NumCol("jaccard"),
		report.NumCol("before rec"), report.NumCol("before pred"), report.NumCol("saved rec"), report.NumCol("saved pred"))
	for _, e := range a.Events {
		t.AddRow(report.Str(e.Session), report.Int(e.Line), report.Str(yesNo(e.Fired)), report.Int(e.Recorded), report.Int(e.Predicted),
			report.Int(len(e.Missing)), report.Int(len(e.Extra)), report.Str(yesNo(e.Exact)), report.Float(e.Jaccard, 3),
			report.Int(e.RecordedBefore), report.Int(e.PredictedBefore), report.Int(e.RecordedSaved), report.Int(e.PredictedSaved))
	}
	s := a.Summary
	sum := report.NewTable("Agreement summary",
		report.NumCol("events"), report.NumCol("exact"), report.NumCol("mean jaccard"), report.NumCol("mean |saved error|"),
		report.NumCol("mean |before error|"), report.NumCol("checkpoints"), report.NumCol("trigger agreement"))
	sum.AddRow(report.Int(s.Events), report.Int(s.Exact), report.Float(s.MeanJaccard, 3), report.Float(s.MeanAbsSavedError, 1),
		report.Float(s.MeanAbsBeforeError, 1), report.Int(s.Checkpoints), report.Float(s.TriggerAgreement, 3))
	var out []*report.Table
	if len(a.Events) > 0 {
		out = append(out, t, sum)
	}
	if len(a.Compactions) == 0 {
		return out
	}
	c := report.NewTable("Agreement with the recorded full compactions (request before which each compacted; tokens each measured)",
		report.TextCol("session"), report.NumCol("line"), report.Col("kind"), report.NumCol("recorded request"),
		report.NumCol("predicted request"), report.NumCol("recorded tokens"), report.NumCol("predicted tokens"))
	for _, e := range a.Compactions {
		c.AddRow(report.Str(e.Session), report.Int(e.Line), report.Str(e.Kind), report.Int(e.RecordedRequest),
			optInt(e.PredictedRequest), optInt(e.RecordedTokens), optInt(e.PredictedTokens))
	}
	cs := a.CompactionsSummary
	csum := report.NewTable("Full-compaction agreement summary",
		report.NumCol("events"), report.NumCol("predicted"), report.NumCol("within ±1 request"), report.NumCol("timing"),
		report.NumCol("events with tokens"), report.NumCol("mean |token error|"))
	csum.AddRow(report.Int(cs.Events), report.Int(cs.Predicted), report.Int(cs.WithinOne), report.Float(cs.Timing, 3),
		report.Int(cs.TokenEvents), report.Float(cs.MeanTokenError, 1))
	return append(out, c, csum)
}

// optInt is a figure that may be absent ("none").
func optInt(v *int) report.Cell {
	if v == nil {
		return report.Str("none")
	}
	return report.Int(*v)
}

func compareCell(s replaySessionJSON) string {
	d := s.Compare
	switch {
	case len(s.Rederived) > 0:
		count := map[string]int{}
		var variants []string // the variants that rendered them (replay.Rederive)
		for _, r := range s.Rederived {
			count[r.Verdict]++
			if r.Variant != "" && !slices.Contains(variants, r.Variant) {
				variants = append(variants, r.Variant)
			}
		}
		out := fmt.Sprintf("%d of %d recorded digests re-derived byte for byte", count[replay.RederiveMatch], len(s.Rederived))
		if len(variants) > 0 {
			slices.Sort(variants)
			out += " (rendered as " + strings.Join(variants, " and ") + ")"
		}
		for _, v := range []string{replay.RederiveMismatch, replay.RederiveWindow, replay.RederiveSkipped} {
			if count[v] > 0 {
				out += fmt.Sprintf(", %d %s", count[v], v)
			}
		}
		return out
	case d == nil:
		return s.recorded
	case d.Match:
		return fmt.Sprintf("identical (%d messages)", d.Recorded)
	}
	return fmt.Sprintf("differs at message %d: %s", d.Index, d.What)
}
