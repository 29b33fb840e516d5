package loss

import (
	"strings"
	"unsafe"

	"github.com/calib-dev/calib/corpus"
)

// resultText is the text of a tool result: its Text, or for a structured
// result (clai's payload) the string values of the payload in order,
// joined by newlines (a payload of one string without escapes gives a
// string sharing the payload's memory).
func resultText(b *corpus.Block) string {
	if b.Text != "" || len(b.Payload) == 0 {
		return b.Text
	}
	var parts []string
	forEachString(b.Payload, nil, func(s string) { parts = append(parts, s) })
	return strings.Join(parts, "\n")
}

// forEachString calls fn with every string value of a JSON document, in
// document order (object keys are not values), exactly as walking it with
// json.Decoder.Token does (the old implementation, kept as the oracle in
// jsonstr_test.go): a stream of several top-level values is walked value
// after value, and the walk stops at the first syntax error, or at a
// number too large for a float64 (the decoder fails to decode it), after
// delivering the strings before it. A string without escapes shares raw's
// memory.
//
// With scratch set, a string with escapes is decoded into *scratch,
// reused from one string to the next, so fn must not keep it: the
// agent's messages are scanned this way without an allocation per
// escaped string.
//
// Why not the decoder: Token decodes every scalar through reflection and
// was about a tenth of building a session's loss index.
func forEachString(raw []byte, scratch *[]byte, fn func(string)) {
	// The decoder's token states, and the states to return to when the
	// open arrays and objects close.
	const (
		top = iota
		arrayStart
		arrayValue
		arrayComma
		objectStart
		objectKey
		objectColon
		objectValue
		objectComma
	)
	valueAllowed := func(st int) bool {
		return st == top || st == arrayStart || st == arrayValue || st == objectValue
	}
	valueEnd := func(st int) int {
		switch st {
		case arrayStart, arrayValue:
			return arrayComma
		case objectValue:
			return objectComma
		}
		return st
	}
	var stack []int
	st := top
	for i := skipSpace(raw, 0); i < len(raw); i = skipSpace(raw, i) {
		switch c := raw[i]; c {
		case '[', '{':
			if !valueAllowed(st) {
				return
			}
			stack = append(stack, st)
			st = arrayStart
			if c == '{' {
				st = objectStart
			}
			i++
		case ']', '}':
			if c == ']' && st != arrayStart && st != arrayComma || c == '}' && st != objectStart && st != objectComma {
				return
			}
			st = valueEnd(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			i++
		case ':':
			if st != objectColon {
				return
			}
			st = objectValue
			i++
		case ',':
			switch st {
			case arrayComma:
				st = arrayValue
			case objectComma:
				st = objectKey
			default:
				return
			}
			i++
		case '"':
			isKey := st == objectStart || st == objectKey
			if !isKey && !valueAllowed(st) {
				return
			}
			end, plain, ok := scanString(raw, i)
			if !ok {
				return
			}
			if isKey {
				st = objectColon
			} else {
				if plain || scratch == nil {
					fn(stringValue(raw[i:end], plain, true))
				} else {
					*scratch = appendUnescaped((*scratch)[:0], raw[i+1:end-1])
					fn(unsafe.String(unsafe.SliceData(*scratch), len(*scratch)))
				}
				st = valueEnd(st)
			}
			i = end
		default:
			if !valueAllowed(st) {
				return
			}
			var end int
			var ok bool
			if c == '-' || '0' <= c && c <= '9' {
				end, ok = scanNumber(raw, i)
				ok = ok && numberFits(raw[i:end])
			} else {
				end, ok = scanLiteral(raw, i)
			}
			if !ok {
				return
			}
			st = valueEnd(st)
			i = end
		}
	}
}
