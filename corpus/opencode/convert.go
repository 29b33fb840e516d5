package opencode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// knownParts are the part types of message-v2.ts; the ones not listed in
// convert's switch hold nothing the model sees (snapshot, patch, agent,
// retry) or only usage (step-finish).
var knownParts = map[string]bool{
	"text": true, "subtask": true, "reasoning": true, "file": true, "tool": true, "step-start": true,
	"step-finish": true, "snapshot": true, "patch": true, "agent": true, "retry": true, "compaction": true,
}

// builder turns one session's messages into its corpus form.
type builder struct {
	s *corpus.Session
	// unknown tallies unknown kinds per file (a database is one file, a
	// storage folder many).
	unknown map[string]jsonscan.UnknownKinds
	uses    map[string]*row // callID -> the part that called it
	// pruned are the tool parts opencode's prune marked, in history order.
	pruned []prunedPart
	// requests are the compaction requests: user message id -> where.
	requests map[string]request
}

type prunedPart struct {
	callID string
	at     float64 // state.time.compacted
	line   int     // the part's rowid (0 for a storage file)
}

// request is a user message that asked for a compaction.
type request struct {
	at   int // its index in Messages
	auto bool
	tail string // tail_start_id: the first message kept verbatim (newer builds)
}

// build converts msgs (in opencode's order) into s.
func build(s *corpus.Session, msgs []message) {
	b := &builder{s: s, unknown: map[string]jsonscan.UnknownKinds{}, uses: map[string]*row{}, requests: map[string]request{}}
	for i := range msgs {
		b.message(&msgs[i])
	}
	b.prunes()
	files := make([]string, 0, len(b.unknown))
	for f := range b.unknown {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		s.Warnings = append(s.Warnings, b.unknown[f].Warnings(f, "opencode")...)
	}
	if len(s.Messages) == 0 {
		s.Warnings = append(s.Warnings, corpus.Warning{File: s.Path, Message: fmt.Sprintf("session %s has no messages opencode would send", s.ID)})
	}
	ws := s.Warnings
	sort.SliceStable(ws, func(i, j int) bool {
		if ws[i].File != ws[j].File {
			return ws[i].File < ws[j].File
		}
		return ws[i].Line < ws[j].Line
	})
}

func (b *builder) warn(r *row, format string, args ...any) {
	b.s.Warnings = append(b.s.Warnings, corpus.Warnf(r.file, r.line, format, args...))
}

func (b *builder) addUnknown(kind string, r *row) {
	u := b.unknown[r.file]
	if u == nil {
		u = jsonscan.UnknownKinds{}
		b.unknown[r.file] = u
	}
	u.Add(kind, r.line)
}

// decode decodes a row's JSON data, warning (naming the row and what was
// expected) when it cannot.
func (b *builder) decode(r *row, kind string, v any) bool {
	switch v := v.(type) {
	case *info:
		if scan(r.data, func(s *jsonscan.Scanner) bool { return scanInfo(s, v) }) {
			return true
		}
		*v = info{}
	case *part:
		if scan(r.data, func(s *jsonscan.Scanner) bool { return scanPart(s, v) }) {
			return true
		}
		*v = part{}
	}
	err := json.Unmarshal(r.data, v)
	if err == nil {
		return true
	}
	if b.decodeLenient(r, kind, v, err) {
		return true
	}
	if r.table == "" {
		r.line = syntaxLine(r.data, err) // a storage file: point into it
	}
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field == "":
		b.warn(r, "%s: data is a JSON %s, expected an object; %s skipped", r.where(kind), te.Value, kind)
	case errors.As(err, &te):
		b.warn(r, "%s: %s is a JSON %s, not what opencode writes; %s skipped", r.where(kind), te.Field, te.Value, kind)
	case !json.Valid(r.data):
		b.warn(r, "%s: data is not valid JSON (%v); %s skipped", r.where(kind), err, kind)
	default:
		b.warn(r, "%s: %v; %s skipped", r.where(kind), err, kind)
	}
	return false
}

// lenientFields are the fields of a message or part whose value of
// another type costs the field, not the row: times and token counts (and
// the cost) feed the bill and the cache model, and a row without them
// still holds its text and tool calls (a message skipped took all its
// parts with it).
var lenientFields = []string{"time", "tokens", "cost", "state.time"}

// maxLenient bounds the fields of one row decodeLenient reads without.
const maxLenient = 8

// decodeLenient decodes r's data into v again after err, when err is a
// value of another type in a lenient field: that value is read as null,
// with a warning naming the row, the field and what it held, as often as
// such fields fail. It reports whether v then decoded.
func (b *builder) decodeLenient(r *row, kind string, v any, err error) bool {
	data := r.data
	for range maxLenient {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || !isLenient(te.Field) {
			return false
		}
		fixed, ok := nullAt(data, strings.Split(te.Field, "."))
		if !ok {
			return false
		}
		at := *r
		if r.table == "" {
			at.line = offsetLine(data, te.Offset) // a storage file: point into it
		}
		b.warn(&at, "%s: %s is a JSON %s, not what opencode writes; read without it", r.where(kind), te.Field, te.Value)
		data = fixed
		switch v := v.(type) {
		case *info:
			*v = info{}
		case *part:
			*v = part{}
		}
		if err = json.Unmarshal(data, v); err == nil {
			return true
		}
	}
	return false
}

func isLenient(field string) bool {
	for _, f := range lenientFields {
		if field == f || strings.HasPrefix(field, f+".") {
			return true
		}
	}
	return false
}

// nullAt is data with the value at path (keys from the top-level object
// down; the last such key, as encoding/json keeps the last) replaced by
// null, the rest byte for byte as it was.
func nullAt(data []byte, path []string) ([]byte, bool) {
	s := &jsonscan.Scanner{B: data}
	start, end := -1, -1
	var walk func(depth int) bool
	walk = func(depth int) bool {
		return s.Object(func(key []byte) bool {
			switch {
			case string(key) != path[depth]:
				return s.Skip()
			case depth == len(path)-1:
				s.Peek() // to the value
				start = s.I
				ok := s.Skip()
				end = s.I
				return ok
			case s.Peek() != '{':
				return s.Skip()
			}
			return walk(depth + 1)
		})
	}
	if s.Peek() != '{' || !walk(0) || start < 0 {
		return nil, false
	}
	out := make([]byte, 0, len(data)-(end-start)+4)
	return append(append(append(out, data[:start]...), "null"...), data[end:]...), true
}

func (b *builder) message(m *message) {
	var in info
	if !b.decode(&m.row, "message", &in) {
		return
	}
	var ps []part
	var prow []*row
	for i := range m.parts {
		var p part
		if !b.decode(&m.parts[i], "part", &p) {
			continue
		}
		if !knownParts[p.Type] {
			b.addUnknown("part type "+p.Type, &m.parts[i])
			continue
		}
		ps, prow = append(ps, p), append(prow, &m.parts[i])
	}
	switch in.Role {
	case "user":
		b.user(m, &in, ps)
	case "assistant":
		b.assistant(m, &in, ps, prow)
	case "":
		b.warn(&m.row, "%s has no role (expected user or assistant); message skipped", m.where("message"))
	default:
		b.addUnknown("message role "+in.Role, &m.row)
	}
}

// user converts a user message as toModelMessages does.
func (b *builder) user(m *message, in *info, ps []part) {
	msg := corpus.Message{ID: m.id, Role: corpus.RoleUser, Time: millis(in.Time.Created), Line: m.line, Synthetic: true}
	real := false
	for _, p := range ps {
		switch p.Type {
		case "text":
			if p.Ignored {
				continue
			}
			msg.Blocks = append(msg.Blocks, corpus.Block{Kind: corpus.KindText, Text: p.Text})
			real = real || !p.Synthetic
		case "file":
			if p.Mime == "text/plain" || p.Mime == "application/x-directory" {
				continue // inlined by opencode as synthetic text parts
			}
			msg.Blocks = append(msg.Blocks, fileBlock(p.Mime, p.URL, ""))
			real = true
		case "compaction":
			msg.Blocks = append(msg.Blocks, corpus.Block{Kind: corpus.KindText, Text: "What did we do so far?"})
			b.requests[m.id] = request{at: len(b.s.Messages), auto: p.Auto, tail: p.TailStartID}
		case "subtask":
			msg.Blocks = append(msg.Blocks, corpus.Block{Kind: corpus.KindText, Text: "The following tool was executed by the user"})
		}
	}
	if len(msg.Blocks) == 0 {
		return // toModelMessages skips a message without parts
	}
	msg.Synthetic = !real
	b.s.Messages = append(b.s.Messages, msg)
}

// fileBlock is a file part (or a tool attachment): a data: URL is inline
// media, referenced by its hash; anything else is referenced by its URL.
func fileBlock(mime, url, callID string) corpus.Block {
	k := corpus.KindDocument
	if strings.HasPrefix(mime, "image/") {
		k = corpus.KindImage
	}
	bl := corpus.Block{Kind: k, MediaType: mime, ToolCallID: callID}
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		_, data, _ := strings.Cut(rest, ",")
		bl.Source, bl.MediaRef = "base64", corpus.MediaHash(data)
		return bl
	}
	bl.Source = url
	return bl
}

// assistant converts an assistant message into one request per step.
func (b *builder) assistant(m *message, in *info, ps []part, prow []*row) {
	if b.s.Meta.Model == "" {
		b.s.Meta.Model, b.s.Meta.Provider = in.ModelID, in.ProviderID
	}
	summary := bytes.Equal(bytes.TrimSpace(in.Summary), []byte("true"))
	if len(in.Error) > 0 && !bytes.Equal(in.Error, []byte("null")) && !(abortedWithOutput(in.Error, ps)) {
		if summary {
			b.compaction(m, in, "", "failed", -1)
		}
		return // opencode does not send a message that failed
	}
	step := 0
	var cur *corpus.Message
	var results []corpus.Block
	var steps []int // message index of each step's assistant message
	flush := func() {
		if cur != nil && len(cur.Blocks) > 0 {
			steps = append(steps, len(b.s.Messages))
			b.s.Messages = append(b.s.Messages, *cur)
			if len(results) > 0 {
				b.s.Messages = append(b.s.Messages, corpus.Message{ID: cur.ID + "/results", Role: corpus.RoleTool, Blocks: results,
					Time: cur.Time, Line: cur.Line})
			}
		}
		cur, results = nil, nil
	}
	start := func() {
		id := m.id
		if step > 0 {
			id = fmt.Sprintf("%s/step%d", m.id, step+1)
		}
		step++
		cur = &corpus.Message{ID: id, Role: corpus.RoleAssistant, Summary: summary, Time: millis(in.Time.Created), Line: m.line}
	}
	var usage []corpus.Usage
	for i, p := range ps {
		if p.Type == "step-start" {
			if cur != nil && len(cur.Blocks) > 0 {
				flush()
			}
			if cur == nil {
				start()
			}
			continue
		}
		if cur == nil {
			start()
		}
		switch p.Type {
		case "text":
			cur.Blocks = append(cur.Blocks, corpus.Block{Kind: corpus.KindText, Text: p.Text})
		case "reasoning":
			cur.Blocks = append(cur.Blocks, corpus.Block{Kind: corpus.KindThinking, Text: p.Text})
		case "tool":
			use, res := b.tool(&p, prow[i])
			if use != nil {
				cur.Blocks = append(cur.Blocks, *use)
				results = append(results, res...)
			}
		case "step-finish":
			if u, ok := b.usage(prow[i], prow[i].where("step-finish part"), p.Tokens, p.Cost, in.ModelID); ok {
				u.AtMessage = len(b.s.Messages) // this step's message, once flushed
				if cur == nil || len(cur.Blocks) == 0 {
					u.AtMessage = -1
				}
				usage = append(usage, u)
			}
		}
	}
	flush()
	if len(usage) == 0 && in.Tokens != nil {
		// An older message, or one whose steps recorded nothing: its totals
		// as one request, made by its last step.
		if u, ok := b.usage(&m.row, m.where("message"), in.Tokens, in.Cost, in.ModelID); ok && (u.Prompt() > 0 || u.OutputTokens > 0) {
			u.AtMessage = -1
			if len(steps) > 0 {
				u.AtMessage = steps[len(steps)-1]
			}
			u.Done = millis(in.Time.Completed)
			usage = append(usage, u)
		}
	}
	b.s.Recorded.Usage = append(b.s.Recorded.Usage, usage...)
	if summary {
		status := "completed"
		if in.Finish == "" {
			status = "running"
		}
		text := ""
		for _, k := range steps {
			for _, bl := range b.s.Messages[k].Blocks {
				if bl.Kind == corpus.KindText {
					text += bl.Text
				}
			}
		}
		at := -1
		if len(steps) > 0 {
			at = steps[0]
		}
		b.compaction(m, in, text, status, at)
	}
}

// abortedWithOutput is toModelMessages' exception: a message the user
// aborted is still sent when it has parts other than step-start and
// reasoning.
func abortedWithOutput(errJSON json.RawMessage, ps []part) bool {
	var e struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(errJSON, &e) != nil || e.Name != "MessageAbortedError" {
		return false
	}
	for _, p := range ps {
		if p.Type != "step-start" && p.Type != "reasoning" {
			return true
		}
	}
	return false
}

// tool converts a tool part into its tool_use and result blocks.
func (b *builder) tool(p *part, r *row) (*corpus.Block, []corpus.Block) {
	if p.CallID == "" {
		b.warn(r, "%s: tool part has no callID, so its result cannot be paired; part skipped", r.where("part"))
		return nil, nil
	}
	if p.State == nil {
		b.warn(r, "%s: tool call %s (%s) has no state; part skipped", r.where("part"), p.CallID, p.Tool)
		return nil, nil
	}
	if prev, ok := b.uses[p.CallID]; ok {
		b.warn(r, "%s: tool call id %s already used by %s", r.where("part"), p.CallID, prev.where("part"))
	}
	b.uses[p.CallID] = r
	st := p.State
	if in := bytes.TrimLeft(st.Input, " \t\r\n"); len(in) > 0 && in[0] != '{' && in[0] != 'n' {
		b.warn(r, "%s: tool call %s (%s) input is %s, not an object; kept as recorded, but no path, command or URL is read from it",
			r.where("part"), p.CallID, p.Tool, jsonscan.Excerpt(string(in)))
	}
	use := &corpus.Block{Kind: corpus.KindToolUse, ToolCallID: p.CallID, ToolName: p.Tool, Args: jsonscan.Unindent(st.Input)}
	res := corpus.Block{Kind: corpus.KindToolResult, ToolCallID: p.CallID}
	var media []corpus.Block
	switch st.Status {
	case "completed":
		if st.Output == nil {
			b.warn(r, "%s: completed tool call %s (%s) has no output; an empty result is used", r.where("part"), p.CallID, p.Tool)
		} else {
			res.Text = *st.Output
		}
		for _, a := range st.Attachments {
			media = append(media, fileBlock(a.Mime, a.URL, p.CallID))
		}
		if st.Time.Compacted > 0 {
			b.pruned = append(b.pruned, prunedPart{callID: p.CallID, at: st.Time.Compacted, line: r.line})
		}
	case "error":
		res.IsError = true
		res.Text = st.Error
		if st.Metadata.Interrupted && st.Metadata.Output != nil {
			res.Text, res.IsError = *st.Metadata.Output, false
		}
	case "pending", "running":
		b.warn(r, "%s: tool call %s (%s) was still %s when the session was saved; opencode sends \"[Tool execution was interrupted]\" as its error result", r.where("part"), p.CallID, p.Tool, st.Status)
		res.IsError, res.Text = true, "[Tool execution was interrupted]"
	default:
		b.warn(r, "%s: tool call %s (%s) has status %q (expected pending, running, completed or error); part skipped", r.where("part"), p.CallID, p.Tool, st.Status)
		return nil, nil
	}
	return use, append([]corpus.Block{res}, media...)
}

// usage reads a tokens object (a step's or a message's) as one request.
func (b *builder) usage(r *row, what string, t *tokens, cost float64, model string) (corpus.Usage, bool) {
	if t == nil {
		b.warn(r, "%s has no tokens (expected input, output, reasoning and cache counts); its usage is ignored", what)
		return corpus.Usage{}, false
	}
	var read, write *int64
	if t.Cache != nil {
		read, write = t.Cache.Read, t.Cache.Write
	}
	if msg := corpus.CheckUsage(what+" tokens", corpus.UsageField{Name: "input", Value: t.Input}, corpus.UsageField{Name: "output", Value: t.Output},
		corpus.UsageField{Name: "cache.read", Value: read}, corpus.UsageField{Name: "cache.write", Value: write}); msg != "" {
		b.warn(r, "%s", msg)
		return corpus.Usage{}, false
	}
	reasoning := int64(0)
	if t.Reasoning != nil && *t.Reasoning > 0 {
		reasoning = *t.Reasoning
	}
	return corpus.Usage{Model: model, Requests: 1, InputTokens: int(*t.Input), CacheReadTokens: int(*read), CacheWriteTokens: int(*write),
		OutputTokens: int(*t.Output), ReasoningTokens: int(reasoning), Cost: cost, Line: r.line}, true
}
