package gemini

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// part is a @google/genai Part as the recorder writes it.
type part struct {
	Text             *string         `json:"text"`
	Thought          bool            `json:"thought"`
	ThoughtSignature string          `json:"thoughtSignature"`
	InlineData       *media          `json:"inlineData"`
	FileData         *media          `json:"fileData"`
	FunctionCall     *functionCall   `json:"functionCall"`
	FunctionResponse *functionResult `json:"functionResponse"`
}

type media struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
	FileURI  string `json:"fileUri"`
}

type functionCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResult struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// parts decodes a PartListUnion: a string, one Part, or a list of strings
// and Parts, by the scanner (scan.go) or, where it leaves the value to
// encoding/json, by partsJSON. The raw elements, needed only for an unknown
// part, come from element.
func parts(raw json.RawMessage) ([]part, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if ps, ok := scanParts(raw); ok {
		return ps, nil
	}
	return partsJSON(raw)
}

// partsJSON is parts by encoding/json, for a trimmed raw that is neither
// empty nor null. A list of Parts (what the recorder writes) is decoded in
// one pass.
func partsJSON(raw json.RawMessage) ([]part, error) {
	if raw[0] == '[' {
		var out []part
		if json.Unmarshal(raw, &out) == nil {
			return out, nil
		}
	}
	elems, err := elements(raw)
	if err != nil {
		return nil, err
	}
	out := make([]part, len(elems))
	for i, e := range elems {
		if len(e) > 0 && e[0] == '"' {
			var s string
			if err := json.Unmarshal(e, &s); err != nil {
				return nil, err
			}
			out[i].Text = &s
			continue
		}
		if err := json.Unmarshal(e, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// elements splits a PartListUnion into its raw elements.
func elements(raw json.RawMessage) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return []json.RawMessage{raw}, nil
	}
	var elems []json.RawMessage
	err := json.Unmarshal(raw, &elems)
	return elems, err
}

// element is the i-th raw element of a PartListUnion that parts decoded.
func element(raw json.RawMessage, i int) json.RawMessage {
	elems, _ := elements(raw)
	if i < len(elems) {
		return elems[i]
	}
	return nil
}

// blocks turns content parts into blocks. Text parts become text (thinking
// when marked thought), media become image or document blocks, function
// calls and responses recorded in the content become tool_use and
// tool_result blocks; anything else is an unknown block.
func (l *loader) blocks(raw json.RawMessage, n int) []corpus.Block {
	ps, err := parts(raw)
	if err != nil {
		l.warn(n, "content is not a string, a part or a list of parts (%v); content skipped", err)
		return nil
	}
	var out []corpus.Block
	for i, p := range ps {
		switch {
		case p.FunctionCall != nil:
			out = append(out, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: p.FunctionCall.ID, ToolName: p.FunctionCall.Name, Args: jsonscan.Unindent(p.FunctionCall.Args)})
		case p.FunctionResponse != nil:
			out = append(out, resultBlock(p.FunctionResponse.ID, p.FunctionResponse.Response))
		case p.InlineData != nil:
			out = append(out, mediaBlock(p.InlineData.MimeType, "base64", corpus.MediaHash(p.InlineData.Data)))
		case p.FileData != nil:
			out = append(out, mediaBlock(p.FileData.MimeType, p.FileData.FileURI, ""))
		case p.Text != nil && p.Thought:
			out = append(out, corpus.Block{Kind: corpus.KindThinking, Text: *p.Text, Signature: p.ThoughtSignature})
		case p.Text != nil:
			if *p.Text == "" && len(ps) == 1 {
				continue // the empty content of a message that only calls tools
			}
			out = append(out, corpus.Block{Kind: corpus.KindText, Text: *p.Text})
		default:
			e := element(raw, i)
			l.tally.Unknown.Add("content part "+keys(e), n)
			out = append(out, corpus.Block{Kind: corpus.KindUnknown, Payload: e})
		}
	}
	return out
}

func mediaBlock(mime, source, ref string) corpus.Block {
	k := corpus.KindDocument
	if strings.HasPrefix(mime, "image/") {
		k = corpus.KindImage
	}
	return corpus.Block{Kind: k, MediaType: mime, Source: source, MediaRef: ref}
}

// keys names an object's keys, sorted, for an unknown-part warning.
func keys(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return describe(raw)
	}
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return "{" + strings.Join(ks, ",") + "}"
}

// resultBlock is one function response as a tool_result: its response's
// output (or error) string as the text, anything else as the raw payload.
func resultBlock(id string, response json.RawMessage) corpus.Block {
	b := corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id}
	output, errText, ok, sure := scanResult(response)
	if !sure {
		var r struct {
			Output *string `json:"output"`
			Error  *string `json:"error"`
		}
		ok = json.Unmarshal(response, &r) == nil
		output, errText = r.Output, r.Error
	}
	if ok && (output != nil || errText != nil) {
		switch {
		case errText != nil && output == nil:
			b.Text, b.IsError = *errText, true
		case errText != nil:
			b.Text, b.IsError = *output, true
		default:
			b.Text = *output
		}
		return b
	}
	b.Payload = bytes.Clone(response) // response may point into the record
	return b
}

// terminal are the statuses of a tool call that has finished; its result
// was sent to the model.
var terminal = map[string]bool{"success": true, "error": true, "cancelled": true}

// toolResults turns the results recorded in a message's tool calls into
// tool_result blocks, in call order. A call's result is a list of parts,
// normally one functionResponse (plus inline media the tool returned).
func (l *loader) toolResults(e *entry) []corpus.Block {
	var out []corpus.Block
	for _, tc := range e.m.ToolCalls {
		if !tc.paired() {
			continue // warned about with its tool_use
		}
		id := *tc.ID
		res := bytes.TrimSpace(tc.Result)
		if len(res) == 0 || bytes.Equal(res, []byte("null")) {
			if terminal[tc.Status] {
				// A finished call with no recorded result: its outcome is the
				// status alone.
				out = append(out, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id, IsError: tc.Status != "success"})
				continue
			}
			l.warn(e.line, "tool call %s (%s) has no result (status %q): the session ended or was cut before it finished", id, tc.Name, tc.Status)
			continue
		}
		ps, err := parts(res)
		if err != nil {
			l.warn(e.line, "tool call %s (%s): result is not a list of parts (%v); kept as raw payload", id, tc.Name, err)
			out = append(out, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id, Payload: bytes.Clone(res), IsError: tc.Status == "error"})
			continue
		}
		var res0 *corpus.Block
		var texts []string
		var extra []corpus.Block
		for i, p := range ps {
			switch {
			case p.FunctionResponse != nil:
				b := resultBlock(id, p.FunctionResponse.Response)
				if p.FunctionResponse.ID != "" && p.FunctionResponse.ID != id {
					l.warn(e.line, "tool call %s: its functionResponse names call %s; paired by the tool call's own id", id, p.FunctionResponse.ID)
				}
				if res0 == nil {
					res0 = &b
					continue
				}
				extra = append(extra, b)
			case p.InlineData != nil:
				b := mediaBlock(p.InlineData.MimeType, "base64", corpus.MediaHash(p.InlineData.Data))
				b.ToolCallID = id
				extra = append(extra, b)
			case p.FileData != nil:
				b := mediaBlock(p.FileData.MimeType, p.FileData.FileURI, "")
				b.ToolCallID = id
				extra = append(extra, b)
			case p.Text != nil:
				texts = append(texts, *p.Text)
			default:
				l.tally.Unknown.Add("tool result part "+keys(element(res, i)), e.line)
			}
		}
		if res0 == nil {
			res0 = &corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id}
		}
		if len(texts) > 0 {
			if res0.Text != "" {
				texts = append([]string{res0.Text}, texts...)
			}
			res0.Text = strings.Join(texts, "\n")
		}
		if tc.Status == "error" || tc.Status == "cancelled" {
			res0.IsError = true
		}
		out = append(append(out, *res0), extra...)
	}
	return out
}

// toolUses turns a message's tool calls into tool_use blocks, the
// arguments kept as the exact recorded bytes.
func (l *loader) toolUses(e *entry, seen map[string]int) []corpus.Block {
	var out []corpus.Block
	for k, tc := range e.m.ToolCalls {
		if !tc.paired() {
			l.warn(e.line, "tool call %d (%s) has no id, so its result cannot be paired; call and result skipped", k+1, tc.Name)
			continue
		}
		if prev, ok := seen[*tc.ID]; ok {
			l.warn(e.line, "tool call id %s already used at line %d", *tc.ID, prev)
		}
		seen[*tc.ID] = e.line
		if tc.Name == "" {
			l.warn(e.line, "tool call %s has no name", *tc.ID)
		}
		if a := bytes.TrimLeft(tc.Args, " \t\r\n"); len(a) > 0 && a[0] != '{' && a[0] != 'n' {
			l.tally.Odd.Note([]jsonscan.OddValue{{Name: "toolCalls args", JSON: string(a), Want: "an object",
				Effect: "kept as recorded, but no path, command or URL is read from it"}}, e.line)
		}
		out = append(out, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: *tc.ID, ToolName: tc.Name, Args: jsonscan.Unindent(tc.Args)})
	}
	return out
}

// thinking renders the recorded thought summaries. Gemini CLI keeps only
// the subject and description it parsed from each thought, not the thought
// text; they become one thinking block each.
func thinking(ts []thought) []corpus.Block {
	out := make([]corpus.Block, 0, len(ts))
	for _, t := range ts {
		text := t.Subject
		if t.Description != "" {
			text = strings.TrimPrefix(text+"\n"+t.Description, "\n")
		}
		out = append(out, corpus.Block{Kind: corpus.KindThinking, Text: text})
	}
	return out
}
