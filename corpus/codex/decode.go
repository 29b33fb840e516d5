package codex

import (
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// The decoding of one rollout line, by jsonscan.Scanner: no encoding/json
// in the hot path. Strings are copied; raw spans (content, output, action,
// replacement_history) point into the line and are only valid until the
// next line, so whatever is kept is decoded or copied from them at once.

// rolloutLine is one {timestamp, type, payload} record.
type rolloutLine struct {
	Timestamp string
	Type      string
	Payload   []byte // raw; nil when absent
}

func decodeLine(b []byte, ln *rolloutLine) error {
	s := &jsonscan.Scanner{B: b}
	s.Object(func(key []byte) bool {
		switch string(key) {
		case "timestamp":
			ln.Timestamp = s.StrOrNull()
		case "type":
			ln.Type = s.StrOrNull()
		case "payload":
			var ok bool
			ln.Payload, ok = s.Raw()
			return ok
		default:
			return s.Skip()
		}
		return true
	})
	s.End()
	return s.Err
}

// payload is the union of the fields calib reads from a session_meta,
// turn_context, response_item, compacted or event_msg payload (they never
// clash: each name means the same wherever it occurs).
type payload struct {
	Type      string
	Role      string
	ID        string
	Cwd       string
	Version   string // cli_version
	Provider  string // model_provider
	Model     string
	Content   []byte // raw: a list of parts, or null
	Summary   []part
	Encrypted string
	Name      string
	Arguments string
	HasArgs   bool
	Input     string
	HasInput  bool
	Action    []byte // raw
	CallID    string
	Output    []byte // raw: a string, {content, success}, or a list of parts
	// compacted
	Message        string
	Replacement    []byte // raw replacement_history
	HasReplacement bool   // present and not null
	// event_msg
	Info   []byte // raw token_count info
	Reason string // turn_aborted
	// model_auto_compact_token_limit / model_context_window when a
	// turn_context records them.
	ContextWindow int
	CompactLimit  int
}

type part struct {
	Type     string
	Text     string
	ImageURL string
}

func decodePayload(b []byte, p *payload) error {
	s := &jsonscan.Scanner{B: b}
	s.Object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "type":
			p.Type = s.StrOrNull()
		case "role":
			p.Role = s.StrOrNull()
		case "id":
			p.ID = s.StrOrNull()
		case "cwd":
			p.Cwd = s.StrOrNull()
		case "cli_version":
			p.Version = s.StrOrNull()
		case "model_provider":
			p.Provider = s.StrOrNull()
		case "model":
			p.Model = s.StrOrNull()
		case "content":
			p.Content, ok = s.Raw()
			return ok
		case "summary":
			if s.Peek() != '[' {
				return s.Skip()
			}
			p.Summary, ok = decodeParts(s)
			return ok
		case "encrypted_content":
			p.Encrypted = s.StrOrNull()
		case "name":
			p.Name = s.StrOrNull()
		case "arguments":
			p.HasArgs = s.Peek() == '"'
			p.Arguments = s.StrOrNull()
		case "input":
			p.HasInput = s.Peek() == '"'
			p.Input = s.StrOrNull()
		case "action":
			p.Action, ok = s.Raw()
			return ok
		case "call_id":
			p.CallID = s.StrOrNull()
		case "output":
			p.Output, ok = s.Raw()
			return ok
		case "message":
			p.Message = s.StrOrNull()
		case "replacement_history":
			p.HasReplacement = s.Peek() == '['
			p.Replacement, ok = s.Raw()
			return ok
		case "info":
			p.Info, ok = s.Raw()
			return ok
		case "reason":
			p.Reason = s.StrOrNull()
		case "model_context_window":
			p.ContextWindow, _ = s.Int()
		case "model_auto_compact_token_limit":
			p.CompactLimit, _ = s.Int()
		default:
			return s.Skip()
		}
		return true
	})
	s.End()
	return s.Err
}

// decodeParts reads a list of content parts ({type, text, image_url}).
func decodeParts(s *jsonscan.Scanner) ([]part, bool) {
	var parts []part
	ok := s.Array(func() bool {
		var pt part
		if s.Peek() != '{' {
			return s.Skip()
		}
		ok := s.Object(func(key []byte) bool {
			switch string(key) {
			case "type":
				pt.Type = s.StrOrNull()
			case "text":
				pt.Text = s.StrOrNull()
			case "image_url":
				pt.ImageURL = s.StrOrNull()
			default:
				return s.Skip()
			}
			return true
		})
		parts = append(parts, pt)
		return ok
	})
	return parts, ok
}

// parts decodes a raw list of parts; null or absent is no parts.
func parts(raw []byte) ([]part, error) {
	s := &jsonscan.Scanner{B: raw}
	switch s.Peek() {
	case 0, 'n':
		return nil, nil
	}
	ps, _ := decodeParts(s)
	s.End()
	return ps, s.Err
}

// tokenCount is a token_count event's info.
type tokenCount struct {
	Last, Total       usage
	HasLast, HasTotal bool
	ContextWindow     int
}

type usage struct {
	Input, Cached, Output, Reasoning, Total int
}

func decodeInfo(raw []byte) (tokenCount, bool, error) {
	var tc tokenCount
	s := &jsonscan.Scanner{B: raw}
	switch s.Peek() {
	case 'n', 0:
		s.Skip()
		return tc, false, nil // info: null on early events
	case '{':
	default:
		s.Fail("expected an object or null")
		return tc, false, s.Err
	}
	s.Object(func(key []byte) bool {
		switch string(key) {
		case "last_token_usage":
			tc.HasLast = s.Peek() == '{'
			return decodeUsage(s, &tc.Last)
		case "total_token_usage":
			tc.HasTotal = s.Peek() == '{'
			return decodeUsage(s, &tc.Total)
		case "model_context_window":
			tc.ContextWindow, _ = s.Int()
		default:
			return s.Skip()
		}
		return true
	})
	s.End()
	return tc, s.Err == nil, s.Err
}

func decodeUsage(s *jsonscan.Scanner, u *usage) bool {
	if s.Peek() != '{' {
		return s.Skip()
	}
	return s.Object(func(key []byte) bool {
		var dst *int
		switch string(key) {
		case "input_tokens":
			dst = &u.Input
		case "cached_input_tokens":
			dst = &u.Cached
		case "output_tokens":
			dst = &u.Output
		case "reasoning_output_tokens":
			dst = &u.Reasoning
		case "total_tokens":
			dst = &u.Total
		default:
			return s.Skip()
		}
		*dst, _ = s.Int()
		return s.Err == nil
	})
}

// outputValue is a call output: a string, an object {content, success}, or
// a list of content parts.
type outputValue struct {
	Text    string
	Parts   []part
	IsList  bool
	Failed  bool
	Payload []byte // another JSON value, kept raw
}

// decodeOutput decodes a call output. raw is a value Scanner.Raw returned, so it is already validated: a
// string output (most of a rollout's bytes) is decoded straight from it
// rather than scanned a second time by Scanner.Str.
func decodeOutput(raw []byte) (outputValue, error) {
	var o outputValue
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		text, ok := jsonscan.Unescape(raw[1 : n-1])
		if ok {
			o.Text = text
			return o, nil
		}
	}
	s := &jsonscan.Scanner{B: raw}
	switch s.Peek() {
	case 0:
		return o, nil
	case '"':
		o.Text, _ = s.Str()
	case '[':
		o.IsList = true
		o.Parts, _ = decodeParts(s)
	case '{':
		s.Object(func(key []byte) bool {
			switch string(key) {
			case "content":
				inner, ok := s.Raw()
				if !ok {
					return false
				}
				in, err := decodeOutput(inner)
				if err != nil {
					return s.Fail("output content: %v", err)
				}
				o.Text, o.Parts, o.IsList, o.Payload = in.Text, in.Parts, in.IsList, in.Payload
			case "success":
				s.Peek()
				if s.I < len(s.B) && s.B[s.I] == 'f' {
					o.Failed = true
				}
				return s.Skip()
			default:
				return s.Skip()
			}
			return true
		})
	default:
		v, ok := s.Raw()
		if ok {
			o.Payload = append([]byte(nil), v...)
		}
	}
	s.End()
	return o, s.Err
}
