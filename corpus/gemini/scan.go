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

var (
	messageFields  = []string{"timestamp", "type", "content", "toolCalls", "thoughts", "tokens", "model"}
	toolCallFields = []string{"id", "name", "args", "result", "status", "timestamp"}
	thoughtFields  = []string{"subject", "description"}
	tokenFields    = []string{"input", "output", "cached", "thoughts", "tool", "total"}
	partFields     = []string{"text", "thought", "thoughtSignature", "inlineData", "fileData", "functionCall", "functionResponse"}
	mediaFields    = []string{"mimeType", "data", "fileUri"}
	functionFields = []string{"id", "name", "args"}
	responseFields = []string{"id", "name", "response"}
	resultFields   = []string{"output", "error"}
)

// scanMessage decodes a message record into m as json.Unmarshal would;
// false means it declined, and encoding/json must decode it.
func scanMessage(b []byte, m *message) bool {
	if jsonscan.TooDeep(b) {
		return false
	}
	s := &jsonscan.Scanner{B: b}
	jsonscan.Members(s, messageFields, func(k int) bool {
		switch k {
		case 0:
			return s.StringField(&m.Timestamp)
		case 1:
			return s.StringPtr(&m.Type)
		case 2:
			// Sliced, not copied: content is read in finish, never kept.
			var ok bool
			m.Content, ok = s.Raw()
			return ok
		case 3:
			return jsonscan.List(s, &m.ToolCalls, func(tc *toolCall) bool { return scanToolCall(s, tc) })
		case 4:
			return jsonscan.List(s, &m.Thoughts, func(t *thought) bool {
				return jsonscan.Members(s, thoughtFields, func(k int) bool {
					if k == 0 {
						return s.StringField(&t.Subject)
					}
					return s.StringField(&t.Description)
				})
			})
		case 5:
			return jsonscan.Ptr(s, &m.Tokens, func(t *tokens) bool {
				fields := []**int64{&t.Input, &t.Output, &t.Cached, &t.Thoughts, &t.Tool, &t.Total}
				return jsonscan.Members(s, tokenFields, func(k int) bool { return s.Int64Ptr(fields[k]) })
			})
		default:
			return s.StringField(&m.Model)
		}
	})
	return s.End() && s.Err == nil
}

func scanToolCall(s *jsonscan.Scanner, tc *toolCall) bool {
	return jsonscan.Members(s, toolCallFields, func(k int) bool {
		switch k {
		case 0:
			return s.StringPtr(&tc.ID)
		case 1:
			return s.StringField(&tc.Name)
		case 2:
			return jsonscan.RawCopy(s, &tc.Args) // kept in the tool_use block
		case 3:
			var ok bool
			tc.Result, ok = s.Raw() // read in finish; copied where kept
			return ok
		case 4:
			return s.StringField(&tc.Status)
		default:
			return s.StringField(&tc.Timestamp)
		}
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
	return jsonscan.Members(s, partFields, func(k int) bool {
		switch k {
		case 0:
			return s.StringPtr(&p.Text)
		case 1:
			return s.BoolField(&p.Thought)
		case 2:
			return s.StringField(&p.ThoughtSignature)
		case 3:
			return scanMedia(s, &p.InlineData)
		case 4:
			return scanMedia(s, &p.FileData)
		case 5:
			return jsonscan.Ptr(s, &p.FunctionCall, func(f *functionCall) bool {
				return jsonscan.Members(s, functionFields, func(k int) bool {
					switch k {
					case 0:
						return s.StringField(&f.ID)
					case 1:
						return s.StringField(&f.Name)
					}
					return jsonscan.RawCopy(s, &f.Args) // kept in the tool_use block
				})
			})
		default:
			return jsonscan.Ptr(s, &p.FunctionResponse, func(f *functionResult) bool {
				return jsonscan.Members(s, responseFields, func(k int) bool {
					switch k {
					case 0:
						return s.StringField(&f.ID)
					case 1:
						return s.StringField(&f.Name)
					}
					// Sliced, not copied: resultBlock copies it if it keeps it.
					var ok bool
					f.Response, ok = s.Raw()
					return ok
				})
			})
		}
	})
}

func scanMedia(s *jsonscan.Scanner, dst **media) bool {
	return jsonscan.Ptr(s, dst, func(m *media) bool {
		return jsonscan.Members(s, mediaFields, func(k int) bool {
			switch k {
			case 0:
				return s.StringField(&m.MimeType)
			case 1:
				return s.StringField(&m.Data)
			}
			return s.StringField(&m.FileURI)
		})
	})
}

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
