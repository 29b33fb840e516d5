package metrics

import (
	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
	"github.com/calib-dev/calib/policy"
)

// InspectRow is what `calib inspect` reports about one loaded session: how
// big it is, who wrote what, and what the agent recorded doing to it. JSON
// field names are part of calib's output contract.
type InspectRow struct {
	ID           string `json:"id"`
	Format       string `json:"format"`
	Path         string `json:"path"`
	AgentVersion string `json:"agent_version,omitempty"`
	Model        string `json:"model,omitempty"`
	// AutoPolicy is the policy `--policy auto` replays the session with.
	AutoPolicy string `json:"auto_policy,omitempty"`
	// Messages counts every message; MessagesByRole splits it by role.
	Messages       int            `json:"messages"`
	MessagesByRole map[string]int `json:"messages_by_role"`
	// Turns counts real turns: see isRealTurn.
	Turns int `json:"turns"`
	// Synthetic and Summaries count agent-written continuations and
	// compaction summaries in the history.
	Synthetic int `json:"synthetic"`
	Summaries int `json:"summaries"`
	// ToolCalls counts tool_use blocks; ToolCallsByName splits them by tool.
	ToolCalls       int            `json:"tool_calls"`
	ToolCallsByName map[string]int `json:"tool_calls_by_name"`
	// Bytes is the content size of the history (corpus.Block.Bytes), and
	// BytesByRole its split by role.
	Bytes       int64            `json:"bytes"`
	BytesByRole map[string]int64 `json:"bytes_by_role"`
	// Tokens is the rough estimate Bytes/4 (DESIGN: estimated tokens);
	// policies use their own meters.
	Tokens int64 `json:"tokens"`
	// LargestToolResult is the size of the biggest single tool result.
	LargestToolResult int64 `json:"largest_tool_result"`
	// RecordedHistory is the length of the compacted working history the
	// agent kept (smith session.json beside a transcript), 0 when none.
	RecordedHistory int                 `json:"recorded_history_messages"`
	Recorded        []InspectCompaction `json:"recorded"`
	// Persisted are the tool results the agent stored outside its context
	// (Claude Code tool-results/<id>.txt), omitted when there are none.
	Persisted []InspectPersisted `json:"persisted,omitempty"`
	// Usage is the provider's recorded usage summed over the session's
	// requests (or smith's session totals); nil when none is recorded.
	Usage    *InspectUsage    `json:"recorded_usage,omitempty"`
	Warnings []corpus.Warning `json:"warnings"`
}

// InspectUsage is a session's recorded usage totals.
type InspectUsage struct {
	// Requests is how many requests recorded usage; 0 for totals-only
	// formats (smith) and runs of unknown size (clai).
	Requests        int  `json:"requests"`
	InputTokens     int  `json:"input_tokens"`
	CacheWrite5m    int  `json:"cache_write_5m_tokens"`
	CacheWrite1h    int  `json:"cache_write_1h_tokens"`
	CacheReadTokens int  `json:"cache_read_tokens"`
	OutputTokens    int  `json:"output_tokens"`
	TotalsOnly      bool `json:"totals_only,omitempty"`
}

func inspectUsage(s *corpus.Session) *InspectUsage {
	var us []corpus.Usage
	switch {
	case len(s.Recorded.Usage) > 0:
		us = s.Recorded.Usage
	case s.Recorded.UsageTotal != nil:
		u := *s.Recorded.UsageTotal
		w5m, w1h := u.Writes()
		return &InspectUsage{InputTokens: u.InputTokens, CacheWrite5m: w5m, CacheWrite1h: w1h,
			CacheReadTokens: u.CacheReadTokens, OutputTokens: u.OutputTokens, TotalsOnly: true}
	default:
		return nil
	}
	out := &InspectUsage{}
	for _, u := range us {
		if u.Requests == 1 {
			out.Requests++
		}
		out.InputTokens += u.InputTokens
		w5m, w1h := u.Writes()
		out.CacheWrite5m += w5m
		out.CacheWrite1h += w1h
		out.CacheReadTokens += u.CacheReadTokens
		out.OutputTokens += u.OutputTokens
	}
	return out
}

// InspectPersisted is one persisted tool result: its file, and from which
// request (the message it produced, and that message's log line) the model
// was sent the marker instead, placed how (corpus.Placed*).
type InspectPersisted struct {
	ToolCallID string `json:"tool_call_id"`
	File       string `json:"file"`
	Bytes      int64  `json:"bytes"`
	// Boundary is the index of the microcompact boundary that cleared the
	// same id, -1 when none did.
	Boundary  int    `json:"boundary"`
	AtMessage int    `json:"at_message"`
	AtLine    int    `json:"at_line"`
	Placed    string `json:"placed"`
}

// InspectCompaction is one compaction the agent recorded.
type InspectCompaction struct {
	Index    int    `json:"index"`
	Strategy string `json:"strategy"`
	Trigger  string `json:"trigger,omitempty"`
	Status   string `json:"status,omitempty"`
	// Window is the number of messages the compaction replaced, as
	// recorded (clai input_message_count).
	Window int `json:"window"`
	// DigestBytes is the size of the stored summary text.
	DigestBytes int `json:"digest_bytes"`
	// P1 and P2 count clai's summary and digest preambles in the summary:
	// its nesting depth in a rotation chain.
	P1             int    `json:"p1"`
	P2             int    `json:"p2"`
	Kind           string `json:"kind"`
	Chained        bool   `json:"chained"`
	SummaryMissing bool   `json:"summary_missing,omitempty"`
	TokensBefore   int    `json:"tokens_before,omitempty"`
	TokensAfter    int    `json:"tokens_after,omitempty"`
	TokensSaved    int    `json:"tokens_saved,omitempty"`
	// Cleared is how many tool results the agent cleared (microcompact).
	Cleared int `json:"cleared_ids,omitempty"`
	// Line is the line (or rowid) of the record in its file.
	Line int `json:"line,omitempty"`
}

// isRealTurn reports whether m starts a real turn for inspect: a user
// message written by the person, which excludes the agent's synthetic
// continuations, subagent (sidechain) messages, compaction summaries, and
// user messages that only carry tool results (Anthropic-style formats put
// tool results in the user role). Policies keep their own definitions.
func isRealTurn(m *corpus.Message) bool {
	if !m.RealTurn() || m.Sidechain || m.Summary {
		return false
	}
	for i := range m.Blocks {
		if m.Blocks[i].Kind != corpus.KindToolResult {
			return true
		}
	}
	return false
}

// Inspect computes the inspect row of one session. It only reads s.
func Inspect(s *corpus.Session) InspectRow {
	r := InspectRow{
		ID:              s.ID,
		Format:          string(s.Format),
		Path:            s.Path,
		AgentVersion:    s.Meta.AgentVersion,
		AutoPolicy:      policy.ForFormat(s.Format),
		Model:           s.Meta.Model,
		Messages:        len(s.Messages),
		MessagesByRole:  map[string]int{},
		ToolCallsByName: map[string]int{},
		BytesByRole:     map[string]int64{},
		RecordedHistory: len(s.Recorded.History),
		Recorded:        []InspectCompaction{},
		Usage:           inspectUsage(s),
		Warnings:        s.Warnings,
	}
	if r.Warnings == nil {
		r.Warnings = []corpus.Warning{}
	}
	for i := range s.Messages {
		m := &s.Messages[i]
		role := string(m.Role)
		r.MessagesByRole[role]++
		if isRealTurn(m) {
			r.Turns++
		}
		if m.Synthetic {
			r.Synthetic++
		}
		if m.Summary {
			r.Summaries++
		}
		for j := range m.Blocks {
			b := &m.Blocks[j]
			n := int64(b.Bytes())
			r.Bytes += n
			r.BytesByRole[role] += n
			switch b.Kind {
			case corpus.KindToolUse:
				r.ToolCalls++
				name := b.ToolName
				if name == "" {
					name = "(unnamed)"
				}
				r.ToolCallsByName[name]++
			case corpus.KindToolResult:
				r.LargestToolResult = max(r.LargestToolResult, n)
			}
		}
	}
	r.Tokens = r.Bytes / 4
	// CLI sessions in clai keep their tool results only in
	// assistant_tool_calls, not in messages.
	for _, tc := range s.Recorded.ToolCalls {
		r.LargestToolResult = max(r.LargestToolResult, int64(len(tc.Result)))
	}
	for _, c := range s.Recorded.Compactions {
		if s.Format == corpus.FormatClai && c.Summary != "" {
			// The stored text is the truth; count from it rather than
			// trust that every reader version filled the fields.
			c.P1, c.P2 = clai.PreambleCounts(c.Summary)
			c.Kind = clai.ClassifySummary(c.Summary)
		}
		r.Recorded = append(r.Recorded, InspectCompaction{
			Index:          c.Index,
			Strategy:       c.Strategy,
			Trigger:        c.Trigger,
			Status:         c.Status,
			Window:         c.InputMessages,
			DigestBytes:    len(c.Summary),
			P1:             c.P1,
			P2:             c.P2,
			Kind:           string(c.Kind),
			Chained:        c.Chained,
			SummaryMissing: c.SummaryMissing,
			TokensBefore:   c.TokensBefore,
			TokensAfter:    c.TokensAfter,
			TokensSaved:    c.TokensSaved,
			Cleared:        len(c.ClearedIDs),
			Line:           c.Line,
		})
	}
	for _, p := range s.Recorded.Persisted {
		ip := InspectPersisted{ToolCallID: p.ToolCallID, File: p.File, Bytes: p.Bytes, Boundary: p.Boundary,
			AtMessage: p.AtMessage, Placed: p.Placed}
		if p.AtMessage >= 0 && p.AtMessage < len(s.Messages) {
			ip.AtLine = s.Messages[p.AtMessage].Line
		}
		r.Persisted = append(r.Persisted, ip)
	}
	return r
}
