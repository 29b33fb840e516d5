package report

import (
	"strconv"
	"strings"
)

// EscapeControls writes the control characters of s (C0 but tab, DEL,
// C1) as Go escapes (\n, \x1b, \u009b), so that text quoted from a log (a
// tool call id, a session id) cannot end a line or reach the terminal as
// an escape sequence: a tool call id holding "\n::error::" printed a
// stderr line GitHub Actions reads as a workflow command, and a session id
// holding "\x1b[31m" coloured the rest of a text table. A string without
// them comes back as it is.
func EscapeControls(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f || c == 0xc2 { // 0xc2 starts a C1 control (and other runes)
			return escapeControls(s)
		}
	}
	return s
}

func escapeControls(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < ' ' && r != '\t' || r >= 0x7f && r < 0xa0 {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
