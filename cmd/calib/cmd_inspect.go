package main

import (
	"context"
	"runtime"
	"slices"
	"sort"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/report"
)

func newInspectCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "inspect PATH...",
		Short: "Show what a corpus holds: sessions, turns, messages, tokens, recorded compactions",
		Long: `Inspect loads every PATH and prints one row per session: its format and agent
version, the policy --policy auto replays it with, messages by role, real turns (user messages that are not synthetic
continuations, subagent messages, summaries or bare tool results), tool calls,
content bytes and estimated tokens (bytes/4), the largest tool result, the
compactions the agent recorded ("kept": the length of the compacted history
smith's session.json holds beside a transcript) and the warnings raised while
loading.

Two more tables follow: tool calls by tool name, and one row per recorded
compaction (for clai: its strategy, trigger, window size, digest bytes, the
number of copies of each preamble, p1 and p2, which is the nesting depth of a
chained digest, and whether the summary is a deterministic digest or a model
summary).

With --plot DIR it also writes inspect-bytes-by-role and inspect-tool-calls
as PNG and SVG.`,
		Example: `  calib inspect --demo
  calib inspect ~/.smith/sessions
  calib inspect path/to/workspace --format json`,
		GroupID: groupCorpus,
		Args:    pathArgs(a),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Each session's row is computed as it loads, and the session
			// let go (sessionJobs): memory is the sessions in flight.
			rowsOf := newSessionJobs(cmd.Context(), runtime.GOMAXPROCS(0), func(_ context.Context, s *corpus.Session) (metrics.InspectRow, error) {
				r := metrics.Inspect(s)
				detachInspect(&r)
				return r, nil
			})
			defer rowsOf.close()
			l, err := a.loadSessionsEach(cmd.Context(), args, rowsOf.add)
			if err != nil {
				return err
			}
			rows, err := rowsOf.results(l.Sessions)
			if err != nil {
				return err
			}
			doc := report.Doc{Tables: inspectTables(rows), JSON: inspectResult{Sessions: rows}}
			if err := a.writeWithPlots(doc, func() ([]report.Figure, error) { return inspectPlots(rows) }); err != nil {
				return err
			}
			return l.Err()
		},
	}
}

// inspectResult is inspect's JSON output.
type inspectResult struct {
	Sessions []metrics.InspectRow `json:"sessions"`
}

// inspectTables lays out the rows: sessions, tool calls, recorded
// compactions. The last two are left out when empty.
func inspectTables(rows []metrics.InspectRow) []*report.Table {
	// Columns that would be empty for every session are left out.
	hasSystem, hasKept := false, false
	for _, r := range rows {
		hasSystem = hasSystem || r.MessagesByRole[string(corpus.RoleSystem)] > 0
		hasKept = hasKept || r.RecordedHistory > 0
	}
	cols := []report.Column{report.TextCol("session"), report.Col("format"), report.TextCol("version"), report.Col("auto_policy"),
		report.NumCol("messages"), report.NumCol("user"), report.NumCol("assistant"), report.NumCol("tool")}
	if hasSystem {
		cols = append(cols, report.NumCol("system"))
	}
	cols = append(cols, report.NumCol("turns"), report.NumCol("tool_calls"), report.NumCol("bytes"),
		report.NumCol("tokens"), report.NumCol("largest_result"), report.NumCol("compactions"))
	if hasKept {
		// smith: the compacted working history session.json kept beside
		// the transcript (the result of the agent's last compaction).
		cols = append(cols, report.NumCol("kept"))
	}
	cols = append(cols, report.NumCol("warnings"), report.TextCol("path"))
	sessions := report.NewTable("sessions", cols...)
	// The per-session tables name a session by id, and by path too when
	// two inputs share an id (a raw and a recorded clai database).
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	who := []report.Column{report.TextCol("session")}
	if idsRepeat(ids) {
		who = append(who, report.TextCol("path"))
	}
	whoCells := func(r metrics.InspectRow, extra ...report.Cell) []report.Cell {
		c := []report.Cell{report.Str(r.ID)}
		if len(who) > 1 {
			c = append(c, report.Str(r.Path))
		}
		return append(c, extra...)
	}
	tools := report.NewTable("tool calls", append(slices.Clone(who), report.TextCol("tool"), report.NumCol("calls"))...)
	recorded := report.NewTable("recorded compactions", append(slices.Clone(who), report.NumCol("index"),
		report.Col("strategy"), report.Col("trigger"), report.Col("status"), report.NumCol("window"),
		report.NumCol("digest_bytes"), report.NumCol("p1"), report.NumCol("p2"), report.Col("kind"), report.Col("chained"),
		report.NumCol("line"), report.NumCol("tokens_before"), report.NumCol("tokens_saved"), report.NumCol("cleared_ids"))...)
	persisted := report.NewTable("persisted tool results (sent as a marker from the request that wrote at_line on)",
		append(slices.Clone(who), report.TextCol("tool_call_id"), report.NumCol("bytes"), report.NumCol("boundary"),
			report.NumCol("at_line"), report.Col("placed"))...)
	for _, r := range rows {
		for _, p := range r.Persisted {
			persisted.AddRow(whoCells(r, report.Str(p.ToolCallID), report.Int(p.Bytes), report.Int(p.Boundary),
				report.Int(p.AtLine), report.Str(p.Placed))...)
		}
		cells := []report.Cell{report.Str(r.ID), report.Str(r.Format), report.Str(r.AgentVersion), report.Str(r.AutoPolicy),
			report.Int(r.Messages), report.Int(r.MessagesByRole["user"]), report.Int(r.MessagesByRole["assistant"]),
			report.Int(r.MessagesByRole["tool"])}
		if hasSystem {
			cells = append(cells, report.Int(r.MessagesByRole["system"]))
		}
		cells = append(cells, report.Int(r.Turns), report.Int(r.ToolCalls), report.Int(r.Bytes), report.Int(r.Tokens),
			report.Int(r.LargestToolResult), report.Int(len(r.Recorded)))
		if hasKept {
			cells = append(cells, report.Int(r.RecordedHistory))
		}
		cells = append(cells, report.Int(len(r.Warnings)), report.Str(r.Path))
		sessions.AddRow(cells...)
		for _, tc := range sortedCounts(r.ToolCallsByName) {
			tools.AddRow(whoCells(r, report.Str(tc.name), report.Int(tc.n))...)
		}
		for _, c := range r.Recorded {
			recorded.AddRow(whoCells(r, recordedCells(r.Format, c)...)...)
		}
	}
	out := []*report.Table{sessions}
	if len(tools.Rows) > 0 {
		out = append(out, tools)
	}
	if len(recorded.Rows) > 0 {
		out = append(out, recorded)
	}
	if len(persisted.Rows) > 0 {
		out = append(out, persisted)
	}
	if u := usageTable(rows); len(u.Rows) > 0 {
		out = append(out, u)
	}
	return out
}

// usageTable lists each session's recorded usage totals (what the
// provider counted), for sessions that record any.
func usageTable(rows []metrics.InspectRow) *report.Table {
	t := report.NewTable("recorded usage", report.TextCol("session"), report.NumCol("requests"), report.NumCol("input"),
		report.NumCol("cache_write_5m"), report.NumCol("cache_write_1h"), report.NumCol("cache_read"), report.NumCol("output"))
	for _, r := range rows {
		if u := r.Usage; u != nil {
			req := report.Int(u.Requests)
			if u.TotalsOnly {
				req = report.Str("totals")
			}
			t.AddRow(report.Str(r.ID), req, report.Int(u.InputTokens), report.Int(u.CacheWrite5m), report.Int(u.CacheWrite1h),
				report.Int(u.CacheReadTokens), report.Int(u.OutputTokens))
		}
	}
	return t
}

type count struct {
	name string
	n    int
}

// sortedCounts orders a tally by count, highest first, then by name, so
// output never depends on map order.
func sortedCounts(m map[string]int) []count {
	out := make([]count, 0, len(m))
	for k, v := range m {
		out = append(out, count{k, v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].n != out[j].n {
			return out[i].n > out[j].n
		}
		return out[i].name < out[j].name
	})
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// recordedCells are a recorded compaction's cells after the session's.
// A figure the recording does not hold is blank, not 0: the window, the
// preamble counts, the summary's kind and the chain are clai's notions
// (its compactions table), a digest's size needs a summary (a Claude Code
// microcompact has none), and the token figures, cleared ids and line
// are blank where JSON leaves them out.
func recordedCells(format string, c metrics.InspectCompaction) []report.Cell {
	known := func(n int) report.Cell {
		if n == 0 {
			return report.Empty()
		}
		return report.Int(n)
	}
	clai := format == string(corpus.FormatClai)
	window, p1, p2, kind, chained := report.Empty(), report.Empty(), report.Empty(), report.Str(""), report.Str("")
	if clai {
		window, p1, p2, kind, chained = report.Int(c.Window), report.Int(c.P1), report.Int(c.P2), report.Str(c.Kind), report.Str(yesNo(c.Chained))
	}
	if c.SummaryMissing {
		kind = report.Str("(missing)")
	}
	return []report.Cell{report.Int(c.Index), report.Str(c.Strategy), report.Str(c.Trigger), report.Str(c.Status),
		window, known(c.DigestBytes), p1, p2, kind, chained, known(c.Line), known(c.TokensBefore),
		known(c.TokensSaved), known(c.Cleared)}
}
