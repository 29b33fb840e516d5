package jsonscan

import (
	"math/bits"
	"unicode/utf8"
)

// The one rule every reader's JSON scanner applies to a string: escapes
// are valid JSON escapes, no raw control character (< 0x20), and the text
// is valid UTF-8. encoding/json accepts invalid UTF-8 and replaces it with
// U+FFFD; calib's scanners reject it instead (smith and clai then hand the
// line to encoding/json, Claude Code warns and skips it), so a string they
// return is always the bytes the agent wrote.

// StringEnd scans the body of a JSON string that starts at b[i] (just
// after the opening quote) and returns the index of its closing quote and
// whether it holds escapes. ok is false when the string breaks the rule
// above or is not closed. Text is looked at eight bytes at a time (see
// Special): tool outputs are long and their escapes sparse.
func StringEnd[T string | []byte](b T, i int) (end int, escaped, ok bool) {
	for {
		for i+8 <= len(b) {
			x := uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
				uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56
			if t := Special(x); t != 0 {
				i += bits.TrailingZeros64(t) >> 3
				break
			}
			i += 8
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 && b[i] < utf8.RuneSelf {
			i++
		}
		if i >= len(b) {
			return 0, false, false
		}
		switch c := b[i]; {
		case c == '"':
			return i, escaped, true
		case c == '\\':
			_, n := DecodeEscape(b[i:])
			if n == 0 {
				return 0, false, false
			}
			escaped = true
			i += n
		case c < 0x20:
			return 0, false, false
		default:
			n := UTF8Len(b[i:])
			if n == 0 {
				return 0, false, false
			}
			i += n
		}
	}
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// Special flags (in bit 7 of each byte) the bytes of x that end a run of
// plain string text: '"', '\\', a control character (< 0x20) or a
// non-ASCII byte. With the high bits masked off no byte can carry into the
// next, so every flag is exact.
func Special(x uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	x7 := x & low7
	ctl := x7 + lsb*(0x80-0x20)           // bit 7 set iff byte >= 0x20
	quo := (x7 ^ lsb*'"') + low7          // bit 7 set iff byte != '"'
	bsl := (x7 ^ lsb*'\\') + low7         // bit 7 set iff byte != '\\'
	return (^(ctl & quo & bsl) | x) & msb // or non-ASCII
}

// UTF8Len returns the length of the valid UTF-8 sequence b starts with, or
// 0 if it is invalid (as utf8.DecodeRune judges: no overlong forms, no
// surrogates, nothing above U+10FFFF).
func UTF8Len[T string | []byte](b T) int {
	cont := func(k int) bool { return k < len(b) && b[k]&0xc0 == 0x80 }
	in := func(k int, lo, hi byte) bool { return k < len(b) && lo <= b[k] && b[k] <= hi }
	switch c := b[0]; {
	case c < 0x80:
		return 1
	case c >= 0xc2 && c <= 0xdf:
		if cont(1) {
			return 2
		}
	case c == 0xe0:
		if in(1, 0xa0, 0xbf) && cont(2) {
			return 3
		}
	case c == 0xed:
		if in(1, 0x80, 0x9f) && cont(2) {
			return 3
		}
	case c >= 0xe1 && c <= 0xef:
		if cont(1) && cont(2) {
			return 3
		}
	case c == 0xf0:
		if in(1, 0x90, 0xbf) && cont(2) && cont(3) {
			return 4
		}
	case c >= 0xf1 && c <= 0xf3:
		if cont(1) && cont(2) && cont(3) {
			return 4
		}
	case c == 0xf4:
		if in(1, 0x80, 0x8f) && cont(2) && cont(3) {
			return 4
		}
	}
	return 0
}

// NumberEnd checks JSON's number grammar,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, from b[i] and returns
// the index just past the number.
func NumberEnd[T string | []byte](b T, i int) (end int, ok bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, false
		}
	}
	return i, true
}
