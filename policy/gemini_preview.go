package policy

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Gemini CLI masks an old tool output to a snippet that keeps a preview of
// it (ToolOutputMaskingService, packages/core/src/context/
// toolOutputMaskingService.ts): the shell tool's output by its sections,
// ten head and ten tail lines of its Output; any other tool's response, as
// JSON.stringify(response, null, 2) writes it, by its first and last 250
// UTF-16 units. The clear stage's {preview} placeholder renders it, the
// response taken to be {"output": text}. A surrogate pair the cut splits
// becomes U+FFFD here, where JavaScript keeps the lone half.

// geminiPreview is the preview of a tool output text; shell selects the
// shell tool's (formatShellPreview) over the general one. The general one
// escapes only the 250 units it keeps at each end: a clear stage renders
// previews of outputs it only considers (writable), some of them large.
func geminiPreview(text string, shell bool) string {
	if shell {
		return geminiShellPreview(text)
	}
	const open, closing = "{\n  \"output\": \"", "\"\n}" // JSON.stringify(response, null, 2) around the text: 15 and 3 UTF-16 units
	if n := jsonUnits(text, 500); len(open)+n+len(closing) <= 500 {
		return open + jsonHead(text, n) + closing
	}
	return open + jsonHead(text, 250-len(open)) + "\n... [TRUNCATED] ...\n" + jsonTail(text, 250-len(closing)) + closing
}

// jsonUnits is the UTF-16 length of text as JSON.stringify escapes it (the
// quotes left out), counted up to just past limit.
func jsonUnits(text string, limit int) int {
	n := 0
	for _, r := range text {
		n += escapedUnits(r)
		if n > limit {
			break
		}
	}
	return n
}

// escapedUnits is the UTF-16 length of r as JSON.stringify writes it: the quote, the
// backslash and control characters escaped (\b \f \n \r \t by name, the others
// as \u00xx), nothing else (Go's encoders also escape <, >, & and U+2028/9).
func escapedUnits(r rune) int {
	switch {
	case r == '"' || r == '\\' || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20:
		return 6
	case r >= 0x10000:
		return 2
	}
	return 1
}

// jsonHead is the first n UTF-16 units of text escaped; an escape or a
// surrogate pair the cut splits is cut as JavaScript's slice cuts it (a
// split pair's half becomes U+FFFD).
func jsonHead(text string, n int) string {
	if len(text) >= n && plainJSON(text[:n]) {
		return text[:n] // one unit per byte, nothing escaped
	}
	units := make([]uint16, 0, n+6)
	for _, r := range text {
		if units = appendEscaped(units, r); len(units) >= n {
			break
		}
	}
	return string(utf16.Decode(units[:min(n, len(units))]))
}

// jsonTail is the last n UTF-16 units of text escaped, cut as jsonHead.
func jsonTail(text string, n int) string {
	if len(text) >= n && plainJSON(text[len(text)-n:]) {
		return text[len(text)-n:]
	}
	i, total := len(text), 0
	for i > 0 && total < n {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		i -= size
		total += escapedUnits(r)
	}
	units := make([]uint16, 0, total)
	for _, r := range text[i:] {
		units = appendEscaped(units, r)
	}
	return string(utf16.Decode(units[len(units)-min(n, len(units)):]))
}

// plainJSON reports whether s is ASCII that JSON.stringify writes as it is.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendEscaped appends r to u in UTF-16 units, as JSON.stringify writes it.
func appendEscaped(u []uint16, r rune) []uint16 {
	switch r {
	case '"', '\\':
		return append(u, '\\', uint16(r))
	case '\b':
		return append(u, '\\', 'b')
	case '\f':
		return append(u, '\\', 'f')
	case '\n':
		return append(u, '\\', 'n')
	case '\r':
		return append(u, '\\', 'r')
	case '\t':
		return append(u, '\\', 't')
	}
	if r < 0x20 {
		const hex = "0123456789abcdef"
		return append(u, '\\', 'u', '0', '0', uint16(hex[r>>4]), uint16(hex[r&0xf]))
	}
	return utf16.AppendRune(u, r)
}

// geminiSections are formatShellPreview's section names, in its regular
// expression's order: /^(Output|Error|Exit Code|Signal|Background
// PIDs|Process Group PGID): /m.
var geminiSections = []string{"Output", "Error", "Exit Code", "Signal", "Background PIDs", "Process Group PGID"}

// geminiShellPreview is formatShellPreview: the output split at each line
// that starts with a section name and ": ", the Output section and any
// text before the first section previewed by lines, the other sections
// kept whole; an output without sections is previewed by lines.
func geminiShellPreview(content string) string {
	var parts []string // JavaScript's split with the capturing group: text, name, text, name, ...
	last := 0
	section := func(i int) {
		for _, name := range geminiSections {
			if strings.HasPrefix(content[i:], name+": ") {
				parts = append(parts, content[last:i], name)
				last = i + len(name) + 2
				return
			}
		}
	}
	if strings.IndexByte(content, '\r') < 0 && !strings.Contains(content, "\u2028") && !strings.Contains(content, "\u2029") {
		// Lines start only after \n: found by the runtime's search.
		for i := 0; i < len(content); {
			section(i)
			j := strings.IndexByte(content[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
		}
	} else {
		for i := 0; i < len(content); {
			if i == 0 || lineStart(content, i) {
				section(i)
			}
			_, n := utf8.DecodeRuneInString(content[i:])
			i += n
		}
	}
	if len(parts) == 0 {
		return geminiSimplePreview(content)
	}
	parts = append(parts, content[last:])
	var out []string
	if t := jsTrim(parts[0]); t != "" {
		out = append(out, geminiSimplePreview(t))
	}
	for i := 1; i < len(parts); i += 2 {
		name, section := parts[i], jsTrim(parts[i+1])
		if name == "Output" {
			out = append(out, "Output: "+geminiSimplePreview(section))
		} else {
			out = append(out, name+": "+section)
		}
	}
	return strings.Join(out, "\n")
}

// lineStart reports whether byte i of s begins a line, as the m flag's ^
// matches: after \n, \r, U+2028 or U+2029.
func lineStart(s string, i int) bool {
	switch {
	case s[i-1] == '\n' || s[i-1] == '\r':
		return true
	case i >= 3 && (s[i-3:i] == "\u2028" || s[i-3:i] == "\u2029"):
		return true
	}
	return false
}

// geminiSimplePreview is formatSimplePreview: up to 20 lines whole, else
// the first and last 10 around a count of the lines left out.
func geminiSimplePreview(content string) string {
	lines := strings.Count(content, "\n") + 1
	if lines <= 20 {
		return content
	}
	head := 0 // the 10th \n
	for range 10 {
		head += strings.IndexByte(content[head:], '\n') + 1
	}
	tail := len(content) // just past the 10th \n from the end
	for range 10 {
		tail = strings.LastIndexByte(content[:tail], '\n')
	}
	return content[:head-1] + "\n\n... [" + strconv.Itoa(lines-20) + " lines omitted] ...\n\n" + content[tail+1:]
}

// jsTrim is String.prototype.trim: white space and line terminators, the
// byte order mark among them, off both ends.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
			return true
		}
		return 0x2000 <= r && r <= 0x200a
	})
}
