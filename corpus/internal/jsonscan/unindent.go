package jsonscan

import (
	"bytes"
	"encoding/json"
)

// Unindent is a tool call's arguments as the model was sent them. Some
// agents save their history indented (Gemini CLI's legacy chat file and
// opencode's storage files are JSON.stringify(value, null, 2)), so the
// arguments carry the file's indentation, a newline and a dozen spaces per
// key, which the request, serialised without indentation, never held; the
// same agents' other stores (Gemini's JSONL, opencode's database) keep
// them compact. Measured as saved, the indentation made a two-key call
// about 10 chars4 tokens larger. Compact JSON holds no newline (a string
// cannot), so only indented arguments are rewritten; text that is not
// valid JSON is returned as it is.
func Unindent(raw json.RawMessage) json.RawMessage {
	if bytes.IndexByte(raw, '\n') < 0 {
		return raw
	}
	var b bytes.Buffer
	b.Grow(len(raw))
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
