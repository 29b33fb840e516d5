package report

import (
	"bytes"
	"io"
)

// Why this file exists: json.Encoder with SetIndent compacts the value
// and then re-indents it with encoding/json's appendIndent, which runs the
// full validating scanner one byte at a time (a state-machine call per
// byte, strings included). On a 12.5 MB replay report that was about three
// quarters of WriteJSON's CPU. The compact form we indent is our own
// Encoder's output, so it is known to be valid JSON without insignificant
// space; the indenter relies on that and only has to find the structural
// characters, copying string literals and scalars in runs.
//
// It also streams: the indented report (twice the compact one) is never
// held whole, but passed on in chunks of chunkSize bytes (indentWriter),
// which saved a replay of 201 MB of sessions 12.5 MB of memory touched once.

// indentUnit is what WriteJSON indents with, once per nesting level.
const indentUnit = "  "

// indentSpaces serves the indentation of up to 32 levels in one append.
const indentSpaces = "                                                                "

// chunkSize is how much compact input indentWriter indents at a time, and
// about how much indented output it holds before writing it on.
const chunkSize = 32 << 10

// indenter indents compact JSON as json.Indent(dst, src, "", indentUnit)
// would: each element of a non-empty object or array on its own line, ": "
// after keys, empty objects and arrays kept as {} and [], and bytes after
// the top-level value copied as they are. Its fields carry the state from
// one piece of the input to the next, so the input may be split anywhere.
// It does not validate: invalid input gives unspecified output, so only
// feed it json.Encoder's own bytes.
type indenter struct {
	depth int
	// needIndent is set after '{' or '[' and resolved by the next byte:
	// a closing bracket keeps the pair compact, anything else opens a
	// new level on a new line (as in encoding/json's appendIndent).
	needIndent bool
	// inString is set inside a string literal, and escaped there right
	// after a backslash (the next byte is copied whatever it is).
	inString, escaped bool
}

// append appends the indented form of src, the next piece of the input.
func (d *indenter) append(dst, src []byte) []byte {
	// quote is the index of the next '"' in src once searched for, so
	// that a string with many escapes is not searched again per escape.
	quote := -1
	for i := 0; i < len(src); {
		if d.inString {
			if d.escaped {
				d.escaped = false
				dst = append(dst, src[i])
				i++
				continue
			}
			if quote < i {
				quote = bytes.IndexByte(src[i:], '"')
				if quote < 0 {
					quote = len(src)
				} else {
					quote += i
				}
			}
			if b := bytes.IndexByte(src[i:quote], '\\'); b >= 0 {
				dst = append(dst, src[i:i+b+1]...)
				i += b + 1
				d.escaped = true
				continue
			}
			end := min(quote+1, len(src))
			dst = append(dst, src[i:end]...)
			i = end
			d.inString = quote == len(src)
			continue
		}
		c := src[i]
		if d.needIndent {
			d.needIndent = false
			if c != '}' && c != ']' {
				d.depth++
				dst = appendNewline(dst, d.depth)
			} else {
				dst = append(dst, c)
				i++
				continue
			}
		}
		switch c {
		case '{', '[':
			d.needIndent = true
			dst = append(dst, c)
			i++
		case ',':
			dst = append(dst, ',')
			dst = appendNewline(dst, d.depth)
			i++
		case ':':
			dst = append(dst, ':', ' ')
			i++
		case '}', ']':
			d.depth--
			dst = appendNewline(dst, d.depth)
			dst = append(dst, c)
			i++
		case '"':
			d.inString = true
			dst = append(dst, c)
			i++
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

// appendIndented appends src, which must be compact valid JSON as written
// by json.Encoder (optionally followed by its newline), indented (see
// indenter).
func appendIndented(dst, src []byte) []byte {
	var d indenter
	return d.append(dst, src)
}

// indentWriter indents the compact JSON written to it and writes the
// result on to w chunk by chunk, holding about chunkSize bytes at a time.
// Call flush after the last Write. The first error of w is kept: later
// writes do nothing and return it.
type indentWriter struct {
	w   io.Writer
	ind indenter
	buf []byte
	err error
}

func newIndentWriter(w io.Writer) *indentWriter {
	return &indentWriter{w: w, buf: make([]byte, 0, 2*chunkSize)}
}

func (iw *indentWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && iw.err == nil {
		piece := p[:min(len(p), chunkSize)]
		p = p[len(piece):]
		iw.buf = iw.ind.append(iw.buf, piece)
		if len(iw.buf) >= chunkSize {
			iw.flush()
		}
	}
	if iw.err != nil {
		return 0, iw.err
	}
	return n, nil
}

// flush writes out what is held and returns the first error of w.
func (iw *indentWriter) flush() error {
	if iw.err == nil && len(iw.buf) > 0 {
		_, iw.err = iw.w.Write(iw.buf)
		iw.buf = iw.buf[:0]
	}
	return iw.err
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
