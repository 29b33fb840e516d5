package synth

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
)

// claiDemoSeed fixes the clai demo: the same bytes on every run.
const claiDemoSeed = 20260615

// writeDemoClai writes the clai part of the demo corpus: a workspace
// folder dir holding .clai/data.sqlite, and returns dir. Its first session
// is a Claude Code (CLI) session compacted by five chained session
// rotations whose digests are clai's own legacy output for these messages
// (they nest one more copy of each preamble per rotation, and outgrow the
// 96 000-byte budget); its second is an HTTP session with two model
// summaries.
func writeDemoClai(dir string) ([]string, error) {
	path := filepath.Join(dir, ".clai", "data.sqlite")
	if err := os.RemoveAll(path); err != nil {
		return nil, err
	}
	every := func(n int, summarize func(window []corpus.Message) string) ClaiCompactFunc {
		turn := 0
		return func(h ClaiHistory) (ClaiCompaction, bool) {
			turn++
			if turn%n != 0 {
				return ClaiCompaction{}, false
			}
			return claiCompactManual(h, summarize)
		}
	}
	cli := ClaiProfile{Sessions: 1, Turns: 61, ToolCalls: 3, UserBytes: 400, AssistantBytes: 1200, ToolBytes: 3000,
		ThinkingBytes: 600, Provider: "claude-code", Model: "claude-sonnet-4-5", Compact: every(12, claiLegacyDigest)}
	if err := WriteClai(path, cli, claiDemoSeed); err != nil {
		return nil, err
	}
	// The HTTP session goes into the same database.
	return []string{dir}, claiAppendDemoHTTP(path)
}

// claiAppendDemoHTTP adds the HTTP session by writing a second database
// and copying its rows, so each session keeps its own seed.
func claiAppendDemoHTTP(path string) error {
	tmp, err := os.MkdirTemp("", "calib-clai-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	other := filepath.Join(tmp, "data.sqlite")
	turn := 0
	http := ClaiProfile{Sessions: 1, Turns: 30, ToolCalls: 2, UserBytes: 300, AssistantBytes: 900, ToolBytes: 2500,
		Model: "claude-sonnet-4-5", Compact: func(h ClaiHistory) (ClaiCompaction, bool) {
			turn++
			if turn%12 != 0 {
				return ClaiCompaction{}, false
			}
			return claiCompactManual(h, func(window []corpus.Message) string {
				return ClaiSummaryText(fmt.Sprintf("## Goal\nMake the release build pass.\n\n## Done so far\n%d messages were compacted; the failing tests were fixed in three files.\n\n## Next\nRun the full suite and tag the release.", len(window)))
			})
		}}
	if err := WriteClai(other, http, claiDemoSeed+1); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	stmts := []string{"ATTACH DATABASE '" + strings.ReplaceAll(other, "'", "''") + "' AS other", "BEGIN"}
	for _, t := range []string{"assistant_sessions", "assistant_messages", "assistant_runs", "assistant_tool_calls", "assistant_compactions", "assistant_session_links"} {
		stmts = append(stmts, "INSERT INTO main."+t+" SELECT * FROM other."+t+" ORDER BY rowid")
	}
	stmts = append(stmts, "COMMIT", "DETACH DATABASE other")
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// claiCompactManual records a manual compaction (force = true) of the
// window clai would select, summarised by summarize.
func claiCompactManual(h ClaiHistory, summarize func(window []corpus.Message) string) (ClaiCompaction, bool) {
	window := claiWindow(h, true)
	if window == nil {
		return ClaiCompaction{}, false
	}
	return ClaiCompaction{Trigger: "manual", SourceFrom: window[0].ID, SourceTo: window[len(window)-1].ID,
		InputMessages: len(window), Summary: summarize(window)}, true
}

// claiWindow is clai's provider_history_messages_with_compaction followed
// by select_compaction_window (specs/clai.md §2.3–2.4).
func claiWindow(h ClaiHistory, force bool) []corpus.Message {
	var latest *ClaiCompaction
	for i := range h.Compactions { // completed in order: the last is the latest
		if c := &h.Compactions[i]; c.Status == "completed" && c.SummaryID != "" && c.SourceTo != "" {
			latest = c
		}
	}
	var view []corpus.Message
	summaryAt, toAt := -1, -1
	if latest != nil {
		for i, m := range h.Messages {
			switch m.ID {
			case latest.SummaryID:
				summaryAt = i
			case latest.SourceTo:
				toAt = i
			}
		}
	}
	if summaryAt < 0 || toAt < 0 {
		for _, m := range h.Messages {
			if !m.Summary {
				view = append(view, m)
			}
		}
	} else {
		view = append(view, h.Messages[summaryAt])
		for _, m := range h.Messages[toAt+1:] {
			if !m.Summary {
				view = append(view, m)
			}
		}
	}
	var compactable []corpus.Message
	for _, m := range view {
		if m.Role != corpus.RoleSystem || m.Summary {
			compactable = append(compactable, m)
		}
	}
	minN, tail := 24, 16
	if force {
		minN = 2
	}
	if len(compactable) < minN {
		return nil
	}
	if force {
		tail = min(16, len(compactable)-minN)
	}
	n := len(compactable) - tail
	if n < minN {
		return nil
	}
	return compactable[:n]
}

// claiLegacyDigest is clai's deterministic digest as released (HEAD,
// before PR #154): summary_message_text(fallback_summary(window)).
//
// It deliberately repeats, in a few lines and without the fix's options,
// what policy's digest renderer does: the demo database stands in for
// what clai itself stored, so it must not be written by the code under
// test. TestWriteDemoClai checks that the two agree byte for byte, so a
// change to either that drifts from clai's spec fails there.
func claiLegacyDigest(window []corpus.Message) string {
	rendered := make([]string, len(window))
	for i, m := range window {
		var parts []string
		for _, b := range m.Blocks {
			switch b.Kind {
			case corpus.KindText:
				parts = append(parts, b.Text)
			case corpus.KindToolUse:
				parts = append(parts, "[tool call: "+b.ToolName+" "+claiTruncateJSON(b.Args, 200)+"]")
			case corpus.KindToolResult:
				parts = append(parts, "[tool result: "+claiTruncateJSON(b.Payload, 400)+"]")
			case corpus.KindImage:
				parts = append(parts, "[image]")
			}
		}
		rendered[i] = "[" + string(m.Role) + " message " + m.ID + "]\n" + strings.Join(parts, "\n")
	}
	return ClaiSummaryText(clai.DigestPreamble + "\n\n" + claiHeadAndTail(rendered, 96_000))
}

func claiTruncateJSON(raw []byte, max int) string {
	if raw == nil {
		raw = []byte("null")
	}
	if len(raw) <= max {
		return string(raw)
	}
	for max > 0 && !utf8.RuneStart(raw[max]) {
		max--
	}
	return string(raw[:max]) + "...[truncated]"
}

// claiHeadAndTail is select_head_and_tail as released, holes included.
func claiHeadAndTail(rendered []string, budget int) string {
	total := 0
	for _, r := range rendered {
		total += len(r) + 2
	}
	if total <= budget {
		return strings.Join(rendered, "\n\n")
	}
	headBudget := budget / 3
	tailBudget := budget - headBudget
	headEnd, acc := 0, 0
	for i, r := range rendered {
		next := acc + len(r) + 2
		if next > headBudget && headEnd > 0 {
			break
		}
		acc, headEnd = next, i+1
	}
	tailStart := len(rendered)
	acc = 0
	for tailStart > headEnd {
		next := acc + len(rendered[tailStart-1]) + 2
		if next > tailBudget && tailStart < len(rendered) {
			break
		}
		acc = next
		tailStart--
	}
	if tailStart <= headEnd {
		return strings.Join(rendered, "\n\n")
	}
	n := tailStart - headEnd
	s := "s"
	if n == 1 {
		s = ""
	}
	marker := fmt.Sprintf("[... %d middle message%s omitted during compaction; recover the full verbatim history with the read-only `history_query` tool (`.clai/data.sqlite`) ...]", n, s)
	return strings.Join(rendered[:headEnd], "\n\n") + "\n\n" + marker + "\n\n" + strings.Join(rendered[tailStart:], "\n\n")
}
