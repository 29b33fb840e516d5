package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// DecodeString checks and decodes, in one pass, the body of the JSON string
// that starts at b[i] (just after the opening quote): StringEnd's rule and
// Unescape's decoding, into out (grown when it cannot hold the rest of b,
// up to limit). It returns the decoded text (a prefix of the buffer used,
// which the caller keeps for the next string), the index of the closing
// quote and whether the string keeps the rule; long is true (and the rest
// zero) when the text passed limit bytes before the string ended, for the
// caller to scan it in two passes instead (StringEnd, then Unescape into
// one allocation of its size). A reader that keeps a string's text would
// otherwise read it twice: once to find its end, once to unescape it.
func DecodeString(out, b []byte, i, limit int) (text []byte, end int, ok, long bool) {
	// A string decodes to no more bytes than its body, so the rest of b
	// (or limit) bounds the text; the slack is for the last word written
	// whole and a rune after it.
	if room := min(len(b)-i, limit) + 16; cap(out) < room {
		out = make([]byte, room)
	}
	out = out[:cap(out)]
	w := 0
	for {
		// A word at a time, written whole, up to the first special byte
		// (see Special: the lowest flag is exact).
		special := false
		for w <= limit && i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			binary.LittleEndian.PutUint64(out[w:], x)
			if t := Special(x); t != 0 {
				k := bits.TrailingZeros64(t) >> 3
				w, i, special = w+k, i+k, true
				break
			}
			w, i = w+8, i+8
		}
		if w > limit {
			return nil, 0, false, true
		}
		if !special {
			for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 && b[i] < utf8.RuneSelf {
				out[w] = b[i]
				w, i = w+1, i+1
			}
			if i >= len(b) {
				return nil, 0, false, false
			}
		}
		switch c := b[i]; {
		case c == '"':
			return out[:w], i, true, false
		case c == '\\':
			k, n := escapeTo(out[w:], b[i:])
			if n == 0 {
				return nil, 0, false, false
			}
			w, i = w+k, i+n
		default:
			// A control character (0) or a non-ASCII rune.
			n := specialLen(b, i)
			if n <= 0 {
				return nil, 0, false, false
			}
			copy(out[w:], b[i:i+n])
			w, i = w+n, i+n
		}
	}
}
