package loss

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// The JSON lexing shared by forEachString (jsonstr.go) and the tool input
// decoder (toolinput.go). Why not encoding/json: the loss index reads the
// arguments of every tool call and the payload of every structured result,
// and json.Decoder.Token and reflection-based Unmarshal were a fifth of
// building it. Each function here follows encoding/json's scanner and
// unquote rules exactly (the fuzz targets in jsonstr_test.go and
// toolinput_test.go compare them with encoding/json):
//   - white space is space, tab, CR and LF only;
//   - a string may hold any byte >= 0x20 except an unescaped quote or
//     backslash; escapes are \" \\ \/ \b \f \n \r \t and \u with four hex
//     digits;
//   - decoding replaces each byte of invalid UTF-8 by U+FFFD, joins a
//     \u surrogate pair, and turns a \u surrogate that is not the first of
//     a valid pair into U+FFFD;
//   - numbers follow the JSON grammar, and nesting deeper than maxDepth is
//     an error.

// maxDepth is encoding/json's nesting limit (its scanner's
// maxNestingDepth).
const maxDepth = 10000

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString reads the string literal starting at the quote b[i]. It
// returns the index after the closing quote, whether the content can be
// used as it stands (no escape, valid UTF-8), and false for a malformed
// or unterminated literal.
//
// Runs of bytes that need no test (not a quote, a backslash or a control
// byte) are skipped eight at a time, their top bits or'ed into high for
// the ASCII test: the agent's tool inputs are mostly such runs (code in an
// Edit, a heredoc), and a byte at a time was the largest part of walking
// them.
func scanString(b []byte, i int) (end int, plain, ok bool) {
	plain, ascii := true, true
	var high uint64
	for j := i + 1; j < len(b); j++ {
		for j+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[j:])
			m := stringSpecial8(w)
			if m == 0 {
				high |= w
				j += 8
				continue
			}
			// The lowest bit set marks the first special byte exactly
			// (stringSpecial8); the bytes before it are plain.
			k := bits.TrailingZeros64(m) / 8
			high |= w & (1<<(8*k) - 1)
			j += k
			break
		}
		if j >= len(b) {
			break
		}
		switch c := b[j]; {
		case c == '"':
			if (!ascii || high&highBits != 0) && plain {
				plain = utf8.Valid(b[i+1 : j])
			}
			return j + 1, plain, true
		case c == '\\':
			plain = false
			j++
			if j >= len(b) {
				return 0, false, false
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if hex4(b[j+1:]) < 0 {
					return 0, false, false
				}
				j += 4
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return 0, false, false
}

// stringSpecial8 has the top bit of a byte of w set for the first byte
// that is a quote, a backslash or below 0x20, and is 0 when there is none.
// Bits above the first may be set too (a borrow runs upwards), never
// below it. Each test is the classic "has a byte less than n" (n <= 0x80:
// a byte >= 0x80 sets no bit of its own).
func stringSpecial8(w uint64) uint64 {
	const ones = 0x0101010101010101
	less := func(v uint64, n uint64) uint64 { return (v - ones*n) &^ v }
	return (less(w, 0x20) | less(w^ones*'"', 1) | less(w^ones*'\\', 1)) & highBits
}

// hex4 is the value of four hex digits at the start of b, or -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// stringValue decodes a literal scanString accepted (quotes included).
// A plain literal's content is returned as it stands, sharing b's memory
// when view is set (b must then stay unmodified while the string is used:
// corpus arguments and payloads never change).
func stringValue(lit []byte, plain, view bool) string {
	s := lit[1 : len(lit)-1]
	if plain {
		if view {
			return unsafe.String(unsafe.SliceData(s), len(s))
		}
		return string(s)
	}
	out := appendUnescaped(make([]byte, 0, len(s)), s)
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// appendUnescaped appends the decoded content s of a string literal that
// has escapes (scanString accepted it) to out.
func appendUnescaped(out, s []byte) []byte {
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			switch e := s[r+1]; e {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				rr := hex4(s[r+2:])
				r += 6
				if utf16.IsSurrogate(rr) {
					var rr1 rune = -1
					if r+1 < len(s) && s[r] == '\\' && s[r+1] == 'u' {
						rr1 = hex4(s[r+2:])
					}
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						out = utf8.AppendRune(out, dec)
						r += 6
						continue
					}
					rr = unicode.ReplacementChar
				}
				out = utf8.AppendRune(out, rr)
				continue
			default: // " \ /
				out = append(out, e)
			}
			r += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			out = utf8.AppendRune(out, rr)
			r += size
		}
	}
	return out
}

// scanNumber reads the number starting at b[i] (a '-' or a digit) by the
// JSON grammar and returns the index after it, or false.
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// numberFits reports whether a number decodes into a float64, as
// decoding it into an interface value requires (1e400 does not).
func numberFits(num []byte) bool {
	_, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(num), len(num)), 64)
	return err == nil
}

// scanLiteral reads true, false or null at b[i] and returns the index
// after it, or false.
func scanLiteral(b []byte, i int) (int, bool) {
	for _, w := range [...]string{"true", "false", "null"} {
		if len(b)-i >= len(w) && string(b[i:i+len(w)]) == w {
			return i + len(w), true
		}
	}
	return 0, false
}

// skipValue validates the value starting at b[i] (white space before it
// already skipped), depth containers deep, and returns the index after
// it, or false.
func skipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		end, _, ok := scanString(b, i)
		return end, ok
	case c == '-' || '0' <= c && c <= '9':
		return scanNumber(b, i)
	case c == '[' || c == '{':
		if depth+1 > maxDepth {
			return 0, false
		}
		close := byte(']')
		if c == '{' {
			close = '}'
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == close {
			return i + 1, true
		}
		for {
			var ok bool
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return 0, false
				}
				if i, _, ok = scanString(b, i); !ok {
					return 0, false
				}
				if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
					return 0, false
				}
				i = skipSpace(b, i+1)
			}
			if i, ok = skipValue(b, i, depth+1); !ok {
				return 0, false
			}
			if i = skipSpace(b, i); i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case ',':
				i = skipSpace(b, i+1)
			case close:
				return i + 1, true
			default:
				return 0, false
			}
		}
	}
	return scanLiteral(b, i)
}
