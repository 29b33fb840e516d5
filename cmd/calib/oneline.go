package main

import (
	"strconv"
	"strings"
)

// oneLine keeps a message that quotes a log (a tool call id, a session
// id) on its line: control characters (C0 but tab, DEL, C1) are written as
// Go escapes (\n, \x1b, \u009b). A log whose tool call id held "\n::error::" printed a line that
// GitHub Actions read as a workflow command, and an escape sequence
// would reach the terminal. A message without them comes back as it is.
func oneLine(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f || c == 0xc2 { // 0xc2 starts a C1 control, and other runes
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
