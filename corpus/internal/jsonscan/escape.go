package jsonscan

import (
	"unicode/utf16"
	"unicode/utf8"
)

// The three hand-written JSON scanners of this package (smith lines in
// place, clai content_json over strings, Claude Code lines) each find the
// end of a string their own, line-shape-specific way; decoding an escape is
// the same everywhere and lives here, checked against encoding/json by each
// scanner's differential and fuzz tests.

// DecodeEscape decodes the escape that starts src (src[0] == '\\') and
// returns the rune it stands for and its length in bytes: 2 for \n and the
// like, 6 for \uXXXX, 12 for a surrogate pair written as two \u escapes.
// As in encoding/json, a lone or mismatched surrogate is U+FFFD. n is 0
// when src does not start with a valid escape.
func DecodeEscape[T string | []byte](src T) (r rune, n int) {
	if len(src) < 2 || src[0] != '\\' {
		return 0, 0
	}
	switch c := src[1]; c {
	case '"', '\\', '/':
		return rune(c), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r, ok := hex4(src[2:])
		if !ok {
			return 0, 0
		}
		if !utf16.IsSurrogate(r) {
			return r, 6
		}
		if len(src) >= 12 && src[6] == '\\' && src[7] == 'u' {
			if r2, ok := hex4(src[8:]); ok {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return dec, 12
				}
			}
		}
		return utf8.RuneError, 6
	}
	return 0, 0
}

// hex4 parses the four hex digits that start b.
func hex4[T string | []byte](b T) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for i := range 4 {
		c := b[i]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// PutRune writes r as UTF-8 at the start of dst and returns the bytes written
// (dst must have room: an escape is never shorter than what it decodes to).
func PutRune(dst []byte, r rune) int {
	if r < utf8.RuneSelf {
		dst[0] = byte(r)
		return 1
	}
	return utf8.EncodeRune(dst, r)
}
