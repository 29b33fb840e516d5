package loss

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Thresholds of a content line. A line this long with this many letters
// and digits is specific to its file or output: shorter lines ("}",
// "return nil", "## Summary") recur across unrelated files and would make
// any quote look like a use. The values are the analyst's (cc-findings
// §4); changing them left every labelled outcome of the real logs the same.
const (
	minLineRunes = 40
	minLineAlnum = 20
)

// ContentLines calls fn with every content line of a tool result's text:
// each line with a leading line-number prefix removed (Claude Code's Read
// writes "    12→", cat -n and smith's read_file "    12\t") and
// surrounding white space trimmed, kept if it has at least minLineRunes
// characters of which at least minLineAlnum are letters or digits.
// A line that occurs in exactly one tool result of a session is that
// result's distinctive line (index.go counts them).
func ContentLines(text string, fn func(line string)) {
	candidateLines(text, func(ln string) {
		if contentLine(ln) {
			fn(ln)
		}
	})
}

// candidateLines calls fn with every line of text that could be a content
// line: stripped and trimmed, of at least minLineRunes bytes, without the
// letter count (the index runs it once per distinct line).
func candidateLines(text string, fn func(line string)) {
	// Stripping and trimming only shorten a line, and a line has at most
	// as many runes as bytes: most lines of code and prose are rejected
	// by their length without being looked at. The newlines are found 64
	// bytes at a time (newline.go).
	start := 0 // where the current line starts
	for base := 0; base < len(text); base += 64 {
		var m uint64
		if base+64 <= len(text) {
			m = newlines64(text[base:])
		} else {
			m = newlinesTail(text[base:])
		}
		for ; m != 0; m &= m - 1 {
			end := base + bits.TrailingZeros64(m)
			if end-start >= minLineRunes {
				if ln := trimSpace(stripLineNumber(text[start:end])); len(ln) >= minLineRunes {
					fn(ln)
				}
			}
			start = end + 1
		}
	}
	if len(text)-start >= minLineRunes {
		if ln := trimSpace(stripLineNumber(text[start:])); len(ln) >= minLineRunes {
			fn(ln)
		}
	}
}

// trimSpace is strings.TrimSpace, which is not inlined, behind a test
// that most lines pass: a line starting and ending with a printable ASCII
// byte has no white space to trim (every white space byte of ASCII is at
// most ' ', and Unicode's start at or above 0x80).
func trimSpace(s string) string {
	if n := len(s); n > 0 && s[0]-'!' < 0x80-'!' && s[n-1]-'!' < 0x80-'!' {
		return s
	}
	return strings.TrimSpace(s)
}

// stripLineNumber removes one leading "<spaces><digits>→" or
// "<spaces><digits><tab>" prefix.
func stripLineNumber(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return s
	}
	if rest, ok := strings.CutPrefix(s[j:], "→"); ok {
		return rest
	}
	if j < len(s) && s[j] == '\t' {
		return s[j+1:]
	}
	return s
}

// contentLine reports whether a trimmed line has minLineRunes characters
// (runes as utf8.DecodeRuneInString steps them: an invalid byte is one
// rune, and not a letter) of which minLineAlnum are letters or digits.
//
// Both counts only grow along the line, so the answer is "the whole line
// has enough of both", and any prefix that has enough decides it. That
// lets the scan count ASCII eight bytes at a time (a word that holds a
// multi-byte rune gives its ASCII bytes before it at once), why: this ran
// once per line of every tool result and was the largest single cost of
// a replay. It stops as soon as a prefix has enough or the bytes left
// cannot supply the letters still missing, and refuses a short non-ASCII
// line from a cheap rune count before classifying any rune.
func contentLine(s string) bool {
	if len(s) < minLineRunes { // runes <= bytes
		return false
	}
	runes, alnum := 0, 0
	counted := false // whether the rune count of the rest was checked
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			w := le64(s[i:])
			k := 8 // ASCII bytes at the start of the word
			if m := w & highBits; m != 0 {
				k = bits.TrailingZeros64(m) / 8
				w &= 1<<(8*k) - 1 // a zero byte is not a letter
			}
			alnum += asciiAlnum8(w)
			runes += k
			i += k
		} else if c := s[i]; c < utf8.RuneSelf {
			if isASCIIAlnum(c) {
				alnum++
			}
			runes++
			i++
		}
		for i < len(s) && s[i] >= utf8.RuneSelf { // a run of non-ASCII runes
			if !counted && len(s)-i < utf8.UTFMax*(minLineRunes-runes) {
				// Few enough bytes left that they may hold too few runes:
				// count them (no classes) before classifying any.
				counted = true
				if runes+leadBytes(s[i:]) < minLineRunes && runes+utf8.RuneCountInString(s[i:]) < minLineRunes {
					return false
				}
			}
			r, size := decodeRune(s[i:])
			if isAlnumRune(r) {
				alnum++
			}
			runes++
			i += size
			if runes >= minLineRunes && alnum >= minLineAlnum { // a long CJK line stops here
				return true
			}
		}
		if runes >= minLineRunes && alnum >= minLineAlnum {
			return true
		}
		if alnum+len(s)-i < minLineAlnum { // each byte left is at most one letter
			return false
		}
	}
	return false
}

// highBits has the top bit of every byte of a word: a word of ASCII has
// none of them set.
const highBits = 0x8080808080808080

// asciiAlnum8 counts the ASCII letters and digits of a word of eight
// ASCII bytes without a branch per byte. Adding 0x80-lo to a byte below
// 0x80 sets its top bit exactly when the byte is >= lo, and no sum carries
// into the next byte, so two additions test a range for all eight bytes
// at once; setting bit 0x20 folds A-Z onto a-z.
func asciiAlnum8(w uint64) int {
	const ones = 0x0101010101010101
	digit := (w + ones*(0x80-'0')) &^ (w + ones*(0x7f-'9'))
	l := w | ones*0x20
	letter := (l + ones*(0x80-'a')) &^ (l + ones*(0x7f-'z'))
	return bits.OnesCount64((digit | letter) & highBits)
}

// isASCIIAlnum reports whether an ASCII byte is a letter or a digit.
func isASCIIAlnum(c byte) bool {
	return (c|0x20)-'a' < 26 || c-'0' < 10
}

// isAlnumRune is unicode.IsLetter(r) || unicode.IsDigit(r), answering the
// large blocks that lines of CJK text, Hangul or box drawing are made of
// with a comparison instead of two table searches. Each range is uniform
// in the Unicode tables of this Go release; TestIsAlnumRune checks every
// rune, so an upgrade that changes one fails there.
func isAlnumRune(r rune) bool {
	switch {
	case r < 0x100: // Latin-1: the unicode package uses a direct table
	case r <= 0x2c1: // Latin Extended, IPA
		return true
	case 0x2185 <= r && r <= 0x2bff, 0x2e30 <= r && r <= 0x3004: // arrows, math, box drawing, shapes, symbols, CJK punctuation
		return false
	case 0x3041 <= r && r <= 0x3096, 0x30a1 <= r && r <= 0x30fa: // kana
		return true
	case 0x3400 <= r && r <= 0x4dbf, 0x4e00 <= r && r <= 0xa48c, 0xac00 <= r && r <= 0xd7a3: // CJK, Yi, Hangul
		return true
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// leadBytes counts the bytes of s that are not UTF-8 continuation bytes
// (10xxxxxx), eight at a time. Each rune utf8.DecodeRuneInString steps
// over holds at most one, so this is at most the rune count, and equal
// to it for valid UTF-8: when it already reaches the threshold the exact,
// slower count is not needed.
func leadBytes(s string) int {
	n := 0
	for ; len(s) >= 8; s = s[8:] {
		w := le64(s)
		n += 8 - bits.OnesCount64(w&^(w<<1)&highBits)
	}
	for i := 0; i < len(s); i++ {
		if s[i]&0xc0 != 0x80 {
			n++
		}
	}
	return n
}

// decodeRune is utf8.DecodeRuneInString with the three-byte sequences
// (CJK, kana, Hangul, box drawing, arrows) decoded inline: the library's
// out-of-line path was a quarter of the scan of such lines. A sequence
// is taken here only if it is valid (continuation bytes, not overlong,
// not a surrogate); anything else goes to the library.
func decodeRune(s string) (rune, int) {
	if len(s) >= 3 && s[0]&0xf0 == 0xe0 && s[1]&0xc0 == 0x80 && s[2]&0xc0 == 0x80 {
		r := rune(s[0]&0x0f)<<12 | rune(s[1]&0x3f)<<6 | rune(s[2]&0x3f)
		if r >= 0x800 && (r < 0xd800 || r > 0xdfff) {
			return r, 3
		}
	}
	return utf8.DecodeRuneInString(s)
}
