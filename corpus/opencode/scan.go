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
	return jsonscan.Fields(s, []jsonscan.Field{
		{Name: "id", Dst: &in.ID},
		{Name: "sessionID", Dst: &in.SessionID},
		{Name: "role", Dst: &in.Role},
		{Name: "time", Dst: func() bool {
			return jsonscan.Struct(s, func() bool {
				return jsonscan.Fields(s, []jsonscan.Field{{Name: "created", Dst: &in.Time.Created}, {Name: "completed", Dst: &in.Time.Completed}})
			})
		}},
		{Name: "error", Dst: &in.Error},
		{Name: "parentID", Dst: &in.ParentID},
		{Name: "modelID", Dst: &in.ModelID},
		{Name: "providerID", Dst: &in.ProviderID},
		{Name: "mode", Dst: &in.Mode},
		{Name: "agent", Dst: &in.Agent},
		{Name: "summary", Dst: &in.Summary},
		{Name: "cost", Dst: &in.Cost},
		{Name: "tokens", Dst: func() bool { return scanTokens(s, &in.Tokens) }},
		{Name: "finish", Dst: &in.Finish},
		{Name: "model", Dst: func() bool {
			return jsonscan.Ptr(s, &in.Model, func(m *modelRef) bool {
				return jsonscan.Fields(s, []jsonscan.Field{{Name: "providerID", Dst: &m.ProviderID}, {Name: "modelID", Dst: &m.ModelID}})
			})
		}},
	})
}

func scanTokens(s *jsonscan.Scanner, dst **tokens) bool {
	return jsonscan.Ptr(s, dst, func(t *tokens) bool {
		return jsonscan.Fields(s, []jsonscan.Field{
			{Name: "input", Dst: &t.Input},
			{Name: "output", Dst: &t.Output},
			{Name: "reasoning", Dst: &t.Reasoning},
			{Name: "cache", Dst: func() bool {
				return jsonscan.Ptr(s, &t.Cache, func(c *cacheTokens) bool {
					return jsonscan.Fields(s, []jsonscan.Field{{Name: "read", Dst: &c.Read}, {Name: "write", Dst: &c.Write}})
				})
			}},
		})
	})
}

// scanPart decodes a part's data.
func scanPart(s *jsonscan.Scanner, p *part) bool {
	return jsonscan.Fields(s, []jsonscan.Field{
		{Name: "id", Dst: &p.ID},
		{Name: "messageID", Dst: &p.MessageID},
		{Name: "type", Dst: &p.Type},
		{Name: "text", Dst: &p.Text},
		{Name: "synthetic", Dst: &p.Synthetic},
		{Name: "ignored", Dst: &p.Ignored},
		{Name: "mime", Dst: &p.Mime},
		{Name: "filename", Dst: &p.Filename},
		{Name: "url", Dst: &p.URL},
		{Name: "callID", Dst: &p.CallID},
		{Name: "tool", Dst: &p.Tool},
		{Name: "state", Dst: func() bool {
			return jsonscan.Ptr(s, &p.State, func(st *toolState) bool { return scanState(s, st) })
		}},
		{Name: "auto", Dst: &p.Auto},
		{Name: "overflow", Dst: &p.Overflow},
		{Name: "tail_start_id", Dst: &p.TailStartID},
		{Name: "cost", Dst: &p.Cost},
		{Name: "tokens", Dst: func() bool { return scanTokens(s, &p.Tokens) }},
	})
}

func scanState(s *jsonscan.Scanner, st *toolState) bool {
	return jsonscan.Fields(s, []jsonscan.Field{
		{Name: "status", Dst: &st.Status},
		{Name: "input", Dst: &st.Input}, // a copy: kept in the tool_use block
		{Name: "output", Dst: &st.Output},
		{Name: "error", Dst: &st.Error},
		{Name: "metadata", Dst: func() bool {
			return jsonscan.Struct(s, func() bool {
				return jsonscan.Fields(s, []jsonscan.Field{{Name: "interrupted", Dst: &st.Metadata.Interrupted}, {Name: "output", Dst: &st.Metadata.Output}})
			})
		}},
		{Name: "time", Dst: func() bool {
			return jsonscan.Struct(s, func() bool {
				t := &st.Time
				return jsonscan.Fields(s, []jsonscan.Field{{Name: "start", Dst: &t.Start}, {Name: "end", Dst: &t.End}, {Name: "compacted", Dst: &t.Compacted}})
			})
		}},
		{Name: "attachments", Dst: func() bool {
			return jsonscan.List(s, &st.Attachments, func(a *attachment) bool {
				return jsonscan.Fields(s, []jsonscan.Field{{Name: "mime", Dst: &a.Mime}, {Name: "url", Dst: &a.URL}})
			})
		}},
	})
}
