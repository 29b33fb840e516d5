package codex

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// A rollout is one {timestamp, type, payload} record per line (codex-rs
// core/src/rollout/recorder.rs). What calib reads:
//   - session_meta: id, cwd, cli_version, model_provider; turn_context: model.
//   - response_item: the history the model saw (items.go).
//   - compacted: a Recorded compaction. Older versions write the summary in
//     payload.message; current ones an empty message and a
//     replacement_history (the retained user messages, ghost snapshots and,
//     with remote compaction, an encrypted compaction item), which becomes
//     Compaction.Replacement.
//   - event_msg: token_count (info.last_token_usage and
//     model_context_window) becomes the Recorded.Usage of the request that
//     wrote the newest assistant message; the other events are UI events that repeat response
//     items (user_message, agent_message) or mark what items already show
//     (context_compacted, turn_aborted).

type loader struct {
	path     string
	s        *corpus.Session
	tally    jsonscan.Tallies
	calls    map[string]int // call_id -> line
	callName map[string]string
	outs     []result
	noMerge  bool // a compaction sits between the last message and the next
	// prevTotal is the last token_count's total_token_usage: an event
	// that repeats it repeats the request.
	prevTotal *usage
	// lastContext is the latest token_count's total_tokens, the figure
	// Codex compares with its auto-compact limit.
	lastContext int
	// answerEnd is one past the last assistant message, 0 before any: the
	// message a token_count belongs to, kept as messages are added (found
	// by walking back, a log of prompts without answers was quadratic:
	// 40,000 took 1.2 s).
	answerEnd int
	// counted is answerEnd at the last token_count kept: one that comes
	// with no assistant message since (an interrupted turn) is a request
	// whose message the log lacks, not the previous one's.
	counted int
	// model is the model of the latest turn_context (or session_meta)
	// that names one: /model switches it between turns, and each request
	// is priced, and its cache kept, by its own.
	turnModel string
}

// result is a tool output waiting for its call: its id and line.
type result struct {
	id string
	ln int
}

// Load reads one rollout file. A line that cannot be read is a warning
// naming the file and line; the rest loads.
func Load(p string, opts corpus.Options) ([]*corpus.Session, error) {
	return jsonscan.LoadFile(p, opts, Read)
}

// Read reads a log from r (a file, or standard input); p names it in
// sessions and warnings.
func Read(p string, r io.Reader, opts corpus.Options) ([]*corpus.Session, error) {
	l := newLoader(p)
	if err := jsonscan.StreamLines(r, l.line); err != nil {
		return nil, jsonscan.ReadError(p, err)
	}
	l.finish()
	return []*corpus.Session{l.s}, nil
}

func newLoader(p string) *loader {
	return &loader{path: p, tally: jsonscan.NewTallies(), calls: map[string]int{}, callName: map[string]string{},
		s: &corpus.Session{Format: corpus.FormatCodex, Path: p}}
}

func (l *loader) warn(line int, format string, args ...any) {
	l.s.Warnings = append(l.s.Warnings, corpus.Warnf(l.path, line, format, args...))
}

func (l *loader) line(n int, b []byte, final bool) error {
	var ln rolloutLine
	if err := decodeLine(b, &ln); err != nil {
		if final {
			l.warn(n, "the log is cut mid-line: the last line (%d bytes, no newline) is not complete JSON; line skipped", len(b))
		} else {
			l.warn(n, "invalid JSON (%v); expected one {timestamp, type, payload} object; line skipped", err)
		}
		return nil
	}
	ts := l.tally.Times.Parse(ln.Timestamp, n)
	if !ts.IsZero() {
		if l.s.Meta.CreatedAt.IsZero() {
			l.s.Meta.CreatedAt = ts
		}
		l.s.Meta.UpdatedAt = ts
	}
	if ln.TypeJSON != "" {
		l.warn(n, "type is %s, not a string naming the line's type; line skipped", jsonscan.Excerpt(ln.TypeJSON))
		return nil
	}
	switch ln.Type {
	case "session_meta", "turn_context", "response_item", "compacted", "event_msg":
	case "":
		l.warn(n, "no type (expected session_meta, turn_context, response_item, compacted or event_msg); line skipped")
		return nil
	default:
		l.tally.Unknown.Add("line type "+ln.Type, n)
		return nil
	}
	var p payload
	if err := decodePayload(ln.Payload, &p); err != nil {
		l.warn(n, "%s payload is not an object (%v); line skipped", ln.Type, err)
		return nil
	}
	l.tally.Odd.Note(p.odd, n)
	switch ln.Type {
	case "session_meta", "turn_context":
		meta := &l.s.Meta
		if ln.Type == "session_meta" && l.s.ID == "" && p.ID != "" {
			l.s.ID = p.ID
		}
		setIfEmpty(&meta.Cwd, p.Cwd)
		setIfEmpty(&meta.AgentVersion, p.Version)
		setIfEmpty(&meta.Provider, p.Provider)
		setIfEmpty(&meta.Model, p.Model)
		if p.Model != "" {
			l.turnModel = p.Model
		}
	case "response_item":
		l.item(&p, n, ts)
	case "compacted":
		l.compacted(&p, n, ts)
	case "event_msg":
		if p.Type == "token_count" {
			l.tokenCount(&p, n, ts)
		}
	}
	return nil
}

func setIfEmpty(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// compacted records a compaction. The retained history, when recorded, is
// read with a loader of its own so that its items map exactly as history
// items do.
func (l *loader) compacted(p *payload, n int, ts time.Time) {
	c := corpus.Compaction{Index: len(l.s.Recorded.Compactions), Strategy: "compacted", Trigger: "auto",
		AtMessage: len(l.s.Messages), Summary: p.Message, TokensBefore: l.lastContext, CreatedAt: ts, Line: n}
	if !p.HasReplacement {
		l.warn(n, "compacted line without replacement_history (Codex before remote compaction, or a damaged line): the retained history is not recorded, only the summary (%d bytes)", len(p.Message))
	} else {
		sub := newLoader(l.path)
		s := &jsonscan.Scanner{B: p.Replacement}
		s.Array(func() bool {
			raw, ok := s.Raw()
			if !ok {
				return false
			}
			var it payload
			if err := decodePayload(raw, &it); err != nil {
				sub.warn(n, "replacement_history item is not an object (%v); item skipped", err)
				return true
			}
			sub.item(&it, n, ts)
			return true
		})
		if s.Err != nil {
			l.warn(n, "replacement_history is not a list of items (%v); the retained history is not recorded", s.Err)
		}
		c.Replacement = sub.s.Messages
		for _, m := range c.Replacement {
			if m.Summary && c.Summary == "" {
				c.Summary = m.Blocks[0].Text
				c.SummaryMissing = m.Blocks[0].Text == ""
			}
		}
		l.s.Warnings = append(l.s.Warnings, sub.s.Warnings...)
		for k, t := range sub.tally.Unknown {
			if _, ok := l.tally.Unknown[k]; !ok {
				l.tally.Unknown[k] = t
			}
		}
	}
	l.s.Recorded.Compactions = append(l.s.Recorded.Compactions, c)
	l.noMerge = true
}

// tokenCount records a token_count's last_token_usage as the usage of the
// request that wrote the newest assistant message (Recorded.Usage, the
// cost model's shape: input without its cached part). Codex emits the event
// after each sampling request and repeats it (rate-limit updates) with the
// same totals: a repeat is skipped, as is info null (no request yet).
// Without last_token_usage, the difference of consecutive totals is used.
func (l *loader) tokenCount(p *payload, n int, ts time.Time) {
	tc, ok, err := decodeInfo(p.Info)
	if err != nil {
		l.warn(n, "token_count %v; usage not recorded for this request", err)
		return
	}
	if !ok {
		return
	}
	if tc.HasTotal && l.prevTotal != nil && *l.prevTotal == tc.Total {
		return
	}
	u := tc.Last
	if !tc.HasLast {
		if !tc.HasTotal {
			l.warn(n, "token_count has neither last_token_usage nor total_token_usage; usage ignored")
			return
		}
		u = tc.Total
		if l.prevTotal != nil {
			u = usage{Input: u.Input - l.prevTotal.Input, Cached: u.Cached - l.prevTotal.Cached,
				Output: u.Output - l.prevTotal.Output, Reasoning: u.Reasoning - l.prevTotal.Reasoning}
		}
	}
	if tc.HasTotal {
		total := tc.Total
		l.prevTotal = &total
	}
	if u.Input < 0 || u.Cached < 0 || u.Output < 0 || u.Reasoning < 0 || u.Cached > u.Input {
		l.warn(n, "token_count counts input %d, cached %d, output %d, reasoning %d (expected counts >= 0, cached <= input, which includes it); usage ignored",
			u.Input, u.Cached, u.Output, u.Reasoning)
		return
	}
	l.lastContext = u.Input + u.Output
	at := l.answerEnd - 1
	if l.answerEnd == l.counted {
		at = -1
	}
	l.counted = l.answerEnd
	l.s.Recorded.Usage = append(l.s.Recorded.Usage, corpus.Usage{AtMessage: at, Model: l.turnModel, Requests: 1,
		InputTokens: u.Input - u.Cached, CacheReadTokens: u.Cached, OutputTokens: u.Output,
		ReasoningTokens: u.Reasoning, ContextWindow: tc.ContextWindow, Done: ts, Line: n})
}

func (l *loader) add(m corpus.Message) {
	m.ID = fmt.Sprintf("L%d", m.Line)
	l.s.Messages = append(l.s.Messages, m)
	if m.Role == corpus.RoleAssistant {
		l.answerEnd = len(l.s.Messages)
	}
	l.noMerge = false
}

func (l *loader) finish() {
	if l.s.ID == "" {
		l.s.ID = strings.TrimSuffix(filepath.Base(l.path), ".jsonl")
	}
	answered := map[string]bool{}
	for _, o := range l.outs {
		if _, ok := l.calls[o.id]; !ok {
			l.warn(o.ln, "output for call_id %s, which never occurs in this log", o.id)
			continue
		}
		if answered[o.id] {
			l.warn(o.ln, "second output for call_id %s (line %d)", o.id, l.calls[o.id])
		}
		answered[o.id] = true
	}
	for id, ln := range l.calls {
		if !answered[id] {
			l.warn(ln, "tool call %s (%s) has no output", id, l.callName[id])
		}
	}
	l.s.Warnings = append(l.s.Warnings, l.tally.Warnings(l.path, "Codex")...)

	if len(l.s.Messages) == 0 {
		l.warn(0, "no response_item messages in this log")
	}
	ws := l.s.Warnings
	sort.SliceStable(ws, func(i, j int) bool {
		if ws[i].Line != ws[j].Line {
			return ws[i].Line < ws[j].Line
		}
		return ws[i].Message < ws[j].Message
	})
}
