package clai

import (
	"database/sql"
	"fmt"

	"github.com/calib-dev/calib/corpus"
)

// readCompactions loads assistant_compactions in created_at, rowid order,
// joins each row to its summary message, classifies the stored text by its
// preambles and follows the rotation chain (specs/clai.md §1: for k ≥ 2,
// c_k.source_from_message_id == c_{k-1}.summary_message_id).
func (r *claiReader) readCompactions() error {
	t := "assistant_compactions"
	if r.cols[t] == nil {
		return nil // a database from before compaction existed (< v26.6.10)
	}
	q := fmt.Sprintf(`SELECT rowid, %s, session_id, %s, %s, %s, %s, %s, %s, %s, %s, %s, created_at, %s, %s
		FROM assistant_compactions ORDER BY created_at, rowid`,
		r.col(t, "id"), r.col(t, "trigger"), r.col(t, "strategy"), r.col(t, "status"),
		r.col(t, "source_from_message_id"), r.col(t, "source_to_message_id"), r.col(t, "summary_message_id"),
		r.col(t, "provider_id", "protocol_id"), r.col(t, "model_id"), r.col(t, "input_message_count"),
		r.col(t, "completed_at"), r.col(t, "error"))
	var (
		rowid, created                                   int64
		sid                                              string
		id, trigger, strategy, status, from, to, summary sql.NullString
		provider, model, errText                         sql.NullString
		inputCount, completed                            sql.NullInt64
	)
	if err := r.eachRow("assistant_compactions", q, 2, []any{&rowid, &id, &sid, &trigger, &strategy, &status, &from, &to, &summary, &provider, &model, &inputCount, &created, &completed, &errText}, func() {
		s := r.sessionOf(t, rowid, sid)
		c := corpus.Compaction{
			Index:         len(s.Recorded.Compactions),
			ID:            id.String,
			Strategy:      claiUnquote(strategy.String),
			Trigger:       claiUnquote(trigger.String),
			Status:        claiUnquote(status.String),
			AtMessage:     -1,
			SourceFrom:    from.String,
			SourceTo:      to.String,
			InputMessages: int(inputCount.Int64),
			SummaryID:     summary.String,
			CreatedAt:     claiTime(created),
			CompletedAt:   claiNullTime(completed),
			Line:          int(rowid),
		}
		if s.Meta.Provider == "" {
			s.Meta.Provider = claiUnquote(provider.String)
		}
		if s.Meta.Model == "" {
			s.Meta.Model = claiUnquote(model.String)
		}
		s.Recorded.Compactions = append(s.Recorded.Compactions, c)
	}); err != nil {
		return err
	}
	for _, s := range r.sessions {
		r.resolveCompactions(s)
	}
	return nil
}

// resolveCompactions fills each compaction's summary text, kind, preamble
// counts and chain link, and reports what does not add up.
func (r *claiReader) resolveCompactions(s *corpus.Session) {
	idx := r.msgIndex[s]
	prev := -1 // the latest completed compaction with a summary id
	for i := range s.Recorded.Compactions {
		c := &s.Recorded.Compactions[i]
		where := fmt.Sprintf("assistant_compactions row %d (id %s)", c.Line, c.ID)
		if at, ok := idx[c.SummaryID]; ok && c.SummaryID != "" {
			c.AtMessage = at
			c.Summary = claiContentText(&s.Messages[at])
			c.Kind = ClassifySummary(c.Summary)
			c.P1, c.P2 = PreambleCounts(c.Summary)
		} else {
			c.SummaryMissing = true
		}
		switch {
		case !knownStatus(c.Status) && r.cols["assistant_compactions"]["status"]:
			r.warn(s, int64(c.Line), "%s: status %q is not one clai writes; expected \"running\", \"completed\" or \"failed\" (quoted JSON strings); not counted as a completed compaction", where, c.Status)
		case c.Status == "running":
			r.warn(s, int64(c.Line), "%s: status \"running\" and no summary was completed: a dangling compaction (clai stopped during it, or is compacting right now); expected \"completed\" with a summary_message_id", where)
		case c.Status == "completed" && c.SummaryID == "":
			r.warn(s, int64(c.Line), "%s: status \"completed\" but summary_message_id is NULL: the summary message was deleted (ON DELETE SET NULL); expected the id of a \"clai-compaction\" message", where)
		case c.Status == "completed" && c.SummaryMissing:
			r.warn(s, int64(c.Line), "%s: summary_message_id %s has no row in assistant_messages of session %s: the summary message was deleted; expected a \"clai-compaction\" message", where, c.SummaryID, s.ID)
		}
		for _, ref := range []struct{ name, id string }{{"source_from_message_id", c.SourceFrom}, {"source_to_message_id", c.SourceTo}} {
			if _, ok := idx[ref.id]; ref.id != "" && !ok {
				r.warn(s, int64(c.Line), "%s: %s %s has no row in assistant_messages of session %s (deleted later); expected the id of a message of the compacted window", where, ref.name, ref.id, s.ID)
			}
		}
		if prev >= 0 {
			p := &s.Recorded.Compactions[prev]
			c.Chained = c.SourceFrom != "" && c.SourceFrom == p.SummaryID
			if !c.Chained {
				from := c.SourceFrom
				if from == "" {
					from = "NULL"
				}
				r.warn(s, int64(c.Line), "%s: source_from_message_id %s is not the previous compaction's summary message %s (row %d): the rotation chain does not link here; expected the window to start with the previous summary", where, from, p.SummaryID, p.Line)
			}
		}
		if c.Status == "completed" && c.SummaryID != "" {
			prev = i
		}
	}
}

// knownStatus reports whether s is a status clai writes in
// assistant_compactions (its CHECK constraint, unquoted).
func knownStatus(s string) bool {
	return s == "running" || s == "completed" || s == "failed"
}

// readToolCalls loads assistant_tool_calls: CLI sessions keep their tool
// results only there.
func (r *claiReader) readToolCalls() error {
	t := "assistant_tool_calls"
	if r.cols[t] == nil || !r.cols[t]["session_id"] {
		return nil
	}
	q := fmt.Sprintf("SELECT rowid, %s, %s, session_id, %s, %s, %s, %s, %s, %s, %s FROM assistant_tool_calls ORDER BY %s, rowid",
		r.col(t, "id"), r.col(t, "run_id"), r.col(t, "tool_name"), r.col(t, "params_json"), r.col(t, "status"),
		r.col(t, "result_json"), r.col(t, "error"), r.col(t, "started_at"), r.col(t, "completed_at"), r.col(t, "started_at"))
	var (
		rowid                          int64
		id, run, sid, name, status, er sql.NullString
		params, result                 []byte
		started, completed             sql.NullInt64
	)
	return r.eachRow("assistant_tool_calls", q, 3, []any{&rowid, &id, &run, &sid, &name, &params, &status, &result, &er, &started, &completed}, func() {
		s := r.sessionOf(t, rowid, sid.String)
		tc := corpus.ToolCall{ID: id.String, RunID: run.String, Name: name.String, Status: claiUnquote(status.String),
			Params: params, Result: result, Error: er.String, Line: int(rowid)}
		tc.StartedAt = claiNullTime(started)
		tc.CompletedAt = claiNullTime(completed)
		s.Recorded.ToolCalls = append(s.Recorded.ToolCalls, tc)
	})
}
