package claudecode

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// ccScanner is a small pull scanner over one JSON line. Claude Code lines
// are dominated by a few huge strings (a file read appears twice: in the
// tool_result and in toolUseResult), so the scanner finds string ends with
// bytes.IndexByte, skips the fields calib does not use without decoding
// them, and decodes the strings it keeps in one pass. encoding/json, which
// validates a line before decoding it and again for every RawMessage it
// re-decodes, reads each byte four to six times and ran at ~40 MB/s here.
//
// It checks the whole line as encoding/json would (structure, literals,
// numbers), and every string, kept or skipped, by jsonscan's one rule
// (which also rejects invalid UTF-8). A truncated line always fails.
type ccScanner struct {
	b   []byte
	i   int
	err error
}

var errCCEnd = errors.New("unexpected end of line")

func (s *ccScanner) fail(format string, args ...any) bool {
	if s.err == nil {
		if s.i >= len(s.b) {
			s.err = errCCEnd
		} else {
			s.err = fmt.Errorf("at byte %d: "+format, append([]any{s.i + 1}, args...)...)
		}
	}
	return false
}

func (s *ccScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *ccScanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// span reads a string token, validated by jsonscan's one rule, and returns
// its raw bytes between the quotes.
func (s *ccScanner) span() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, s.fail("expected a string")
	}
	start := s.i + 1
	end, _, ok := jsonscan.StringEnd(s.b, start)
	if !ok {
		return nil, s.fail("invalid string (an unterminated string, a bad escape, a raw control character or invalid UTF-8)")
	}
	s.i = end + 1
	return s.b[start:end], true
}

// str reads and decodes a string (a copy: the line buffer is reused).
func (s *ccScanner) str() (string, bool) {
	raw, ok := s.span()
	if !ok {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), true
	}
	out, ok := ccUnescape(raw)
	if !ok {
		return "", s.fail("invalid escape in string")
	}
	return out, true
}

func ccUnescape(raw []byte) (string, bool) {
	out := make([]byte, 0, len(raw))
	for len(raw) > 0 {
		k := bytes.IndexByte(raw, '\\')
		if k < 0 {
			out = append(out, raw...)
			break
		}
		out = append(out, raw[:k]...)
		r, n := jsonscan.DecodeEscape(raw[k:])
		if n == 0 {
			return "", false
		}
		out = utf8.AppendRune(out, r)
		raw = raw[k+n:]
	}
	return string(out), true
}

// skip passes over any value.
func (s *ccScanner) skip() bool {
	switch s.peek() {
	case '"':
		_, ok := s.span()
		return ok
	case '{':
		return s.object(func(key []byte) bool { return s.skip() })
	case '[':
		return s.array(func() bool { return s.skip() })
	case 0:
		return s.fail("expected a value")
	}
	return s.literal()
}

// literal passes over a number, true, false or null.
func (s *ccScanner) literal() bool {
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			goto done
		}
		s.i++
	}
done:
	lit := s.b[start:s.i]
	if len(lit) == 0 {
		return s.fail("expected a value")
	}
	switch c := lit[0]; {
	case c == '-' || (c >= '0' && c <= '9'):
		if end, ok := jsonscan.NumberEnd(lit, 0); ok && end == len(lit) {
			return true
		}
	case string(lit) == "true" || string(lit) == "false" || string(lit) == "null":
		return true
	}
	s.i = start
	return s.fail("invalid literal %.20q", lit)
}

// raw returns the bytes of the next value (not copied).
func (s *ccScanner) raw() ([]byte, bool) {
	s.ws()
	start := s.i
	if !s.skip() {
		return nil, false
	}
	return s.b[start:s.i], true
}

// boolean reads true or false; null and any other value read as false.
func (s *ccScanner) boolean() bool {
	s.ws()
	v := bytes.HasPrefix(s.b[s.i:], []byte("true"))
	s.skip()
	return v
}

// strOrNull reads a string, or null as "" (other values are skipped).
func (s *ccScanner) strOrNull() string {
	if s.peek() == '"' {
		v, _ := s.str()
		return v
	}
	s.skip()
	return ""
}

// object calls fn for each member with the raw key; fn must consume the
// value.
func (s *ccScanner) object(fn func(key []byte) bool) bool {
	if s.peek() != '{' {
		return s.fail("expected an object")
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		key, ok := s.span()
		if !ok {
			return false
		}
		if bytes.IndexByte(key, '\\') >= 0 {
			k, _ := ccUnescape(key) // an escaped key matches as encoding/json matches it
			key = []byte(k)
		}
		if s.peek() != ':' {
			return s.fail("expected ':'")
		}
		s.i++
		if !fn(key) || s.err != nil {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return s.fail("expected ',' or '}'")
		}
	}
}

// array calls fn for each element; fn must consume it.
func (s *ccScanner) array(fn func() bool) bool {
	if s.peek() != '[' {
		return s.fail("expected an array")
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		if !fn() || s.err != nil {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return s.fail("expected ',' or ']'")
		}
	}
}

// end checks that nothing but spaces follows the value.
func (s *ccScanner) end() bool {
	// Not peek() != 0: peek reports the end of input as 0, so a raw NUL
	// after the object would pass for the end.
	if s.ws(); s.i < len(s.b) {
		return s.fail("unexpected data after the object")
	}
	return true
}
