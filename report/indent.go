package report

import (
	"bytes"
	"encoding/json"
)

// Why this file exists: json.Encoder with SetIndent compacts the value
// and then re-indents it with encoding/json's appendIndent, which runs the
// full validating scanner one byte at a time (a state-machine call per
// byte, strings included). On a 12.5 MB replay report that was about three
// quarters of WriteJSON's CPU. The compact form we indent is our own
// Encoder's output, so it is known to be valid JSON without insignificant
// space; appendIndented relies on that and only has to find the structural
// characters, copying string literals and scalars in runs.

// indentUnit is what WriteJSON indents with, once per nesting level.
const indentUnit = "  "

// indentSpaces serves the indentation of up to 32 levels in one append.
const indentSpaces = "                                                                "

// marshalIndent returns v as encoding/json's Encoder with
// SetEscapeHTML(false) and SetIndent("", indentUnit) would write it,
// trailing newline included.
func marshalIndent(v any) ([]byte, error) {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	src := compact.Bytes()
	// Indenting two spaces roughly doubles a report of small structs;
	// starting there saves most of the buffer regrowth.
	return appendIndented(make([]byte, 0, 2*len(src)), src), nil
}

// appendIndented appends src, which must be compact valid JSON as written by
// json.Encoder (optionally followed by its newline), indented as
// json.Indent(dst, src, "", indentUnit) would: each element of a
// non-empty object or array on its own line, ": " after keys, empty
// objects and arrays kept as {} and [], and bytes after the top-level
// value copied as they are. It does not validate: invalid input gives
// unspecified output, so only feed it the Encoder's own bytes.
func appendIndented(dst, src []byte) []byte {
	depth := 0
	// needIndent is set after '{' or '[' and resolved by the next byte:
	// a closing bracket keeps the pair compact, anything else opens a
	// new level on a new line (as in encoding/json's appendIndent).
	needIndent := false
	for i := 0; i < len(src); {
		c := src[i]
		if needIndent {
			needIndent = false
			if c != '}' && c != ']' {
				depth++
				dst = appendNewline(dst, depth)
			} else {
				dst = append(dst, c)
				i++
				continue
			}
		}
		switch c {
		case '{', '[':
			needIndent = true
			dst = append(dst, c)
			i++
		case ',':
			dst = append(dst, ',')
			dst = appendNewline(dst, depth)
			i++
		case ':':
			dst = append(dst, ':', ' ')
			i++
		case '}', ']':
			depth--
			dst = appendNewline(dst, depth)
			dst = append(dst, c)
			i++
		case '"':
			end := stringEnd(src, i)
			dst = append(dst, src[i:end]...)
			i = end
		default:
			// A number, true, false or null (or the trailing newline):
			// copy up to the next structural character.
			end := i + 1
			for end < len(src) && !isStructural(src[end]) {
				end++
			}
			dst = append(dst, src[i:end]...)
			i = end
		}
	}
	return dst
}

// stringEnd returns the index just past the string literal whose opening
// quote is at src[start]. A quote closes the literal unless it is escaped,
// that is preceded by an odd run of backslashes (each escape inside a
// literal starts with a backslash, so an even run is complete escapes).
// bytes.IndexByte jumps between quotes, which are rare inside the texts.
func stringEnd(src []byte, start int) int {
	i := start + 1
	for {
		q := bytes.IndexByte(src[i:], '"')
		if q < 0 {
			return len(src) // unterminated: only reachable on invalid input
		}
		q += i
		n := 0
		for j := q - 1; j > start && src[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}

// isStructural reports whether c ends a number or literal in compact JSON.
func isStructural(c byte) bool {
	switch c {
	case ',', ':', '{', '}', '[', ']', '"':
		return true
	}
	return false
}

// appendNewline appends a newline and depth indentation units.
func appendNewline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	n := depth * len(indentUnit)
	for n > len(indentSpaces) {
		dst = append(dst, indentSpaces...)
		n -= len(indentSpaces)
	}
	return append(dst, indentSpaces[:n]...)
}
