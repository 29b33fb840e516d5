package codex

import (
	"errors"
	"fmt"

	"github.com/calib-dev/calib/corpus"
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
	// TypeJSON is the JSON text of a type that is not a string (nor
	// null), for a warning that says what it held: read as "", it was
	// "unknown line type " blaming a newer Codex.
	TypeJSON string
	Payload  []byte // raw; nil when absent
}

func decodeLine(b []byte, ln *rolloutLine) error {
	s := &jsonscan.Scanner{B: b}
	jsonscan.Loose(s, []jsonscan.Field{
		{Name: "timestamp", Dst: func() bool {
			ln.Timestamp = s.StrOrText() // another kind: tallied as malformed
			return s.Err == nil
		}},
		{Name: "type", Dst: func() bool {
			if c := s.Peek(); c != '"' && c != 'n' {
				raw, ok := s.Raw()
				ln.TypeJSON = string(raw)
				return ok
			}
			ln.Type = s.StrOrNull()
			return s.Err == nil
		}},
		{Name: "payload", Dst: jsonscan.View(s, &ln.Payload)},
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
	// odd are the fields of another kind than a string, read as absent,
	// for the file's tally (jsonscan.OddKinds).
	odd []jsonscan.OddValue
}

type part struct {
	Type     string
	Text     string
	ImageURL string
}

func decodePayload(b []byte, p *payload) error {
	s := &jsonscan.Scanner{B: b}
	jsonscan.Loose(s, []jsonscan.Field{
		{Name: "type", Dst: jsonscan.Noting(s, &p.Type, "payload.type", &p.odd)},
		{Name: "role", Dst: &p.Role},
		{Name: "id", Dst: jsonscan.Noting(s, &p.ID, "payload.id", &p.odd)},
		{Name: "cwd", Dst: jsonscan.Noting(s, &p.Cwd, "payload.cwd", &p.odd)},
		{Name: "cli_version", Dst: jsonscan.Noting(s, &p.Version, "payload.cli_version", &p.odd)},
		{Name: "model_provider", Dst: jsonscan.Noting(s, &p.Provider, "payload.model_provider", &p.odd)},
		{Name: "model", Dst: jsonscan.Noting(s, &p.Model, "payload.model", &p.odd)},
		{Name: "content", Dst: jsonscan.View(s, &p.Content)},
		{Name: "summary", Dst: func() bool {
			if s.Peek() != '[' {
				return s.Skip()
			}
			var ok bool
			p.Summary, ok = decodeParts(s)
			return ok
		}},
		{Name: "encrypted_content", Dst: &p.Encrypted},
		{Name: "name", Dst: &p.Name},
		{Name: "arguments", Dst: func() bool {
			p.HasArgs = s.Peek() == '"'
			p.Arguments = s.StrOrNull()
			return true
		}},
		{Name: "input", Dst: func() bool {
			p.HasInput = s.Peek() == '"'
			p.Input = s.StrOrNull()
			return true
		}},
		{Name: "action", Dst: jsonscan.View(s, &p.Action)},
		{Name: "call_id", Dst: &p.CallID},
		{Name: "output", Dst: jsonscan.View(s, &p.Output)},
		{Name: "message", Dst: &p.Message},
		{Name: "replacement_history", Dst: func() bool {
			p.HasReplacement = s.Peek() == '['
			var ok bool
			p.Replacement, ok = s.Raw()
			return ok
		}},
		{Name: "info", Dst: jsonscan.View(s, &p.Info)},
		{Name: "reason", Dst: &p.Reason},
		{Name: "model_context_window", Dst: &p.ContextWindow},
		{Name: "model_auto_compact_token_limit", Dst: &p.CompactLimit},
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
		ok := jsonscan.Loose(s, []jsonscan.Field{{Name: "type", Dst: &pt.Type}, {Name: "text", Dst: &pt.Text}, {Name: "image_url", Dst: &pt.ImageURL}})
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
		return tc, false, fmt.Errorf("info is not an object (%w)", s.Err)
	}
	// The rest of a line is read leniently (jsonscan.Loose), but a count
	// the cost model reads is not: "many" read as 0 tokens, in silence.
	var bad string
	jsonscan.Loose(s, []jsonscan.Field{
		{Name: "last_token_usage", Dst: func() bool {
			tc.HasLast = s.Peek() == '{'
			return decodeUsage(s, &tc.Last, "last_token_usage", &bad)
		}},
		{Name: "total_token_usage", Dst: func() bool {
			tc.HasTotal = s.Peek() == '{'
			return decodeUsage(s, &tc.Total, "total_token_usage", &bad)
		}},
		{Name: "model_context_window", Dst: &tc.ContextWindow},
	})
	s.End()
	switch {
	case s.Err != nil:
		return tc, false, fmt.Errorf("info is not an object (%w)", s.Err)
	case bad != "":
		return tc, false, errors.New(bad)
	}
	return tc, true, nil
}

// decodeUsage reads a usage object (null or absent is none); bad, when
// empty, gets what is wrong with the first value that is not a count.
func decodeUsage(s *jsonscan.Scanner, u *usage, where string, bad *string) bool {
	switch s.Peek() {
	case '{':
	case 'n':
		return s.Skip()
	default:
		start := s.I
		ok := s.Skip()
		if ok && *bad == "" {
			*bad = corpus.BadUsage(where, jsonscan.Excerpt(string(s.B[start:s.I])))
		}
		return ok
	}
	count := func(name string, dst *int) jsonscan.Field {
		return jsonscan.Field{Name: name, Dst: func() bool {
			start := s.I
			v, ok := s.Int()
			if !ok && s.Err == nil && *bad == "" {
				*bad = corpus.BadCount(where+"."+name, jsonscan.Excerpt(string(s.B[start:s.I])))
			}
			*dst = v
			return s.Err == nil
		}}
	}
	return jsonscan.Loose(s, []jsonscan.Field{
		count("input_tokens", &u.Input),
		count("cached_input_tokens", &u.Cached),
		count("output_tokens", &u.Output),
		count("reasoning_output_tokens", &u.Reasoning),
		count("total_tokens", &u.Total),
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
