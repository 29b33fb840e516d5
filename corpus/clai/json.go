package clai

import (
	"unsafe"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// A fast decoder for content_json, the bulk of a clai database.
//
// encoding/json validates every document in a first pass, then decodes it
// in a second, and copies each string: it held loading to ~80 MB/s, under
// the 100 MB/s target. jsonscan.Scanner makes one pass over the column's
// string and, with Alias, returns strings without escapes as substrings of
// it (no copy; the model shares strings anyway). Anything it is not sure
// about (invalid JSON, invalid UTF-8, a key that only matches
// case-insensitively or is given twice, a value of another type) makes it
// decline (see jsonscan/fields.go), and the row is decoded again by
// encoding/json, whose result and error messages are the reference. So the
// fast path only ever agrees with encoding/json (FuzzClaiFastParts).

// claiPartFields are the ContentPart fields: the strings first, in
// claiPart.stringField's order, then the two raw values.
var claiPartFields = []string{"type", "text", "signature", "tool_call_id", "tool_name", "id", "path", "media_type", "arguments", "payload"}

// stringField is the string field named claiPartFields[k] (k < 8).
func (p *claiPart) stringField(k int) *string {
	return [...]*string{&p.Type, &p.Text, &p.Signature, &p.ToolCallID, &p.ToolName, &p.ID, &p.Path, &p.MediaType}[k]
}

// claiScanner scans s in place: the Scanner never writes B, and the
// column string outlives the parts decoded from it.
func claiScanner(s string) *jsonscan.Scanner {
	return &jsonscan.Scanner{B: unsafe.Slice(unsafe.StringData(s), len(s)), Alias: true}
}

// claiFastParts decodes content_json; ok=false means "use encoding/json".
func claiFastParts(s string) (parts []claiPart, ok bool) {
	sc := claiScanner(s)
	if sc.Peek() != '[' {
		return nil, false
	}
	parts = []claiPart{}
	sc.Array(func() bool {
		sc.Peek() // to the part's first byte
		start := sc.I
		parts = append(parts, claiPart{})
		p := &parts[len(parts)-1]
		ok := jsonscan.Members(sc, claiPartFields, func(k int) bool {
			switch k {
			case 8:
				return jsonscan.RawCopy(sc, &p.Arguments)
			case 9:
				return jsonscan.RawCopy(sc, &p.Payload)
			}
			return sc.StringField(p.stringField(k))
		})
		p.raw = s[start:sc.I]
		return ok
	})
	if !sc.End() || sc.Err != nil {
		return nil, false
	}
	return parts, true
}

// claiSourceFields is provider_metadata_json's one field calib reads.
var claiSourceFields = []string{"source"}

// claiFastSource reads provider_metadata_json's "source";
// ok=false means "use encoding/json".
func claiFastSource(s string) (source string, ok bool) {
	sc := claiScanner(s)
	jsonscan.Members(sc, claiSourceFields, func(int) bool { return sc.StringField(&source) })
	if !sc.End() || sc.Err != nil {
		return "", false
	}
	return source, true
}

// AppendJSONString appends s as a JSON string escaped as clai's
// serde_json escapes it, for renderers that re-serialize clai's JSON
// (policy's clai digest).
func AppendJSONString(dst []byte, s string) []byte {
	return jsonscan.AppendString(dst, s, jsonscan.Serde)
}
