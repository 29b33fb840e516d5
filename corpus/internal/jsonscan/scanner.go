package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Scanner is a small pull scanner over one JSON line, for readers whose
// lines are dominated by a few long strings (tool outputs, file reads): it
// finds string ends with bytes.IndexByte, skips the fields a reader does not
// use without decoding them, and decodes the strings it keeps in one pass.
// encoding/json validates a line before decoding it and again for every
// RawMessage it re-decodes, reading each byte four to six times.
//
// It checks the whole line as encoding/json would (structure, literals,
// numbers), and every string, kept or skipped, by StringEnd's one rule
// (which also rejects invalid UTF-8, where encoding/json would replace
// it). A truncated line always fails. The Codex reader checks it against
// encoding/json in a differential fuzz test.
type Scanner struct {
	B   []byte
	I   int
	Err error
	// Alias says B is never written and outlives every string decoded
	// from it (clai's column strings, not a reused line buffer): Str then
	// returns a string without escapes as a view of B, not a copy.
	Alias bool
	// Checked says B is a span an earlier scan validated (a Raw of the
	// line): its strings are found by QuoteEnd, not checked again. Claude
	// Code decodes so a message.content its line scan could not decode in
	// passing (one of another shape: ccContent then gives the error).
	Checked bool
	// Scratch, when set, is a buffer (the caller keeps it from line to
	// line) that Str decodes a string into as it checks it (DecodeString),
	// instead of finding its end first and unescaping it after; the text
	// is then copied out at its size. Not used with Checked or Alias.
	Scratch *[]byte
	// depth is how many objects and arrays enclose the current byte.
	depth int
}

// MaxDepth is the deepest nesting of objects and arrays a line may have:
// encoding/json's own limit. The scanner descends by recursion, so without
// it a line of a few million '[' (a corrupt or hostile file) would
// overflow the stack and kill the process, losing the whole corpus; with
// it the line fails like any other invalid one.
const MaxDepth = 10000

// ErrEnd is the error of a line that ends before its value does.
var ErrEnd = errors.New("unexpected end of line")

// Fail records the first error (at the current byte) and returns false.
func (s *Scanner) Fail(format string, args ...any) bool {
	if s.Err == nil {
		if s.I >= len(s.B) {
			s.Err = ErrEnd
		} else {
			s.Err = fmt.Errorf("at byte %d: "+format, append([]any{s.I + 1}, args...)...)
		}
	}
	return false
}

func (s *Scanner) ws() {
	s.I = SkipSpace(s.B, s.I)
}

// SkipSpace returns the index of the first byte of b at or after i that is
// not JSON white space (len(b) if none is).
func SkipSpace[T string | []byte](b T, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// Peek returns the next non-space byte, or 0 at the end.
func (s *Scanner) Peek() byte {
	c, i := Next(s.B, s.I)
	s.I = i
	return c
}

// Next returns the first byte of b at or after i that is not JSON white
// space, and its index: 0 and len(b) at the end.
func Next[T string | []byte](b T, i int) (byte, int) {
	if i = SkipSpace(b, i); i < len(b) {
		return b[i], i
	}
	return 0, i
}

// Sep consumes what follows a member or element at i: a ',' (more
// follows) or the closing byte (done, ok). It returns the index after
// it, or of the byte that is neither (ok false).
func Sep[T string | []byte](b T, i int, close byte) (next int, more, ok bool) {
	c, i := Next(b, i)
	switch c {
	case ',':
		return i + 1, true, true
	case close:
		return i + 1, false, true
	}
	return i, false, false
}

// Span reads a string token, validated by StringEnd's rule (escapes,
// control characters, UTF-8), and returns its raw bytes between the quotes.
func (s *Scanner) Span() ([]byte, bool) {
	raw, _, ok := s.span()
	return raw, ok
}

func (s *Scanner) span() (raw []byte, escaped, ok bool) {
	if s.Peek() != '"' {
		return nil, false, s.Fail("expected a string")
	}
	start := s.I + 1
	end, escaped, ok := 0, false, false
	if s.Checked {
		end, escaped, ok = QuoteEnd(s.B, start)
	} else {
		end, escaped, ok = StringEnd(s.B, start)
	}
	if !ok {
		return nil, false, s.Fail(invalidString)
	}
	s.I = end + 1
	return s.B[start:end], escaped, true
}

// invalidString is the error of a string that breaks StringEnd's rule.
const invalidString = "invalid string (an unterminated string, a bad escape, a raw control character or invalid UTF-8)"

// maxScratch is the most text Str decodes into Scratch: a longer string
// (a tool output of megabytes) is scanned and then unescaped into one
// allocation of its own, so Scratch never grows past about this much.
const maxScratch = 1 << 20

// Str reads and decodes a string (a copy: the line buffer is reused).
// StringEnd has validated it, so the copy needs no second check.
func (s *Scanner) Str() (string, bool) {
	if s.Scratch != nil && !s.Checked && !s.Alias {
		if s.Peek() != '"' {
			return "", s.Fail("expected a string")
		}
		text, end, ok, long := DecodeString(*s.Scratch, s.B, s.I+1, maxScratch)
		if !long {
			if !ok {
				return "", s.Fail(invalidString)
			}
			*s.Scratch = text[:0:cap(text)]
			s.I = end + 1
			return string(text), true
		}
	}
	raw, escaped, ok := s.span()
	if !ok {
		return "", false
	}
	return s.decode(raw, escaped)
}

// decode is the string whose body raw is (a span that span accepted).
func (s *Scanner) decode(raw []byte, escaped bool) (string, bool) {
	if !escaped {
		if s.Alias {
			return unsafe.String(unsafe.SliceData(raw), len(raw)), true
		}
		return string(raw), true
	}
	out, ok := Unescape(raw)
	if !ok {
		return "", s.Fail("invalid escape in string")
	}
	return out, true
}

// Unescape decodes the body of a JSON string with escapes that StringEnd
// accepted (valid UTF-8 and escapes: what it decodes to is valid UTF-8 too,
// a lone surrogate escape being U+FFFD as in encoding/json). The text
// between escapes is copied eight bytes at a time up to the next backslash
// (file contents hold a \n every 13-18 bytes, too close for a copy call per
// run); the one-letter escapes are decoded inline; the result is not
// copied again into a string (it is never written after). What is decoded
// is never longer than raw, so out never grows.
func Unescape(raw []byte) (string, bool) {
	out := make([]byte, len(raw))
	w, r := 0, 0
	for {
		found := false
		for r+8 <= len(raw) {
			x := binary.LittleEndian.Uint64(raw[r:])
			binary.LittleEndian.PutUint64(out[w:], x) // w <= r: room
			v := x ^ lsb*'\\'
			if t := (v - lsb) &^ v & msb; t != 0 {
				k := bits.TrailingZeros64(t) >> 3
				w, r, found = w+k, r+k, true
				break
			}
			w, r = w+8, r+8
		}
		if !found {
			for r < len(raw) && raw[r] != '\\' {
				out[w] = raw[r]
				w, r = w+1, r+1
			}
			if r >= len(raw) {
				break
			}
		}
		k, n := escapeTo(out[w:], raw[r:])
		if n == 0 {
			return "", false
		}
		w, r = w+k, r+n
	}
	if w == 0 {
		return "", true
	}
	return unsafe.String(&out[0], w), true
}

// escapeTo decodes the escape src starts with into dst and returns the
// bytes written and read (read 0 for an invalid escape): the one-letter
// escapes inline, \u ones by DecodeEscape.
func escapeTo(dst, src []byte) (wrote, read int) {
	if len(src) > 1 {
		if c := SimpleEscape(src[1]); c != 0 {
			dst[0] = c
			return 1, 2
		}
	}
	r, n := DecodeEscape(src)
	if n == 0 {
		return 0, 0
	}
	return utf8.EncodeRune(dst, r), n
}

// SimpleEscape maps the letter of a one-letter escape (\c) to the byte it
// stands for (0 for any other letter, \u included).
func SimpleEscape(c byte) byte {
	switch c {
	case '"', '\\', '/':
		return c
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	}
	return 0
}

// Skip passes over any value.
func (s *Scanner) Skip() bool {
	switch s.Peek() {
	case '"':
		_, ok := s.Span()
		return ok
	case '{':
		return s.Object(func(key []byte) bool { return s.Skip() })
	case '[':
		return s.Array(func() bool { return s.Skip() })
	case 0:
		return s.Fail("expected a value")
	}
	_, ok := s.literal()
	return ok
}

// literal passes over a number, true, false or null and returns it.
func (s *Scanner) literal() ([]byte, bool) {
	start := s.I
	for s.I < len(s.B) {
		switch s.B[s.I] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			goto done
		}
		s.I++
	}
done:
	lit := s.B[start:s.I]
	if len(lit) == 0 {
		return nil, s.Fail("expected a value")
	}
	switch c := lit[0]; {
	case c == '-' || (c >= '0' && c <= '9'):
		if end, ok := NumberEnd(lit, 0); ok && end == len(lit) {
			return lit, true
		}
	case string(lit) == "true" || string(lit) == "false" || string(lit) == "null":
		return lit, true
	}
	s.I = start
	return nil, s.Fail("invalid literal %.20q", lit)
}

// Raw returns the bytes of the next value (not copied).
func (s *Scanner) Raw() ([]byte, bool) {
	s.ws()
	start := s.I
	if !s.Skip() {
		return nil, false
	}
	return s.B[start:s.I], true
}

// Bool reads true or false; null and any other value read as false.
func (s *Scanner) Bool() bool {
	s.ws()
	v := bytes.HasPrefix(s.B[s.I:], []byte("true"))
	s.Skip()
	return v
}

// StrOrNull reads a string, or null as "" (other values are skipped).
func (s *Scanner) StrOrNull() string {
	if s.Peek() == '"' {
		v, _ := s.Str()
		return v
	}
	s.Skip()
	return ""
}

// StrOrText reads a string, or null as "", as StrOrNull does; a value of
// another kind (a number where a timestamp belongs) gives its JSON text,
// so that the caller can count it as malformed and say what it held,
// where StrOrNull reads it as absent.
func (s *Scanner) StrOrText() string {
	if c := s.Peek(); c == '"' || c == 'n' {
		return s.StrOrNull()
	}
	raw, _ := s.Raw()
	return string(raw)
}

// Excerpt is a value's JSON text (or any text) for a warning: trimmed,
// and cut to its first 40 bytes at a character boundary, with "…".
func Excerpt(v string) string {
	const max = 40
	v = strings.TrimSpace(v)
	if len(v) <= max {
		return v
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + "…"
}

// StrOrNullReusing reads what StrOrNull reads, but a string equal to
// *last is returned as *last, not copied again, and any other one is kept
// in *last: for fields whose value repeats line after line (a session id,
// a version, the parent that is the previous line's uuid), which a log of
// a few thousand lines would otherwise copy on every line.
func (s *Scanner) StrOrNullReusing(last *string) string {
	if s.Peek() != '"' {
		s.Skip()
		return ""
	}
	raw, escaped, ok := s.span()
	if !ok {
		return ""
	}
	if !escaped && string(raw) == *last {
		return *last
	}
	v, ok := s.decode(raw, escaped)
	if ok {
		*last = v
	}
	return v
}

// Int reads an integer; null, a fraction or any other value reads as 0
// (and ok false for anything but an integer or null).
func (s *Scanner) Int() (int, bool) {
	switch s.Peek() {
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		lit, ok := s.literal()
		if !ok {
			return 0, false
		}
		v, err := strconv.Atoi(string(lit))
		return v, err == nil
	case 'n':
		return 0, s.Skip()
	}
	s.Skip()
	return 0, false
}

// Object calls fn for each member with the raw key; fn must consume the
// value.
func (s *Scanner) Object(fn func(key []byte) bool) bool {
	return s.container('{', '}', "an object", func() bool {
		key, escaped, ok := s.span()
		if !ok {
			return false
		}
		if escaped {
			k, _ := Unescape(key) // an escaped key matches as encoding/json matches it
			key = []byte(k)
		}
		if s.Peek() != ':' {
			return s.Fail("expected ':'")
		}
		s.I++
		return fn(key)
	})
}

// Array calls fn for each element; fn must consume it.
func (s *Scanner) Array(fn func() bool) bool {
	return s.container('[', ']', "an array", fn)
}

// container reads an object or array (what names it in the error): elem
// consumes each member or element.
func (s *Scanner) container(open, close byte, what string, elem func() bool) bool {
	if s.Peek() != open {
		return s.Fail("expected %s", what)
	}
	if s.depth >= MaxDepth {
		return s.Fail("nested deeper than %d levels", MaxDepth)
	}
	s.I++
	s.depth++
	ok := s.elements(close, elem)
	s.depth--
	return ok
}

// elements reads a container's members or elements after its opening byte.
func (s *Scanner) elements(close byte, elem func() bool) bool {
	if s.Peek() == close {
		s.I++
		return true
	}
	for {
		if !elem() || s.Err != nil {
			return false
		}
		if more, ok := s.sep(close); !more {
			return ok
		}
	}
}

// sep consumes what follows a member or element: a ',' (more follows) or
// the closing byte (done, ok); anything else fails.
func (s *Scanner) sep(close byte) (more, ok bool) {
	if s.I, more, ok = Sep(s.B, s.I, close); !ok {
		return false, s.Fail("expected ',' or '%c'", close)
	}
	return more, true
}

// End checks that nothing but spaces follows the value.
func (s *Scanner) End() bool {
	// Not Peek() != 0: Peek reports the end of input as 0, so a raw NUL
	// after the value would pass for the end.
	if s.ws(); s.I < len(s.B) {
		return s.Fail("unexpected data after the value")
	}
	return true
}
