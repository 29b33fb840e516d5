package synth

import (
	"fmt"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// clai writes content_json and provider metadata with serde_json: compact,
// object keys sorted, strings escaped as jsonscan.Serde.

func claiQuote(s string) string { return string(claiString(nil, s)) }

// claiContentJSON writes a []ContentPart as serde_json does: the "type" tag
// first, then the fields in their declaration order (types.rs), optional
// fields omitted when empty.
func claiContentJSON(dst []byte, blocks []corpus.Block) []byte {
	dst = append(dst, '[')
	for i, b := range blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch b.Kind {
		case corpus.KindText:
			dst = append(dst, `{"type":"text"`...)
			dst = claiMember(dst, "text", b.Text)
		case corpus.KindThinking:
			dst = append(dst, `{"type":"thinking"`...)
			dst = claiMember(dst, "text", b.Text)
			if b.Signature != "" {
				dst = claiMember(dst, "signature", b.Signature)
			}
		case corpus.KindToolUse:
			dst = append(dst, `{"type":"tool_use"`...)
			dst = claiMember(dst, "tool_call_id", b.ToolCallID)
			dst = claiMember(dst, "tool_name", b.ToolName)
			dst = append(dst, `,"arguments":`...)
			dst = claiRaw(dst, b.Args)
		case corpus.KindToolResult:
			dst = append(dst, `{"type":"tool_result"`...)
			dst = claiMember(dst, "tool_call_id", b.ToolCallID)
			dst = append(dst, `,"payload":`...)
			dst = claiRaw(dst, b.Payload)
		case corpus.KindImage:
			dst = append(dst, `{"type":"image"`...)
			dst = claiMember(dst, "id", b.MediaRef)
			dst = claiMember(dst, "path", b.Source)
			dst = claiMember(dst, "media_type", b.MediaType)
		default:
			dst = append(dst, b.Payload...) // an unknown part, verbatim
			continue
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// claiObject writes a JSON object from key/value pairs given in sorted key
// order (serde_json's Value map order). Values are strings, ints, bools or
// raw []byte.
func claiObject(dst []byte, kv ...any) []byte {
	dst = append(dst, '{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = claiString(dst, kv[i].(string))
		dst = append(dst, ':')
		switch v := kv[i+1].(type) {
		case string:
			dst = claiString(dst, v)
		case int:
			dst = fmt.Appendf(dst, "%d", v)
		case int64:
			dst = fmt.Appendf(dst, "%d", v)
		case bool:
			dst = fmt.Appendf(dst, "%t", v)
		case []byte:
			dst = append(dst, v...)
		}
	}
	return append(dst, '}')
}

// claiMember writes the member ,"key":value of a string value after
// the members before it (key needs no escaping: the part fields' names).
func claiMember(dst []byte, key, v string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return claiString(dst, v)
}

// claiRaw writes a JSON value kept raw (tool arguments, a payload); an
// absent one is null.
func claiRaw(dst, raw []byte) []byte {
	if raw == nil {
		return append(dst, "null"...)
	}
	return append(dst, raw...)
}

// claiString writes s as serde_json does (clai).
func claiString(dst []byte, s string) []byte {
	return jsonscan.AppendString(dst, s, jsonscan.Serde)
}
