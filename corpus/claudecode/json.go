package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// ccLine is one line of a Claude Code project log. Only the fields calib
// uses are declared; the rest (toolUseResult, snapshots) are skipped
// by the decoder without being kept.
type ccLine struct {
	Type       string  `json:"type"`
	Subtype    string  `json:"subtype"`
	UUID       string  `json:"uuid"`
	ParentUUID *string `json:"parentUuid"`
	// LogicalParentUUID links a compact_boundary (whose parentUuid is
	// null) to the line before it.
	LogicalParentUUID string `json:"logicalParentUuid"`
	IsSidechain       bool   `json:"isSidechain"`
	IsMeta            bool   `json:"isMeta"`
	IsCompactSummary  bool   `json:"isCompactSummary"`
	SessionID         string `json:"sessionId"`
	AgentID           string `json:"agentId"`
	Version           string `json:"version"`
	Cwd               string `json:"cwd"`
	// Timestamp is the line's timestamp; a value that is not a string is
	// kept as its JSON text, which no time parses, so that the
	// timestamps' tally (jsonscan.Times) counts it, where it read as no
	// timestamp in silence.
	Timestamp string `json:"timestamp"`
	// Summary is the title of a "summary" line.
	Summary              string         `json:"summary"`
	Message              *ccMessage     `json:"message"`
	CompactMetadata      *ccCompactMeta `json:"compactMetadata"`
	MicrocompactMetadata *ccCompactMeta `json:"microcompactMetadata"`
	// typeJSON and messageJSON are the JSON text of a type that is not a
	// string and of a message that is not an object, for the warning that
	// says so ("" otherwise).
	typeJSON, messageJSON string
	// odd are the metadata fields of another kind than a string, read as
	// absent, for the file's tally (jsonscan.OddKinds).
	odd []jsonscan.OddValue
}

type ccMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	// content is Content as the line scan decoded it (scanContent).
	content ccValue
	// Usage is the raw usage object (a span of the line, valid until the
	// next line); nil when the line has none.
	Usage []byte `json:"-"`
}

// ccCompactMeta is compactMetadata (compact_boundary) or
// microcompactMetadata (microcompact_boundary); they share field names.
type ccCompactMeta struct {
	Trigger          string   `json:"trigger"`
	PreTokens        int      `json:"preTokens"`
	PostTokens       int      `json:"postTokens"`
	TokensSaved      int      `json:"tokensSaved"`
	CompactedToolIDs []string `json:"compactedToolIds"`
}

// ccBlock is one content block of an Anthropic API message as Claude Code
// records it.
type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"` // redacted_thinking
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *ccSource       `json:"source"`
	// Raw is the block's JSON (a span of the line, valid until the next
	// line): kept, copied, for a block of an unknown type.
	Raw []byte `json:"-"`
	// content is Content decoded with the block (a tool_result's, one
	// level below message.content; scanContent).
	content ccValue
}

type ccSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
}

// ccRecent is the last value of each line field whose value repeats from
// line to line (Scanner.StrOrNullReusing): the session, version and cwd
// of every line, the type, the message id of a response split over
// lines, and the uuid, which the next line names as its parent.
type ccRecent struct {
	typ, subtype, uuid, sessionID, agentID, version, cwd, msgID, role, model string
	// msg and parent are where the line's ccLine.Message and ParentUUID
	// point: the loader is done with a line before it reads the next, so
	// one of each serves every line (they were two allocations a line).
	msg    ccMessage
	parent string
	// blocks is the array the line's message.content blocks are decoded
	// into, for the same reason.
	blocks []ccBlock
	// scratch is the line scan's Scanner.Scratch: the strings it keeps
	// (message.content's) are checked and unescaped in one pass.
	scratch []byte
}

// ccDecodeLine decodes one line into ln. Strings are copied (or are the
// same as one of r's, which it updates); the raw spans (message.content,
// tool inputs) point into b and are only valid until the next line, so
// whatever is kept is copied from them.
func ccDecodeLine(b []byte, ln *ccLine, r *ccRecent) error {
	return decodeLine(b, ln, r, true)
}

// decodeLine is ccDecodeLine; without decode it keeps message.content raw
// only (the plain reading the tests hold scanContent to).
func decodeLine(b []byte, ln *ccLine, r *ccRecent, decode bool) error {
	s := &jsonscan.Scanner{B: b, Scratch: &r.scratch}
	ln.odd = ln.odd[:0] // a line decoded again notes its odd fields once
	s.Object(func(key []byte) bool {
		switch string(key) {
		case "type":
			if c := s.Peek(); c != '"' && c != 'n' {
				return rawText(s, &ln.typeJSON)
			}
			ln.Type = s.StrOrNullReusing(&r.typ)
		case "subtype":
			ln.Subtype = s.StrNoting(&r.subtype, "subtype", &ln.odd)
		case "uuid":
			ln.UUID = s.StrNoting(&r.uuid, "uuid", &ln.odd)
		case "parentUuid":
			if s.Peek() == '"' {
				r.parent = s.StrOrNullReusing(&r.uuid) // mostly the previous line's
				ln.ParentUUID = &r.parent
			} else {
				s.StrNoting(&r.parent, "parentUuid", &ln.odd) // null, or noted
			}
		case "logicalParentUuid":
			var last string
			ln.LogicalParentUUID = s.StrNoting(&last, "logicalParentUuid", &ln.odd)
		case "isSidechain":
			ln.IsSidechain = s.Bool()
		case "isMeta":
			ln.IsMeta = s.Bool()
		case "isCompactSummary":
			ln.IsCompactSummary = s.Bool()
		case "sessionId":
			ln.SessionID = s.StrNoting(&r.sessionID, "sessionId", &ln.odd)
		case "agentId":
			ln.AgentID = s.StrNoting(&r.agentID, "agentId", &ln.odd)
		case "version":
			ln.Version = s.StrNoting(&r.version, "version", &ln.odd)
		case "cwd":
			ln.Cwd = s.StrNoting(&r.cwd, "cwd", &ln.odd)
		case "timestamp":
			ln.Timestamp = s.StrOrText() // another kind: tallied as malformed
		case "summary":
			ln.Summary = s.StrOrNull()
		case "message":
			switch s.Peek() {
			case 'n':
				return s.Skip()
			case '{':
			default:
				return rawText(s, &ln.messageJSON)
			}
			m := &r.msg
			*m = ccMessage{}
			ln.Message = m
			return s.Object(func(key []byte) bool {
				switch string(key) {
				case "id":
					m.ID = s.StrNoting(&r.msgID, "message.id", &ln.odd)
				case "role":
					m.Role = s.StrNoting(&r.role, "message.role", &ln.odd)
				case "model":
					m.Model = s.StrNoting(&r.model, "message.model", &ln.odd)
				case "content":
					if decode {
						m.Content, m.content, _ = scanContent(s, true, r.blocks[:0])
						r.blocks = m.content.blocks
					} else {
						m.Content, _ = s.Raw()
					}
				case "usage":
					m.Usage, _ = s.Raw()
				default:
					return s.Skip()
				}
				return true
			})
		case "compactMetadata", "microcompactMetadata":
			raw, ok := s.Raw()
			if !ok {
				return false
			}
			md := &ccCompactMeta{}
			if err := json.Unmarshal(raw, md); err != nil {
				md = nil
			}
			if string(key) == "compactMetadata" {
				ln.CompactMetadata = md
			} else {
				ln.MicrocompactMetadata = md
			}
		default:
			return s.Skip()
		}
		return true
	})
	s.End()
	return s.Err
}

// ccValue is a content value (message.content or a tool_result's
// content) that the scan which read it has decoded: a string (isString,
// text), a list of blocks (valid until the next line: message.content's
// are in ccRecent.blocks), or null (neither). A zero ccValue is not
// decoded: its raw bytes are decoded afresh by ccContent.
type ccValue struct {
	text     string
	blocks   []ccBlock
	isString bool
	decoded  bool
}

// get returns what ccContent(raw) returns, raw being the bytes v was
// read from: v's decoding when it has one.
func (v *ccValue) get(raw []byte) (text string, blocks []ccBlock, isString bool, err error) {
	if v.decoded {
		return v.text, v.blocks, v.isString, nil
	}
	return ccContent(raw)
}

// scanContent reads the value at s.I as s.Raw does and returns its bytes
// and, when it is a string, a list of blocks or null, its decoding:
// message.content is decoded in the line scan's pass instead of being
// found again in the line afterwards (its strings are validated and
// unescaped in one visit each). nested also decodes the blocks' own
// content (a tool_result's). The blocks are appended to into. A value of another shape, or one that is
// not valid JSON, is read again from its start by s.Raw, so that the line
// is accepted or rejected, with the same error, as Raw alone would.
func scanContent(s *jsonscan.Scanner, nested bool, into []ccBlock) (raw []byte, v ccValue, ok bool) {
	s.Peek()
	start := s.I
	if s.Peek() != 0 {
		if v, ok = decodeContent(s, nested, into); ok && s.Err == nil {
			v.decoded = true
			return s.B[start:s.I], v, true
		}
	}
	s.I, s.Err = start, nil
	raw, ok = s.Raw()
	return raw, ccValue{}, ok
}

// ccContent decodes message.content (or a tool_result's content), which is
// either a string or a list of blocks. raw is a span ccDecodeLine's scan
// has validated, so its strings are not checked again (Scanner.Checked).
func ccContent(raw []byte) (text string, blocks []ccBlock, isString bool, err error) {
	s := &jsonscan.Scanner{B: raw, Checked: true}
	if s.Peek() == 0 {
		return "", nil, false, nil
	}
	v, _ := decodeContent(s, true, nil)
	s.End()
	return v.text, v.blocks, v.isString, s.Err
}

// decodeContent decodes the content value at s.I (see ccValue), a list
// of blocks appended to into; ok is false when it is neither a string, a
// list of blocks nor null, or is not valid (s.Err says why).
func decodeContent(s *jsonscan.Scanner, nested bool, into []ccBlock) (v ccValue, ok bool) {
	v.blocks = into
	switch s.Peek() {
	case 'n':
		return v, s.Skip()
	case '"':
		v.text, ok = s.Str()
		v.isString = true
		return v, ok
	}
	ok = s.Array(func() bool {
		var b ccBlock
		s.Peek() // to the block's first byte
		start := s.I
		ok := s.Object(func(key []byte) bool {
			switch string(key) {
			case "type":
				b.Type = s.StrOrNull()
			case "text":
				b.Text = s.StrOrNull()
			case "thinking":
				b.Thinking = s.StrOrNull()
			case "signature":
				b.Signature = s.StrOrNull()
			case "data":
				b.Data = s.StrOrNull()
			case "id":
				b.ID = s.StrOrNull()
			case "name":
				b.Name = s.StrOrNull()
			case "tool_use_id":
				b.ToolUseID = s.StrOrNull()
			case "is_error":
				b.IsError = s.Bool()
			case "input":
				in, ok := s.Raw()
				b.Input = bytes.Clone(in)
				return ok
			case "content":
				if nested {
					var ok bool
					b.Content, b.content, ok = scanContent(s, false, nil)
					return ok
				}
				b.Content, _ = s.Raw()
			case "source":
				b.Source = &ccSource{}
				return s.Object(func(key []byte) bool {
					switch string(key) {
					case "type":
						b.Source.Type = s.StrOrNull()
					case "media_type":
						b.Source.MediaType = s.StrOrNull()
					case "data":
						b.Source.Data = s.StrOrNull()
					case "url":
						b.Source.URL = s.StrOrNull()
					default:
						return s.Skip()
					}
					return true
				})
			default:
				return s.Skip()
			}
			return true
		})
		b.Raw = s.B[start:s.I]
		v.blocks = append(v.blocks, b)
		return ok
	})
	return v, ok
}

// mapBlocks is ccBlocks into l.mapped: valid until the next line.
func (l *ccLoader) mapBlocks(blocks []ccBlock, n int) ([]corpus.Block, error) {
	mapped, err := ccBlocks(blocks, n, l.tally.Unknown, l.mapped[:0])
	if err == nil {
		l.mapped = mapped
	}
	return mapped, err
}

// ccBlocks maps the blocks of one message, appended to out. A tool_result
// becomes a tool_result block followed by the images and documents of its
// content, which carry the same ToolCallID (as smith keeps a tool-produced
// image).
func ccBlocks(in []ccBlock, line int, unknown jsonscan.UnknownKinds, out []corpus.Block) ([]corpus.Block, error) {
	for i := range in {
		b := &in[i]
		switch b.Type {
		case "text":
			out = append(out, corpus.Block{Kind: corpus.KindText, Text: b.Text})
		case "thinking":
			out = append(out, corpus.Block{Kind: corpus.KindThinking, Text: b.Thinking, Signature: b.Signature})
		case "redacted_thinking":
			out = append(out, corpus.Block{Kind: corpus.KindRedactedThinking, Text: b.Data})
		case "tool_use":
			out = append(out, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: b.ID, ToolName: b.Name, Args: []byte(b.Input)})
		case "tool_result":
			res, media, err := ccToolResult(b, line, unknown)
			if err != nil {
				return nil, err
			}
			out = append(out, res)
			out = append(out, media...)
		case "image", "document":
			out = append(out, ccMedia(b, ""))
		default:
			unknown.Add("content block "+b.Type, line)
			out = append(out, corpus.Block{Kind: corpus.KindUnknown, Text: b.Type, Payload: bytes.Clone(b.Raw)})
		}
	}
	return out, nil
}

// ccToolResult maps a tool_result whose content is a string or a list of
// blocks: text blocks are joined with newlines into Text, images and
// documents follow as their own blocks.
func ccToolResult(b *ccBlock, line int, unknown jsonscan.UnknownKinds) (corpus.Block, []corpus.Block, error) {
	res := corpus.Block{Kind: corpus.KindToolResult, ToolCallID: b.ToolUseID, IsError: b.IsError}
	text, parts, isString, err := b.content.get(b.Content)
	if err != nil {
		return res, nil, fmt.Errorf("tool_result %s: content is neither a string nor a list of blocks: %v", b.ToolUseID, err)
	}
	if isString {
		res.Text = text
		return res, nil, nil
	}
	var texts []string
	var media []corpus.Block
	for i := range parts {
		p := &parts[i]
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
		case "image", "document":
			media = append(media, ccMedia(p, b.ToolUseID))
		default:
			unknown.Add("tool_result block "+p.Type, line)
			media = append(media, corpus.Block{Kind: corpus.KindUnknown, Text: p.Type, ToolCallID: b.ToolUseID, Payload: bytes.Clone(p.Raw)})
		}
	}
	res.Text = strings.Join(texts, "\n")
	return res, media, nil
}

// ccMedia keeps an image or document's type and a content hash, not its
// bytes: media_ref is sha256 of the base64 string, as smith names media.
func ccMedia(b *ccBlock, toolID string) corpus.Block {
	kind := corpus.KindImage
	if b.Type == "document" {
		kind = corpus.KindDocument
	}
	m := corpus.Block{Kind: kind, ToolCallID: toolID}
	if b.Source != nil {
		m.MediaType = b.Source.MediaType
		m.Source = b.Source.Type
		switch {
		case b.Source.Data != "":
			m.MediaRef = corpus.MediaHash(b.Source.Data)
		case b.Source.URL != "":
			m.Source = b.Source.URL
		}
	}
	return m
}

// rawText reads the value at s and keeps its JSON text in dst.
func rawText(s *jsonscan.Scanner, dst *string) bool {
	raw, ok := s.Raw()
	*dst = string(raw)
	return ok
}
