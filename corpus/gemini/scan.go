package gemini

import (
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// The hot path of a chat file, decoded with jsonscan.Scanner: validating
// every line (jsonscan.Valid), and decoding each message's last record,
// its content parts and its tool results (most of a chat's bytes are file
// contents inside functionResponse outputs). encoding/json read each byte
// four to six times (Valid, then Unmarshal's own check and decode, again
// for every RawMessage). Each decoder here gives what json.Unmarshal gives
// or declines (see jsonscan/fields.go: a value of another type, a key in
// another case or given twice, invalid UTF-8, nesting past encoding/json's
// limit), and the reader then decodes with encoding/json as before, so
// every input reads as it did; scan_fuzz_test.go checks it against
// encoding/json.

// scanMessage decodes a message record into m as json.Unmarshal would;
// false means it declined, and encoding/json must decode it.
func scanMessage(b []byte, m *message) bool {
	if jsonscan.TooDeep(b) {
		return false
	}
	s := &jsonscan.Scanner{B: b}
	jsonscan.Fields(s, []jsonscan.Field{
		{Name: "timestamp", Dst: jsonscan.View(s, &m.Timestamp)},
		{Name: "type", Dst: &m.Type},
		// Sliced, not copied: content is read in finish, never kept.
		{Name: "content", Dst: jsonscan.View(s, &m.Content)},
		{Name: "toolCalls", Dst: func() bool {
			return jsonscan.List(s, &m.ToolCalls, func(tc *toolCall) bool { return scanToolCall(s, tc) })
		}},
		{Name: "thoughts", Dst: func() bool {
			return jsonscan.List(s, &m.Thoughts, func(t *thought) bool {
				return jsonscan.Fields(s, []jsonscan.Field{{Name: "subject", Dst: &t.Subject}, {Name: "description", Dst: &t.Description}})
			})
		}},
		{Name: "tokens", Dst: jsonscan.View(s, &m.Tokens)}, // read in finish (readTokens)
		{Name: "model", Dst: &m.Model},
	})
	return s.End() && s.Err == nil
}

func scanToolCall(s *jsonscan.Scanner, tc *toolCall) bool {
	return jsonscan.Fields(s, []jsonscan.Field{
		{Name: "id", Dst: &tc.ID},
		{Name: "name", Dst: &tc.Name},
		{Name: "args", Dst: &tc.Args},                       // a copy: kept in the tool_use block
		{Name: "result", Dst: jsonscan.View(s, &tc.Result)}, // read in finish; copied where kept
		{Name: "status", Dst: &tc.Status},
		{Name: "timestamp", Dst: &tc.Timestamp},
	})
}

// scanParts decodes a PartListUnion (raw is neither empty nor null) as
// parts does with encoding/json: a string, one Part, or a list of strings,
// Parts and nulls.
func scanParts(raw []byte) ([]part, bool) {
	if jsonscan.TooDeep(raw) {
		return nil, false
	}
	s := &jsonscan.Scanner{B: raw}
	var out []part
	switch s.Peek() {
	case '"':
		out = make([]part, 1)
		s.StringPtr(&out[0].Text)
	case '{':
		out = make([]part, 1)
		scanPart(s, &out[0])
	case '[':
		out = []part{}
		s.Array(func() bool {
			out = append(out, part{})
			p := &out[len(out)-1]
			switch s.Peek() {
			case '"':
				return s.StringPtr(&p.Text)
			case 'n':
				return s.Skip()
			}
			return scanPart(s, p)
		})
	default:
		return nil, false
	}
	return out, s.End() && s.Err == nil
}

func scanPart(s *jsonscan.Scanner, p *part) bool {
	return jsonscan.Fields(s, []jsonscan.Field{
		{Name: "text", Dst: &p.Text},
		{Name: "thought", Dst: &p.Thought},
		{Name: "thoughtSignature", Dst: &p.ThoughtSignature},
		{Name: "inlineData", Dst: func() bool { return scanMedia(s, &p.InlineData) }},
		{Name: "fileData", Dst: func() bool { return scanMedia(s, &p.FileData) }},
		{Name: "functionCall", Dst: func() bool {
			return jsonscan.Ptr(s, &p.FunctionCall, func(f *functionCall) bool {
				return jsonscan.Fields(s, []jsonscan.Field{
					{Name: "id", Dst: &f.ID}, {Name: "name", Dst: &f.Name},
					{Name: "args", Dst: &f.Args}, // a copy: kept in the tool_use block
				})
			})
		}},
		{Name: "functionResponse", Dst: func() bool {
			return jsonscan.Ptr(s, &p.FunctionResponse, func(f *functionResult) bool {
				return jsonscan.Fields(s, []jsonscan.Field{
					{Name: "id", Dst: &f.ID}, {Name: "name", Dst: &f.Name},
					// Sliced, not copied: resultBlock copies it if it keeps it.
					{Name: "response", Dst: jsonscan.View(s, &f.Response)},
				})
			})
		}},
	})
}

func scanMedia(s *jsonscan.Scanner, dst **media) bool {
	return jsonscan.Ptr(s, dst, func(m *media) bool {
		return jsonscan.Fields(s, []jsonscan.Field{{Name: "mimeType", Dst: &m.MimeType}, {Name: "data", Dst: &m.Data}, {Name: "fileUri", Dst: &m.FileURI}})
	})
}

// resultFields are a functionResponse's response fields, {output, error}.
var resultFields = []string{"output", "error"}

// scanResult decodes a functionResponse's response into its output and
// error strings as json.Unmarshal into {Output, Error *string} would: ok
// false where that fails (the response is then kept raw); sure false where
// the scanner declines and encoding/json must decide.
func scanResult(response []byte) (output, errText *string, ok, sure bool) {
	if jsonscan.TooDeep(response) {
		return nil, nil, false, false
	}
	s := &jsonscan.Scanner{B: response}
	switch s.Peek() {
	case 'n':
		return nil, nil, s.Skip() && s.End(), s.Err == nil
	case '{':
	default:
		// Any other value is a type error in encoding/json, if it is JSON.
		return nil, nil, false, s.Skip() && s.End()
	}
	mismatch := false
	jsonscan.Members(s, resultFields, func(k int) bool {
		dst := &output
		if k == 1 {
			dst = &errText
		}
		switch s.Peek() {
		case '"', 'n':
			return s.StringPtr(dst)
		}
		mismatch = true // encoding/json's type error; it decodes on
		return s.Skip()
	})
	if !s.End() || s.Err != nil {
		return nil, nil, false, false
	}
	return output, errText, !mismatch, true
}

// scanTokens decodes a TokensSummary (raw is neither empty nor null) as
// json.Unmarshal would; false means it declined.
func scanTokens(raw []byte, t *tokens) bool {
	if jsonscan.TooDeep(raw) {
		return false
	}
	s := &jsonscan.Scanner{B: raw}
	jsonscan.Fields(s, []jsonscan.Field{
		{Name: "input", Dst: &t.Input}, {Name: "output", Dst: &t.Output}, {Name: "cached", Dst: &t.Cached},
		{Name: "thoughts", Dst: &t.Thoughts}, {Name: "tool", Dst: &t.Tool}, {Name: "total", Dst: &t.Total},
	})
	return s.End() && s.Err == nil
}
