package loss

import (
	"encoding/json"
	"strings"

	"github.com/calib-dev/calib/corpus"
)

// resultText is the text of a tool result: its Text, or for a structured
// result (clai's payload) the string values of the payload in order,
// joined by newlines.
func resultText(b *corpus.Block) string {
	if b.Text != "" || len(b.Payload) == 0 {
		return b.Text
	}
	var parts []string
	forEachString(b.Payload, func(s string) { parts = append(parts, s) })
	return strings.Join(parts, "\n")
}

// forEachString calls fn with every string value of a JSON document, in
// document order (object keys sorted by encoding/json are not used: the
// decoder walks tokens).
func forEachString(raw []byte, fn func(string)) {
	if len(raw) == 0 {
		return
	}
	d := json.NewDecoder(strings.NewReader(string(raw)))
	inObject := []bool{}
	expectKey := false
	for {
		t, err := d.Token()
		if err != nil {
			return
		}
		switch v := t.(type) {
		case json.Delim:
			switch v {
			case '{':
				inObject = append(inObject, true)
				expectKey = true
			case '[':
				inObject = append(inObject, false)
				expectKey = false
			default:
				inObject = inObject[:len(inObject)-1]
				expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
			}
			continue
		case string:
			if !expectKey {
				fn(v)
			}
		}
		if len(inObject) > 0 && inObject[len(inObject)-1] {
			expectKey = !expectKey
		}
	}
}
