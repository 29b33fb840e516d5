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
// above or is not closed. A short string is looked at a word at a time
// (see Special); past sixteen bytes, while 64 remain, stringEndLong takes
// over: tool outputs are long, with an escape or a non-ASCII rune every
// 13-18 bytes, too close for a search that starts over after each.
func StringEnd(b []byte, i int) (end int, escaped, ok bool) {
	long := i + 16
	for {
		if i >= long && i+64 <= len(b) {
			return stringEndLong(b, i, escaped)
		}
		if i+8 <= len(b) {
			t := Special(binary.LittleEndian.Uint64(b[i:]))
			if t == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(t) >> 3
		} else {
			for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 && b[i] < utf8.RuneSelf {
				i++
			}
			if i >= len(b) {
				return 0, false, false
			}
		}
		n := specialLen(b, i)
		switch {
		case n > 0:
			escaped = escaped || b[i] == '\\'
			i += n
		case n == 0:
			return 0, false, false
		default:
			return i, escaped, true
		}
	}
}

// stringEndLong is StringEnd's scan of a long string: a mask of the
// special bytes of 64 at a time (special64), each handled in turn at the
// cost of a bit search, so text need not be read again after each escape
// or rune. The last bytes of b, fewer than 64, go back to StringEnd's
// words.
func stringEndLong(b []byte, i int, escaped bool) (end int, esc, ok bool) {
	for i+64 <= len(b) {
		m := special64(b[i:])
		for m != 0 {
			p := bits.TrailingZeros64(m)
			// The two commonest specials of file contents, \n and →,
			// without specialLen's call.
			switch j := i + p; {
			case b[j] == '\\' && j+1 < len(b) && b[j+1] == 'n':
				escaped = true
				p += 2
			case b[j] == 0xe2 && j+2 < len(b) && b[j+1]&0xc0 == 0x80 && b[j+2]&0xc0 == 0x80:
				p += 3
			default:
				n := specialLen(b, j)
				if n <= 0 {
					if n < 0 {
						return j, escaped, true
					}
					return 0, false, false
				}
				escaped = escaped || b[j] == '\\'
				p += n
			}
			if p >= 64 {
				// An escape or rune that ends in the next block: the
				// next block starts after it.
				i += p - 64
				break
			}
			m &= ^uint64(0) << p
		}
		i += 64
	}
	if end, esc, ok = StringEnd(b, i); !ok {
		return 0, false, false
	}
	return end, esc || escaped, true
}

// specialLen handles the special byte at b[i] of a string body (b[i] may
// also be a plain byte Special flagged by a borrow): -1 for the closing
// quote, 0 for what breaks the rule, else the length of the escape, rune
// or plain byte to pass over. Common escapes and runes (\n, \", →) are
// checked inline: file contents hold one per line.
func specialLen(b []byte, i int) int {
	switch c := b[i]; {
	case c == '"':
		return -1
	case c == '\\':
		if i+1 < len(b) {
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				return 2
			}
		}
		_, n := DecodeEscape(b[i:])
		return n
	case c < 0x20:
		return 0
	case c < utf8.RuneSelf:
		return 1
	case c >= 0xe1 && c <= 0xef && c != 0xed && i+2 < len(b) && b[i+1]&0xc0 == 0x80 && b[i+2]&0xc0 == 0x80:
		// Three bytes with no overlong or surrogate form possible (E0
		// and ED restrict their second byte): arrows, CJK, most symbols.
		return 3
	}
	return UTF8Len(b[i:])
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
