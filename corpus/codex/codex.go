package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// Codex CLI rollout files (~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl):
// one {timestamp, type, payload} record per line (codex-rs
// core/src/rollout/recorder.rs). What calib reads:
//   - session_meta: id, cwd, cli_version, model_provider; turn_context: model.
//   - response_item: the history the model saw. message (input_text,
//     output_text, input_image), reasoning (a thinking block: its text, or
//     its summary when the text is not kept; encrypted_content in
//     Signature), function_call / custom_tool_call / local_shell_call (tool
//     uses, arguments kept as recorded) and their *_output items (tool
//     results, paired by call_id). Consecutive model-side items form one
//     assistant message and consecutive outputs one tool message, as for
//     Claude Code. developer and system messages are RoleSystem.
//   - compacted: a Recorded compaction (Strategy "compacted", Summary =
//     payload.message).
//   - event_msg: skipped. These are UI events that repeat response items
//     (user_message, agent_message) or report usage; none is history.

// codexSkip are payload types and line types known to hold no history.
var codexSkip = map[string]bool{"ghost_snapshot": true}

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexMeta struct {
	ID            string `json:"id"`
	Cwd           string `json:"cwd"`
	CliVersion    string `json:"cli_version"`
	ModelProvider string `json:"model_provider"`
	Model         string `json:"model"`
	Timestamp     string `json:"timestamp"`
}

type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   []codexPart     `json:"summary"`
	Encrypted string          `json:"encrypted_content"`
	Name      string          `json:"name"`
	Arguments *string         `json:"arguments"`
	Input     *string         `json:"input"`
	Action    json.RawMessage `json:"action"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	// compacted lines
	Message string `json:"message"`
}

type codexPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

// codexResult is a tool output waiting for its call: its id and line.
type codexResult struct {
	id string
	ln int
}

type codexLoader struct {
	path     string
	s        *corpus.Session
	unknown  jsonscan.UnknownKinds
	calls    map[string]int // call_id -> line
	callName map[string]string
	outs     []codexResult
	noMerge  bool // a compaction sits between the last message and the next
}

// Load reads one Codex rollout file as one session.
func Load(p string, opts corpus.Options) ([]*corpus.Session, error) {
	return jsonscan.LoadFile(p, opts, Read)
}

// Read reads a log from r (a file, or standard input); p names it in
// sessions and warnings.
func Read(p string, r io.Reader, opts corpus.Options) ([]*corpus.Session, error) {
	l := &codexLoader{path: p, unknown: jsonscan.UnknownKinds{}, calls: map[string]int{}, callName: map[string]string{},
		s: &corpus.Session{Format: corpus.FormatCodex, Path: p}}
	if err := jsonscan.StreamLines(r, l.line); err != nil {
		return nil, &corpus.FileError{Path: p, Err: fmt.Errorf("reading: %w", err)}
	}
	l.finish()
	return []*corpus.Session{l.s}, nil
}

func (l *codexLoader) warn(line int, format string, args ...any) {
	l.s.Warnings = append(l.s.Warnings, corpus.Warning{File: l.path, Line: line, Message: fmt.Sprintf(format, args...)})
}

func (l *codexLoader) line(n int, b []byte, final bool) error {
	var ln codexLine
	if err := json.Unmarshal(b, &ln); err != nil {
		if final {
			l.warn(n, "the log is cut mid-line: the last line (%d bytes, no newline) is not complete JSON; line skipped", len(b))
		} else {
			l.warn(n, "invalid JSON (%v); line skipped", err)
		}
		return nil
	}
	ts := jsonscan.Timestamp(ln.Timestamp)
	if !ts.IsZero() {
		if l.s.Meta.CreatedAt.IsZero() {
			l.s.Meta.CreatedAt = ts
		}
		l.s.Meta.UpdatedAt = ts
	}
	switch ln.Type {
	case "session_meta", "turn_context":
		var m codexMeta
		if err := json.Unmarshal(ln.Payload, &m); err != nil {
			l.warn(n, "%s payload is not an object (%v); line skipped", ln.Type, err)
			return nil
		}
		meta := &l.s.Meta
		if l.s.ID == "" && m.ID != "" {
			l.s.ID = m.ID
		}
		setIfEmpty(&meta.Cwd, m.Cwd)
		setIfEmpty(&meta.AgentVersion, m.CliVersion)
		setIfEmpty(&meta.Provider, m.ModelProvider)
		setIfEmpty(&meta.Model, m.Model)
	case "response_item":
		var it codexItem
		if err := json.Unmarshal(ln.Payload, &it); err != nil {
			l.warn(n, "response_item payload is not an object (%v); line skipped", err)
			return nil
		}
		l.item(&it, n, ln)
	case "compacted":
		var it codexItem
		if err := json.Unmarshal(ln.Payload, &it); err != nil {
			l.warn(n, "compacted payload is not an object (%v); line skipped", err)
			return nil
		}
		c := &l.s.Recorded
		c.Compactions = append(c.Compactions, corpus.Compaction{Index: len(c.Compactions), Strategy: "compacted",
			AtMessage: len(l.s.Messages), Summary: it.Message, CreatedAt: ts, Line: n})
		l.noMerge = true
	case "event_msg":
	default:
		l.unknown.Add("line type "+ln.Type, n)
	}
	return nil
}

func setIfEmpty(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

func (l *codexLoader) item(it *codexItem, n int, ln codexLine) {
	ts := jsonscan.Timestamp(ln.Timestamp)
	switch it.Type {
	case "message":
		parts, err := codexParts(it.Content)
		if err != nil {
			l.warn(n, "message content is not a list of parts (%v); line skipped", err)
			return
		}
		var blocks []corpus.Block
		for _, p := range parts {
			switch p.Type {
			case "input_text", "output_text", "text":
				blocks = append(blocks, corpus.Block{Kind: corpus.KindText, Text: p.Text})
			case "input_image":
				blocks = append(blocks, codexImage(p.ImageURL, ""))
			default:
				l.unknown.Add("message part "+p.Type, n)
			}
		}
		switch it.Role {
		case "assistant":
			l.model(blocks, n, ts)
		case "user":
			l.add(corpus.Message{Role: corpus.RoleUser, Synthetic: codexInjected(blocks), Blocks: blocks, Time: ts, Line: n})
		case "developer", "system":
			l.add(corpus.Message{Role: corpus.RoleSystem, Blocks: blocks, Time: ts, Line: n})
		default:
			l.warn(n, "message with unknown role %q; line skipped", it.Role)
		}
	case "reasoning":
		var texts []string
		if parts, err := codexParts(it.Content); err == nil {
			for _, p := range parts {
				texts = append(texts, p.Text)
			}
		}
		if len(texts) == 0 {
			for _, p := range it.Summary {
				texts = append(texts, p.Text)
			}
		}
		l.model([]corpus.Block{{Kind: corpus.KindThinking, Text: strings.Join(texts, "\n"), Signature: it.Encrypted}}, n, ts)
	case "function_call", "custom_tool_call", "local_shell_call":
		var args []byte
		switch {
		case it.Arguments != nil:
			args = []byte(*it.Arguments)
		case it.Input != nil:
			args = []byte(*it.Input)
		default:
			args = it.Action
		}
		name := it.Name
		if name == "" && it.Type == "local_shell_call" {
			name = "local_shell"
		}
		if prev, ok := l.calls[it.CallID]; ok {
			l.warn(n, "call_id %s already used at line %d", it.CallID, prev)
		}
		l.calls[it.CallID] = n
		l.callName[it.CallID] = name
		l.model([]corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: it.CallID, ToolName: name, Args: args}}, n, ts)
	case "function_call_output", "custom_tool_call_output":
		blocks := codexOutput(it.CallID, it.Output)
		l.outs = append(l.outs, codexResult{id: it.CallID, ln: n})
		msgs := l.s.Messages
		if k := len(msgs) - 1; k >= 0 && msgs[k].Role == corpus.RoleTool && !l.noMerge {
			msgs[k].Blocks = append(msgs[k].Blocks, blocks...)
			return
		}
		l.add(corpus.Message{Role: corpus.RoleTool, Blocks: blocks, Time: ts, Line: n})
	default:
		if !codexSkip[it.Type] {
			l.unknown.Add("response_item type "+it.Type, n)
		}
	}
}

// model appends model-side blocks to the current assistant message, or
// starts one.
func (l *codexLoader) model(blocks []corpus.Block, n int, ts time.Time) {
	msgs := l.s.Messages
	if k := len(msgs) - 1; k >= 0 && msgs[k].Role == corpus.RoleAssistant && !l.noMerge {
		msgs[k].Blocks = append(msgs[k].Blocks, blocks...)
		return
	}
	l.add(corpus.Message{Role: corpus.RoleAssistant, Blocks: blocks, Time: ts, Line: n})
}

func (l *codexLoader) add(m corpus.Message) {
	m.ID = fmt.Sprintf("L%d", m.Line)
	l.s.Messages = append(l.s.Messages, m)
	l.noMerge = false
}

// codexInjected recognises the user messages Codex writes itself (AGENTS.md
// instructions, the environment context), which are not typed by the user.
func codexInjected(blocks []corpus.Block) bool {
	if len(blocks) == 0 {
		return false
	}
	t := blocks[0].Text
	return strings.HasPrefix(t, "<environment_context>") || strings.HasPrefix(t, "<user_instructions>") ||
		strings.HasPrefix(t, "# AGENTS.md instructions")
}

func codexParts(raw json.RawMessage) ([]codexPart, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var parts []codexPart
	err := json.Unmarshal(raw, &parts)
	return parts, err
}

// codexOutput maps a call output: a string, an object {content, success},
// or a list of content items (text joined, images kept).
func codexOutput(id string, raw json.RawMessage) []corpus.Block {
	res := corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return []corpus.Block{res}
	}
	switch raw[0] {
	case '"':
		_ = json.Unmarshal(raw, &res.Text)
	case '{':
		var o struct {
			Content json.RawMessage `json:"content"`
			Success *bool           `json:"success"`
		}
		_ = json.Unmarshal(raw, &o)
		if o.Success != nil && !*o.Success {
			res.IsError = true
		}
		out := codexOutput(id, o.Content)
		out[0].IsError = res.IsError
		return out
	case '[':
		parts, _ := codexParts(raw)
		var texts []string
		var media []corpus.Block
		for _, p := range parts {
			if p.Type == "input_image" {
				media = append(media, codexImage(p.ImageURL, id))
				continue
			}
			texts = append(texts, p.Text)
		}
		res.Text = strings.Join(texts, "\n")
		return append([]corpus.Block{res}, media...)
	default:
		res.Payload = raw
	}
	return []corpus.Block{res}
}

func codexImage(url, id string) corpus.Block {
	b := corpus.Block{Kind: corpus.KindImage, ToolCallID: id}
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		mt, data, _ := strings.Cut(rest, ",")
		b.MediaType = strings.TrimSuffix(mt, ";base64")
		b.Source = "base64"
		b.MediaRef = corpus.MediaHash(data)
		return b
	}
	b.Source = url
	return b
}

func (l *codexLoader) finish() {
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
	l.s.Warnings = append(l.s.Warnings, l.unknown.Warnings(l.path, "Codex")...)

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
