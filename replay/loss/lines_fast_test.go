package loss

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// oldContentLine is contentLine as it was before the word-at-a-time scan
// (commit 097cd3e): one rune at a time, every non-ASCII rune classified by
// the unicode tables. It is the oracle the fast version must agree with.
func oldContentLine(s string) bool {
	runes, alnum := 0, 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
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

// oldContentLines is ContentLines before the length pre-check, with the
// old classifier.
func oldContentLines(text string, fn func(line string)) {
	oldSplitLines(text, func(ln string) {
		ln = strings.TrimSpace(stripLineNumber(ln))
		if len(ln) >= minLineRunes && oldContentLine(ln) {
			fn(ln)
		}
	})
}

// TestIsAlnumRune checks the shortcut ranges against the unicode tables
// for every rune, and every ASCII byte against the byte and word tests.
func TestIsAlnumRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := unicode.IsLetter(r) || unicode.IsDigit(r)
		if got := isAlnumRune(r); got != want {
			t.Fatalf("isAlnumRune(%U) = %v, unicode says %v", r, got, want)
		}
	}
	for c := 0; c < utf8.RuneSelf; c++ {
		want := unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))
		if got := isASCIIAlnum(byte(c)); got != want {
			t.Errorf("isASCIIAlnum(%q) = %v", rune(c), got)
		}
		w := uint64(c) * 0x0101010101010101
		if n := asciiAlnum8(w); (n == 8) != want || (n != 0 && n != 8) {
			t.Errorf("asciiAlnum8(8 x %q) = %d", rune(c), n)
		}
	}
}

// contentLineSeeds are the edge cases: thresholds, words split by
// multi-byte runes, invalid UTF-8 (each bad byte is one non-letter rune),
// the shortcut ranges and their neighbours.
var contentLineSeeds = []string{
	strings.Repeat("a-", 20),
	strings.Repeat("a-", 19) + "--",
	strings.Repeat("a", 39),
	strings.Repeat("-", 40) + strings.Repeat("Z9", 10),
	strings.Repeat("-", 40) + strings.Repeat("Z9", 9) + "@",
	strings.Repeat("@[`{/:", 10),
	strings.Repeat("λ", 40),
	strings.Repeat("λ", 39),
	strings.Repeat("→", 20) + strings.Repeat("é", 19),
	strings.Repeat("─", 80),
	strings.Repeat("漢字", 19) + "x",
	strings.Repeat("漢字", 20),
	strings.Repeat("한", 40),
	strings.Repeat("\xff", 40) + strings.Repeat("a", 20),
	strings.Repeat("a", 20) + strings.Repeat("\xe2\x94", 30),
	strings.Repeat("abcdefg\xc3\xa9", 5),
	"\xf0\x9f\x98\x80" + strings.Repeat("x1", 20),
	"func main() { fmt.Println(\"hello, content line world\") }",
	"ⅰⅱⅲⅳⅴⅵⅶⅷⅸⅹ ① ② ③ ④ ⑤ ⑥ ⑦ ⑧ ⑨ ⑩ ⑪ ⑫ ⑬ ⑭ ⑮ ⑯ ⑰ ⑱ ⑲ ⑳ abc",
	"\u0085\u00a0   padded with unicode spaces and enough letters to count \u00a0",
}

func FuzzContentLine(f *testing.F) {
	for _, s := range contentLineSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := contentLine(s), oldContentLine(s); got != want {
			t.Fatalf("contentLine(%q) = %v, old gives %v", s, got, want)
		}
		// Whole texts: the same lines in the same order.
		text := s + "\n    12→" + s + "\n" + strings.ReplaceAll(s, "-", "\n")
		var got, want []string
		ContentLines(text, func(l string) { got = append(got, l) })
		oldContentLines(text, func(l string) { want = append(want, l) })
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Fatalf("ContentLines(%q) = %q, old gives %q", text, got, want)
		}
	})
}

// benchLines is a tool result mixing what the real logs and the
// synthetic corpus hold: numbered source lines, short lines, prose, CJK
// text, box drawing, a long JSON line, accented prose and test output
// with symbols.
func benchLines() string {
	var b strings.Builder
	for i := range 200 {
		switch i % 10 {
		case 8:
			b.WriteString("// Le résumé garde les décisions — pas le bruit, même après la compaction. 🚀\n")
		case 9:
			b.WriteString("\x1b[31m✗\x1b[0m keeps the pairing intact across a range of budgets (12.4 ms)\n")
		case 0, 1, 2:
			b.WriteString("    42→\tif err := json.Unmarshal(raw, &in); err != nil { return fmt.Errorf(\"decode: %w\", err) }\n")
		case 3:
			b.WriteString("}\n\treturn nil\n\n")
		case 4:
			b.WriteString("The replay reads every session once and keeps only what the policy needs later on.\n")
		case 5:
			b.WriteString("本文は日本語のテキストで、各行が四十文字以上あるかどうかを確認するための例文です。漢字とかなが混ざっています。\n")
		case 6:
			b.WriteString("├──────────────────────────────────────────────┤\n")
		case 7:
			b.WriteString(`{"id":"toolu_01","type":"tool_result","content":"` + strings.Repeat("abc ", 100) + "\"}\n")
		}
	}
	return b.String()
}

// BenchmarkContentLines compares the old and new line classifiers on the
// same text in one run (read the ratio; the machine is shared).
//
//	go test ./replay/loss -run '^$' -bench BenchmarkContentLines -cpu 1 -count 3
func BenchmarkContentLines(b *testing.B) {
	text := benchLines()
	for _, v := range []struct {
		name string
		fn   func(string, func(string))
	}{{"old", oldContentLines}, {"new", ContentLines}} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			n := 0
			for b.Loop() {
				v.fn(text, func(string) { n++ })
			}
		})
	}
}

// TestDecodeRune checks the inline three-byte decoder against the library
// on every three-byte string that starts with a three-byte lead.
func TestDecodeRune(t *testing.T) {
	for a := 0xe0; a <= 0xef; a++ {
		for b := range 256 {
			for c := range 256 {
				s := string([]byte{byte(a), byte(b), byte(c)})
				r, n := decodeRune(s)
				wr, wn := utf8.DecodeRuneInString(s)
				if r != wr || n != wn {
					t.Fatalf("decodeRune(%q) = %U %d, library %U %d", s, r, n, wr, wn)
				}
			}
		}
	}
}

// TestLeadBytes checks the lead-byte count against the rune count: equal
// on valid UTF-8, never above it on invalid.
func TestLeadBytes(t *testing.T) {
	for _, s := range contentLineSeeds {
		n, runes := leadBytes(s), utf8.RuneCountInString(s)
		if n > runes || utf8.ValidString(s) && n != runes {
			t.Errorf("leadBytes(%q) = %d, %d runes", s, n, runes)
		}
	}
}

// TestTrimSpace holds the shortcut to strings.TrimSpace with every byte,
// and Unicode's spaces, at either end of a line.
func TestTrimSpace(t *testing.T) {
	ends := []string{"\u0085", "\u00a0", "\u2028", "\u3000", "\xff", "\xc2"}
	for c := range 256 {
		ends = append(ends, string([]byte{byte(c)}))
	}
	for _, a := range ends {
		for _, b := range ends {
			for _, s := range []string{a + "mid" + b, a + b, a} {
				if got, want := trimSpace(s), strings.TrimSpace(s); got != want {
					t.Fatalf("trimSpace(%q) = %q, want %q", s, got, want)
				}
			}
		}
	}
}
