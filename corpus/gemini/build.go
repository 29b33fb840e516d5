package gemini

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// finish turns the messages as they stand at the end of the file into the
// session: user and gemini messages in order, each gemini message followed
// by a tool message with the results of its tool calls; compression notices
// as recorded compactions; tokens as recorded usage.
func (l *loader) finish() {
	s := l.s
	if s.ID == "" {
		s.ID = sessionIDFromName(l.path)
	}
	if !l.meta {
		l.warn(0, "no session metadata record (expected a first line with sessionId and projectHash); the session id is taken from the file name")
	}
	if s.Meta.Kind == "subagent" {
		// A subagent's chat sits in chats/<parent session id>/.
		s.Meta.Parent = filepath.Base(filepath.Dir(l.path))
	}
	l.decode()
	seen := map[string]int{}
	for _, e := range l.entries {
		e.time = l.stamp(e)
		ts := e.time
		switch *e.m.Type {
		case "user":
			s.Messages = append(s.Messages, corpus.Message{ID: e.id, Role: corpus.RoleUser, Blocks: l.blocks(e.m.Content, e.line), Time: ts, Line: e.line})
		case "gemini":
			l.gemini(e, seen)
		case "info":
			l.info(e)
		}
		// error and warning records are what the CLI showed; not history.
	}
	s.Warnings = append(s.Warnings, l.tally.Warnings(l.path, "Gemini CLI")...)
	if len(s.Messages) == 0 {
		l.warn(0, "no user or gemini messages in this chat file")
	}
	ws := s.Warnings
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Line < ws[j].Line })
}

// gemini adds a model message (thoughts, content, tool calls), then the
// tool message holding its results, and the request's usage.
func (l *loader) gemini(e *entry, seen map[string]int) {
	s := l.s
	ts := e.time
	blocks := thinking(e.m.Thoughts)
	blocks = append(blocks, l.blocks(e.m.Content, e.line)...)
	blocks = append(blocks, l.toolUses(e, seen)...)
	at := -1
	if len(blocks) > 0 {
		at = len(s.Messages)
		s.Messages = append(s.Messages, corpus.Message{ID: e.id, Role: corpus.RoleAssistant, Blocks: blocks, Time: ts, Line: e.line})
	}
	if s.Meta.Model == "" {
		s.Meta.Model = e.m.Model
	}
	if res := l.toolResults(e); len(res) > 0 {
		s.Messages = append(s.Messages, corpus.Message{ID: e.id + "/results", Role: corpus.RoleTool, Blocks: res, Time: ts, Line: e.line})
	}
	if t, ok := l.readTokens(e); ok {
		l.usage(e, &t, at)
	}
}

// stamp is the time of e's record: its timestamp parsed (Times tallies a
// malformed one, and a value that is not a string, by its JSON text).
func (l *loader) stamp(e *entry) time.Time {
	raw := e.m.Timestamp
	if len(raw) == 0 {
		return time.Time{}
	}
	s := &jsonscan.Scanner{B: raw}
	return l.tally.Times.Parse(s.StrOrText(), e.line)
}

// readTokens decodes e's tokens, if it has any; tokens that are not an
// object of whole counts are a warning and no usage.
func (l *loader) readTokens(e *entry) (tokens, bool) {
	var t tokens
	raw := e.m.Tokens
	if len(raw) == 0 || string(raw) == "null" {
		return t, false
	}
	if scanTokens(raw, &t) {
		return t, true
	}
	t = tokens{}
	if err := json.Unmarshal(raw, &t); err != nil {
		l.warn(e.line, "%s; the request's usage is ignored", corpus.UsageDecodeError("tokens", err))
		return t, false
	}
	return t, true
}

// usage records a gemini message's tokens (TokensSummary, from the
// response's usageMetadata). Gemini's promptTokenCount includes the cached
// part and candidatesTokenCount excludes the thoughts, so the corpus fields
// are: input = input − cached + tool (the tool-use prompt is input too),
// cache read = cached, output = output + thoughts, reasoning = thoughts.
// Their sum is Gemini's total.
func (l *loader) usage(e *entry, t *tokens, at int) {
	if msg := corpus.CheckUsage("tokens", corpus.UsageField{Name: "input", Value: t.Input},
		corpus.UsageField{Name: "output", Value: t.Output}, corpus.UsageField{Name: "cached", Value: t.Cached}); msg != "" {
		l.warn(e.line, "%s", msg)
		return
	}
	opt := func(v *int64) int64 {
		if v == nil || *v < 0 {
			return 0
		}
		return *v
	}
	if *t.Cached > *t.Input {
		l.warn(e.line, "tokens: cached (%d) exceeds input (%d), which includes it; the request's usage is ignored", *t.Cached, *t.Input)
		return
	}
	l.s.Recorded.Usage = append(l.s.Recorded.Usage, corpus.Usage{
		AtMessage: at, Model: e.m.Model, Requests: 1,
		InputTokens:     int(*t.Input - *t.Cached + opt(t.Tool)),
		CacheReadTokens: int(*t.Cached),
		OutputTokens:    int(*t.Output + opt(t.Thoughts)),
		ReasoningTokens: int(opt(t.Thoughts)),
		Done:            e.time,
		Line:            e.line,
	})
}

// info records a compression notice as a compaction that takes effect at
// the next message.
func (l *loader) info(e *entry) {
	ps, err := parts(e.m.Content)
	if err != nil || len(ps) == 0 {
		return // the recorder always writes a string
	}
	var texts []string
	for _, p := range ps {
		if p.Text != nil {
			texts = append(texts, *p.Text)
		}
	}
	c, ok := compression(strings.Join(texts, ""))
	if !ok {
		return
	}
	rc := &l.s.Recorded
	c.Index, c.ID, c.AtMessage, c.Line = len(rc.Compactions), e.id, len(l.s.Messages), e.line
	c.CreatedAt = e.time
	rc.Compactions = append(rc.Compactions, c)
}
