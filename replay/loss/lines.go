package loss

import (
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
	for len(text) > 0 {
		ln := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			ln, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		ln = strings.TrimSpace(stripLineNumber(ln))
		if len(ln) < minLineRunes || !contentLine(ln) {
			continue
		}
		fn(ln)
	}
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
// of which minLineAlnum are letters or digits. It stops as soon as both
// hold, so a long line (minified JSON, a base64 blob) costs its first few
// dozen bytes, not its length.
func contentLine(s string) bool {
	runes, alnum := 0, 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf { // ASCII, the common case, without decoding
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				alnum++
			}
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				alnum++
			}
			i += size
		}
		runes++
		if runes >= minLineRunes && alnum >= minLineAlnum {
			return true
		}
	}
	return false
}
