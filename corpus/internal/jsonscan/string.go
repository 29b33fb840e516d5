package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
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
// above or is not closed. Text is looked at a word at a time (see
// Special), and after sixteen plain bytes by the vector search
// specialBlocks: tool outputs are long, and their escapes and non-ASCII
// runes are tens of bytes apart.
func StringEnd(b []byte, i int) (end int, escaped, ok bool) {
	for {
		for i+16 <= len(b) {
			if t := Special(binary.LittleEndian.Uint64(b[i:])); t != 0 {
				i += bits.TrailingZeros64(t) >> 3
				goto found
			}
			if t := Special(binary.LittleEndian.Uint64(b[i+8:])); t != 0 {
				i += 8 + bits.TrailingZeros64(t)>>3
				goto found
			}
			i += 16
			// Sixteen plain bytes: a long run, worth a call to the vector
			// search (a short one costs less in words than the call).
			if n := len(b) - i; n >= 16 {
				k := specialBlocks(b[i:])
				i += k
				if k < n&^15 {
					goto found
				}
			}
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 && b[i] < utf8.RuneSelf {
			i++
		}
		if i >= len(b) {
			return 0, false, false
		}
	found:
		switch c := b[i]; {
		case c == '"':
			return i, escaped, true
		case c == '\\':
			escaped = true
			if i+1 < len(b) {
				switch b[i+1] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					i += 2 // the common escapes inline: file contents hold one per line
					continue
				}
			}
			_, n := DecodeEscape(b[i:])
			if n == 0 {
				return 0, false, false
			}
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

// StringEndIn is StringEnd over a string (clai's content_json is read as
// one), without copying it: the scan only reads.
func StringEndIn(s string, i int) (end int, escaped, ok bool) {
	return StringEnd(unsafe.Slice(unsafe.StringData(s), len(s)), i)
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// Special flags (in bit 7 of each byte) the bytes of x that end a run of
// plain string text: '"', '\\', a control character (< 0x20) or a
// non-ASCII byte. Only the lowest flag is exact (the bytes above it may be
// flagged by a borrow): it is nonzero exactly when x holds such a byte,
// and bits.TrailingZeros64 of it finds the first.
func Special(x uint64) uint64 {
	// A byte of x - 0x20 (or of x ^ c - 1) gets bit 7 for bytes below 0x20
	// (that are c), and for higher bytes only by a borrow from such a byte
	// below or when it is non-ASCII, which | x flags anyway. So each flag
	// is exact up to the lowest, and callers only look at the lowest.
	ctl := x - lsb*0x20
	quo := (x ^ lsb*'"') - lsb
	bsl := (x ^ lsb*'\\') - lsb
	return (ctl | quo | bsl | x) & msb
}

// UTF8Len returns the length of the valid UTF-8 sequence b starts with, or
// 0 if it is invalid (as utf8.DecodeRune judges: no overlong forms, no
// surrogates, nothing above U+10FFFF).
func UTF8Len[T string | []byte](b T) int {
	// size is the sequence's length by its first byte; lo and hi bound the
	// second byte, which is where overlong forms, surrogates and code
	// points above U+10FFFF show.
	c := b[0]
	size, lo, hi := 0, byte(0x80), byte(0xbf)
	switch {
	case c < 0x80:
		return 1
	case c < 0xc2 || c > 0xf4:
		return 0
	case c <= 0xdf:
		size = 2
	case c <= 0xef:
		size = 3
	default:
		size = 4
	}
	switch c {
	case 0xe0:
		lo = 0xa0 // below: an overlong form
	case 0xed:
		hi = 0x9f // above: a surrogate
	case 0xf0:
		lo = 0x90 // below: an overlong form
	case 0xf4:
		hi = 0x8f // above: past U+10FFFF
	}
	if len(b) < size || b[1] < lo || b[1] > hi {
		return 0
	}
	for k := 2; k < size; k++ {
		if b[k]&0xc0 != 0x80 {
			return 0
		}
	}
	return size
}

// ScalarEnd returns the index after the true, false, null or number at i,
// and false (with i) when there is none. Like NumberEnd it does not look
// past the value: the separator that must follow is the caller's check.
func ScalarEnd[T string | []byte](b T, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	var w string
	switch b[i] {
	case 't':
		w = "true"
	case 'f':
		w = "false"
	case 'n':
		w = "null"
	default:
		if end, ok := NumberEnd(b, i); ok {
			return end, true
		}
		return i, false
	}
	if len(b)-i >= len(w) && string(b[i:i+len(w)]) == w {
		return i + len(w), true
	}
	return i, false
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
