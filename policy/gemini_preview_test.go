package policy

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/calib-dev/calib/corpus"
)

// TestGeminiPreview holds {preview} to ToolOutputMaskingService's
// formatShellPreview, formatSimplePreview and its general head and tail,
// worked by hand from the TypeScript (google-gemini/gemini-cli
// packages/core/src/context/toolOutputMaskingService.ts).
func TestGeminiPreview(t *testing.T) {
	lines := func(from, to int) string {
		var out []string
		for i := from; i <= to; i++ {
			out = append(out, fmt.Sprintf("l%d", i))
		}
		return strings.Join(out, "\n")
	}
	// 15 + 400 + 1 + 2 + 2 + 2 + 6 + 100 + 3 = 531 UTF-16 units as JSON.
	long := strings.Repeat("a", 400) + "é\"\n\t\x01" + strings.Repeat("z", 100)
	for _, tt := range []struct {
		name  string
		text  string
		shell bool
		want  string
	}{
		{"short output, JSON whole", "ok\n", false, "{\n  \"output\": \"ok\\n\"\n}"},
		{"JavaScript's escapes, nothing more", "a\"\\\x01\b\f\r\t</>&é😀\u2028", false,
			"{\n  \"output\": \"a\\\"\\\\\\u0001\\b\\f\\r\\t</>&é😀\u2028\"\n}"},
		{"JSON over 500 units: 250 and 250", long, false,
			"{\n  \"output\": \"" + strings.Repeat("a", 235) + "\n... [TRUNCATED] ...\n" +
				strings.Repeat("a", 134) + "é\\\"\\n\\t\\u0001" + strings.Repeat("z", 100) + "\"\n}"},
		{"shell without sections, 20 lines whole", lines(1, 20), true, lines(1, 20)},
		{"shell without sections, 21 lines", lines(1, 21), true,
			lines(1, 10) + "\n\n... [1 lines omitted] ...\n\n" + lines(12, 21)},
		{"shell sections: Output by lines, the others whole, text before trimmed", "Command: ls\nDirectory: .\nOutput: " + lines(1, 25) + "\n\nError: (none)\nExit Code: 1\n",
			true, "Command: ls\nDirectory: .\nOutput: " + lines(1, 10) + "\n\n... [5 lines omitted] ...\n\n" + lines(16, 25) + "\nError: (none)\nExit Code: 1"},
		{"a section name not at a line start is text", "see Output: x", true, "see Output: x"},
		{"a section at the start", "Exit Code: 0", true, "Exit Code: 0"},
	} {
		if got := geminiPreview(tt.text, tt.shell); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestGeminiMasksLikeToolOutputMaskingService: the gemini-cli preset's mask
// as ToolOutputMaskingService.mask does it on the history before a request
// (GeminiClient.processTurn): the outputs being sent stay whole, the
// newest 50,000 tool tokens before them are protected, the output that
// crosses that line and every older one are masked (30,000 tokens or more
// in all), an exempt tool's output never; each becomes the snippet with
// its preview, by lines for the shell tool, by 250 + 250 characters of
// its JSON for the others. Nothing protects the user turn as such: all of
// this is one turn.
func TestGeminiMasksLikeToolOutputMaskingService(t *testing.T) {
	p := presetPolicy(t, "gemini-cli", map[string]string{"cap.max": "100000000"})
	shellOut := strings.Repeat(strings.Repeat("s", 839)+"\n", 100) // 84,000 chars, 100 lines
	h := []corpus.Message{puser("u", "go")}
	h = append(h, step("c1", "read_file", chars4Text(20_000))...)
	h = append(h, step("c2", "Bash", shellOut)...)
	h = append(h, step("c3", "activate_skill", chars4Text(20_000))...)
	h = append(h, step("c4", "read_file", chars4Text(30_000))...)
	h = append(h, step("c5", "read_file", chars4Text(30_000))...) // being sent
	o := p.Compact(h, sums(p, h))
	if len(o.Stages) != 1 || o.Stages[0].Name != "mask" {
		t.Fatalf("stages %+v, want the mask alone", o.Stages)
	}
	got := presults(o.History)
	snippet := func(preview, id string) string {
		return "<tool_output_masked>\n" + preview + "\n\nOutput too large. Full output available at: ~/.gemini/tmp/tool-outputs/" + id + ".txt\n</tool_output_masked>"
	}
	lines := strings.Split(shellOut, "\n") // 101: the last is empty
	want := []string{
		// 15 units of JSON, then 235 of the text; 247 of the text, then 3.
		snippet("{\n  \"output\": \""+strings.Repeat("abcd", 58)+"abc\n... [TRUNCATED] ...\n"+"bcd"+strings.Repeat("abcd", 61)+"\"\n}", "c1"),
		snippet(strings.Join(lines[:10], "\n")+"\n\n... [81 lines omitted] ...\n\n"+strings.Join(lines[91:], "\n"), "c2"),
		chars4Text(20_000), chars4Text(30_000), chars4Text(30_000),
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d: %.200q…\nwant %.200q…", i+1, got[i], want[i])
		}
	}
	// Without c1, only c2's 21,000 tokens are past the protection: under
	// the 30,000 a mask needs, nothing is masked.
	h = append(h[:1:1], h[3:]...)
	if o := p.Compact(h, sums(p, h)); o.Strategy != None {
		t.Errorf("masked %+v with 21,000 prunable tokens", o.Stages)
	}
}

// naiveGeminiPreview is the TypeScript transliterated without shortcuts:
// the whole JSON built and cut, every line split, every position tried.
func naiveGeminiPreview(text string, shell bool) string {
	simple := func(content string) string {
		lines := strings.Split(content, "\n")
		if len(lines) <= 20 {
			return content
		}
		return strings.Join(lines[:10], "\n") + fmt.Sprintf("\n\n... [%d lines omitted] ...\n\n", len(lines)-20) + strings.Join(lines[len(lines)-10:], "\n")
	}
	if !shell {
		var esc []uint16
		for _, r := range text {
			esc = appendEscaped(esc, r)
		}
		u := append(append(utf16.Encode([]rune("{\n  \"output\": \"")), esc...), utf16.Encode([]rune("\"\n}"))...)
		if len(u) <= 500 {
			return string(utf16.Decode(u))
		}
		return string(utf16.Decode(u[:250])) + "\n... [TRUNCATED] ...\n" + string(utf16.Decode(u[len(u)-250:]))
	}
	var parts []string
	last := 0
	for i := 0; i < len(text); i++ {
		if i > 0 && !lineStart(text, i) {
			continue
		}
		for _, name := range geminiSections {
			if strings.HasPrefix(text[i:], name+": ") {
				parts = append(parts, text[last:i], name)
				last = i + len(name) + 2
				break
			}
		}
	}
	if len(parts) == 0 {
		return simple(text)
	}
	parts = append(parts, text[last:])
	var out []string
	if t := jsTrim(parts[0]); t != "" {
		out = append(out, simple(t))
	}
	for i := 1; i < len(parts); i += 2 {
		if parts[i] == "Output" {
			out = append(out, "Output: "+simple(jsTrim(parts[i+1])))
		} else {
			out = append(out, parts[i]+": "+jsTrim(parts[i+1]))
		}
	}
	return strings.Join(out, "\n")
}

// TestGeminiPreviewMatchesTheNaiveOne: on random outputs of every kind of
// character the preview cares about, the shortcuts change nothing.
func TestGeminiPreviewMatchesTheNaiveOne(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	pieces := []string{"a", "xyz ", "\n", "\r\n", "\r", "\u2028", "\"", "\\", "\t", "\x01", "é", "😀", "Output: ", "Error: ", "Exit Code: ", "Signal: ", "Output:", " Output: "}
	for n := range 3000 {
		var b strings.Builder
		for range r.IntN(1 + n%400) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		for _, shell := range []bool{false, true} {
			if got, want := geminiPreview(text, shell), naiveGeminiPreview(text, shell); got != want {
				t.Fatalf("shell %v, %q:\n got %q\nwant %q", shell, text, got, want)
			}
		}
	}
}
