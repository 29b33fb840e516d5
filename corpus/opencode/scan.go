package opencode

import (
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// The hot path of a database or storage folder: decoding each message's
// and part's JSON data, decoded with jsonscan.Scanner (most of the bytes
// are tool outputs and file contents in parts' state). encoding/json read
// each byte twice or more (Unmarshal's validation, then its decode). Each
// decoder here gives what json.Unmarshal gives or declines (see
// jsonscan/fields.go: a value of another type, a key in another case or
// given twice, invalid UTF-8, nesting past encoding/json's limit), and
// decode then unmarshals with encoding/json as before, so its warnings are
// unchanged; scan_fuzz_test.go checks the decoders against encoding/json.

var (
	infoFields       = []string{"id", "sessionID", "role", "time", "error", "parentID", "modelID", "providerID", "mode", "agent", "summary", "cost", "tokens", "finish", "model"}
	infoTimeFields   = []string{"created", "completed"}
	modelFields      = []string{"providerID", "modelID"}
	tokenFields      = []string{"input", "output", "reasoning", "cache"}
	cacheFields      = []string{"read", "write"}
	partFields       = []string{"id", "messageID", "type", "text", "synthetic", "ignored", "mime", "filename", "url", "callID", "tool", "state", "auto", "overflow", "tail_start_id", "cost", "tokens"}
	stateFields      = []string{"status", "input", "output", "error", "metadata", "time", "attachments"}
	metadataFields   = []string{"interrupted", "output"}
	stateTimeFields  = []string{"start", "end", "compacted"}
	attachmentFields = []string{"mime", "url"}
)

// scan decodes data with fill as json.Unmarshal would; false means it
// declined, and encoding/json must decode it.
func scan(data []byte, fill func(s *jsonscan.Scanner) bool) bool {
	if jsonscan.TooDeep(data) {
		return false
	}
	s := &jsonscan.Scanner{B: data}
	fill(s)
	return s.End() && s.Err == nil
}

// scanInfo decodes a message's data.
func scanInfo(s *jsonscan.Scanner, in *info) bool {
	return jsonscan.Members(s, infoFields, func(k int) bool {
		switch k {
		case 0:
			return s.StringField(&in.ID)
		case 1:
			return s.StringField(&in.SessionID)
		case 2:
			return s.StringField(&in.Role)
		case 3:
			return jsonscan.Struct(s, func() bool {
				return jsonscan.Members(s, infoTimeFields, func(k int) bool {
					if k == 0 {
						return s.Float64Field(&in.Time.Created)
					}
					return s.Float64Field(&in.Time.Completed)
				})
			})
		case 4:
			return jsonscan.RawCopy(s, &in.Error)
		case 5:
			return s.StringField(&in.ParentID)
		case 6:
			return s.StringField(&in.ModelID)
		case 7:
			return s.StringField(&in.ProviderID)
		case 8:
			return s.StringField(&in.Mode)
		case 9:
			return s.StringField(&in.Agent)
		case 10:
			return jsonscan.RawCopy(s, &in.Summary)
		case 11:
			return s.Float64Field(&in.Cost)
		case 12:
			return scanTokens(s, &in.Tokens)
		case 13:
			return s.StringField(&in.Finish)
		default:
			return jsonscan.Ptr(s, &in.Model, func(m *modelRef) bool {
				return jsonscan.Members(s, modelFields, func(k int) bool {
					if k == 0 {
						return s.StringField(&m.ProviderID)
					}
					return s.StringField(&m.ModelID)
				})
			})
		}
	})
}

func scanTokens(s *jsonscan.Scanner, dst **tokens) bool {
	return jsonscan.Ptr(s, dst, func(t *tokens) bool {
		return jsonscan.Members(s, tokenFields, func(k int) bool {
			switch k {
			case 0:
				return s.Int64Ptr(&t.Input)
			case 1:
				return s.Int64Ptr(&t.Output)
			case 2:
				return s.Int64Ptr(&t.Reasoning)
			}
			return jsonscan.Ptr(s, &t.Cache, func(c *cacheTokens) bool {
				return jsonscan.Members(s, cacheFields, func(k int) bool {
					if k == 0 {
						return s.Int64Ptr(&c.Read)
					}
					return s.Int64Ptr(&c.Write)
				})
			})
		})
	})
}

// scanPart decodes a part's data.
func scanPart(s *jsonscan.Scanner, p *part) bool {
	return jsonscan.Members(s, partFields, func(k int) bool {
		switch k {
		case 0:
			return s.StringField(&p.ID)
		case 1:
			return s.StringField(&p.MessageID)
		case 2:
			return s.StringField(&p.Type)
		case 3:
			return s.StringField(&p.Text)
		case 4:
			return s.BoolField(&p.Synthetic)
		case 5:
			return s.BoolField(&p.Ignored)
		case 6:
			return s.StringField(&p.Mime)
		case 7:
			return s.StringField(&p.Filename)
		case 8:
			return s.StringField(&p.URL)
		case 9:
			return s.StringField(&p.CallID)
		case 10:
			return s.StringField(&p.Tool)
		case 11:
			return jsonscan.Ptr(s, &p.State, func(st *toolState) bool { return scanState(s, st) })
		case 12:
			return s.BoolField(&p.Auto)
		case 13:
			return s.BoolField(&p.Overflow)
		case 14:
			return s.StringField(&p.TailStartID)
		case 15:
			return s.Float64Field(&p.Cost)
		default:
			return scanTokens(s, &p.Tokens)
		}
	})
}

func scanState(s *jsonscan.Scanner, st *toolState) bool {
	return jsonscan.Members(s, stateFields, func(k int) bool {
		switch k {
		case 0:
			return s.StringField(&st.Status)
		case 1:
			return jsonscan.RawCopy(s, &st.Input) // kept in the tool_use block
		case 2:
			return s.StringPtr(&st.Output)
		case 3:
			return s.StringField(&st.Error)
		case 4:
			return jsonscan.Struct(s, func() bool {
				return jsonscan.Members(s, metadataFields, func(k int) bool {
					if k == 0 {
						return s.BoolField(&st.Metadata.Interrupted)
					}
					return s.StringPtr(&st.Metadata.Output)
				})
			})
		case 5:
			return jsonscan.Struct(s, func() bool {
				t := &st.Time
				fields := []*float64{&t.Start, &t.End, &t.Compacted}
				return jsonscan.Members(s, stateTimeFields, func(k int) bool { return s.Float64Field(fields[k]) })
			})
		default:
			return jsonscan.List(s, &st.Attachments, func(a *attachment) bool {
				return jsonscan.Members(s, attachmentFields, func(k int) bool {
					if k == 0 {
						return s.StringField(&a.Mime)
					}
					return s.StringField(&a.URL)
				})
			})
		}
	})
}
