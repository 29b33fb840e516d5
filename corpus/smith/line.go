package smith

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus"
)

// The texts smith's agent writes itself (smith.md §2, §5). Files recorded
// before the synthetic flag are recognised by them.
const (
	smithContinueText = "Your previous response was cut off at the output token limit. Continue exactly where you left off. Do not repeat what you already wrote and do not start over."
	// agent.cr RETRY_SMALLER, read at webmatze/smith@02a766f1.
	smithRetrySmaller  = "Your tool call was cut off at the output token limit and was discarded. Retry with a smaller payload — for large files, write them in multiple smaller edits."
	smithStopHookText  = "A stop hook asked you to keep going."
	smithSummaryPrefix = "Summary of the earlier conversation: "
)

// smithDropped is the replacement text when summarizing failed (§2 step 7).
var smithDropped = regexp.MustCompile(`^[0-9]+ earlier messages were dropped to stay within the context window\. Ask the user if you need details from before this point\.$`)

// smithKind maps a block "type" to a kind. smith parses enums leniently
// (case and underscores do not matter), and so does calib.
func smithKind(typ string) (corpus.BlockKind, bool) {
	if k, ok := smithKindOf(typ); ok {
		return k, true
	}
	return smithKindOf(strings.ReplaceAll(strings.ToLower(typ), "_", ""))
}

// smithKindOf maps a block type spelled as smith writes it, or folded
// (lower case, no underscores), to its kind.
func smithKindOf(typ string) (corpus.BlockKind, bool) {
	switch typ {
	case "text":
		return corpus.KindText, true
	case "tool_use", "tooluse":
		return corpus.KindToolUse, true
	case "tool_result", "toolresult":
		return corpus.KindToolResult, true
	case "thinking":
		return corpus.KindThinking, true
	case "redacted_thinking", "redactedthinking":
		return corpus.KindRedactedThinking, true
	case "image":
		return corpus.KindImage, true
	case "document":
		return corpus.KindDocument, true
	}
	return corpus.KindUnknown, false
}

// smithRole maps a role leniently, like smithKind.
func smithRole(role string) (corpus.Role, bool) {
	switch strings.ReplaceAll(strings.ToLower(role), "_", "") {
	case "user":
		return corpus.RoleUser, true
	case "assistant":
		return corpus.RoleAssistant, true
	case "tool":
		return corpus.RoleTool, true
	case "system":
		return corpus.RoleSystem, true
	}
	return "", false
}

// The shapes encoding/json decodes a line into when the fast decoder
// declines it.
type stdSmithLine struct {
	Role      string            `json:"role"`
	Content   []json.RawMessage `json:"content"`
	Synthetic *bool             `json:"synthetic"`
	ID        *string           `json:"id"`
}

type stdSmithBlock struct {
	Type       string          `json:"type"`
	Text       string          `json:"text"`
	ToolCallID string          `json:"tool_call_id"`
	ToolName   string          `json:"tool_name"`
	ToolArgs   json.RawMessage `json:"tool_args"`
	IsError    bool            `json:"is_error"`
	Signature  string          `json:"signature"`
	MediaType  string          `json:"media_type"`
	Source     string          `json:"source"`
	MediaRef   string          `json:"media_ref"`
}

// decodeSmithLineStd decodes a line with encoding/json: the reference the
// fast decoder must agree with, and the source of exact error messages.
func decodeSmithLineStd(line []byte, out *smithLine) error {
	*out = smithLine{}
	var l stdSmithLine
	if err := json.Unmarshal(line, &l); err != nil {
		return describeJSONError(err, "", `one JSON object per line (a smith message: {"role":…,"content":[…]})`)
	}
	out.Role = l.Role
	if l.Synthetic != nil {
		out.Synthetic, out.HasSynthetic = *l.Synthetic, true
	}
	if l.ID != nil {
		out.ID, out.HasID = *l.ID, true
	}
	for i, raw := range l.Content {
		var b stdSmithBlock
		if err := json.Unmarshal(raw, &b); err != nil {
			return describeJSONError(err, fmt.Sprintf("content block %d: ", i+1), "a JSON object (a content block)")
		}
		kind, known := smithKind(b.Type)
		blk := corpus.Block{Kind: kind, Text: b.Text, ToolCallID: b.ToolCallID, ToolName: b.ToolName,
			Args: []byte(b.ToolArgs), IsError: b.IsError, Signature: b.Signature,
			MediaType: b.MediaType, Source: b.Source, MediaRef: b.MediaRef}
		if !known {
			blk.Payload = raw
		}
		out.Blocks = append(out.Blocks, blk)
	}
	return nil
}

// describeJSONError turns an encoding/json error into a message that says
// what was expected. where prefixes it ("content block 2: "); expect is
// what a syntax error should have been instead.
func describeJSONError(err error, where, expect string) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("%sexpected %s, found %s", where, expect, te.Value)
		}
		return fmt.Errorf("%sexpected %q to be %s, found %s", where, te.Field, expectedOf(te.Field), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if se.Error() == "unexpected end of JSON input" {
			return fmt.Errorf("%sJSON ends early (unexpected end of JSON input); expected %s", where, expect)
		}
		return fmt.Errorf("%snot valid JSON (%v at byte %d); expected %s", where, se, se.Offset, expect)
	}
	return fmt.Errorf("%s%v", where, err)
}

func expectedOf(field string) string {
	switch field {
	case "content":
		return "an array of content blocks"
	case "synthetic", "is_error":
		return "true or false"
	case "role":
		return `a string ("user", "assistant" or "tool")`
	}
	return "a string"
}

// lineReader decodes lines into messages and collects warnings for one
// file. It is the one place the fast decoder and encoding/json meet.
type lineReader struct {
	file     string
	dec      lineDecoder
	warnings []corpus.Warning
	// skipped counts lines that were skipped whole.
	skipped int
}

func (r *lineReader) warn(line int, format string, args ...any) {
	r.warnings = append(r.warnings, corpus.Warnf(r.file, line, format, args...))
}

// decode turns one line into a message. line is the 1-based line number
// for warnings and Message.Line; id is the id to use when the line records
// none; what names the record in warnings ("line" or "messages[3]").
// unterminated marks a last line with no newline. It returns false when
// the line is skipped (a warning says why).
func (r *lineReader) decode(raw []byte, line int, id, what string, unterminated bool) (corpus.Message, bool) {
	var l smithLine
	if !r.dec.decode(raw, &l) {
		// The fast decoder declined: find out why, exactly.
		if !utf8.Valid(raw) {
			off := 0
			for off < len(raw) {
				c, size := utf8.DecodeRune(raw[off:])
				if c == utf8.RuneError && size <= 1 {
					break
				}
				off += size
			}
			r.skipped++
			r.warn(line, "%sinvalid UTF-8 at byte %d; expected UTF-8 JSON text; skipped", prefixOf(what), off)
			return corpus.Message{}, false
		}
		if err := decodeSmithLineStd(raw, &l); err != nil {
			r.skipped++
			if unterminated && strings.Contains(err.Error(), "unexpected end of JSON input") {
				r.warn(line, "truncated last line (the file ends mid-record, as after a crash while writing); expected a complete JSON object; skipped")
			} else {
				r.warn(line, "%s%v; skipped", prefixOf(what), err)
			}
			return corpus.Message{}, false
		}
	}
	role, ok := smithRole(l.Role)
	if !ok {
		r.skipped++
		if l.Role == "" {
			r.warn(line, `%smissing "role"; expected {"role":"user|assistant|tool","content":[…]}; skipped`, prefixOf(what))
		} else {
			r.warn(line, `%sunknown role %q; expected "user", "assistant" or "tool"; skipped`, prefixOf(what), l.Role)
		}
		return corpus.Message{}, false
	}
	m := corpus.Message{ID: id, Role: role, Blocks: l.Blocks, Line: line, Synthetic: l.Synthetic}
	if l.HasID && l.ID != "" {
		m.ID = l.ID
	}
	for i := range m.Blocks {
		if b := &m.Blocks[i]; b.Kind == corpus.KindUnknown {
			r.warn(line, "%scontent block %d has %s; kept as an unknown block (expected text, thinking, redacted_thinking, tool_use, tool_result, image or document)",
				prefixOf(what), i+1, unknownTypeOf(b.Payload))
		}
	}
	if role == corpus.RoleUser && len(m.Blocks) > 0 && m.Blocks[0].Kind == corpus.KindText {
		t := m.Blocks[0].Text
		if !l.HasSynthetic && (t == smithContinueText || t == smithRetrySmaller || t == smithStopHookText) {
			m.Synthetic = true // written before the flag existed (§5)
		}
		if strings.HasPrefix(t, smithSummaryPrefix) || smithDropped.MatchString(t) {
			m.Summary = true
		}
	}
	return m, true
}

func prefixOf(what string) string {
	if what == "" {
		return ""
	}
	return what + ": "
}

// unknownTypeOf names the type of an unknown block for a warning.
func unknownTypeOf(payload []byte) string {
	var b struct {
		Type *string `json:"type"`
	}
	if json.Unmarshal(payload, &b) != nil || b.Type == nil {
		return `no "type"`
	}
	return "unknown type " + strconv.Quote(*b.Type)
}

// checkPairing warns about tool results without their tool_use and tool
// calls without a result, in one pass.
func (r *lineReader) checkPairing(msgs []corpus.Message) {
	uses := map[string]bool{}
	results := map[string]bool{}
	for _, m := range msgs {
		for _, b := range m.Blocks {
			switch b.Kind {
			case corpus.KindToolUse:
				uses[b.ToolCallID] = true
			case corpus.KindToolResult:
				results[b.ToolCallID] = true
			}
		}
	}
	for _, m := range msgs {
		for _, b := range m.Blocks {
			switch {
			case b.Kind == corpus.KindToolUse && !results[b.ToolCallID]:
				r.warn(m.Line, "tool_use %q (%s) has no tool_result in this session; expected a tool message answering it (the recording may end mid-turn)", b.ToolCallID, b.ToolName)
			case b.Kind == corpus.KindToolResult && !uses[b.ToolCallID]:
				r.warn(m.Line, "tool_result for %q has no matching tool_use in this session; expected an earlier assistant message calling it", b.ToolCallID)
			}
		}
	}
}
