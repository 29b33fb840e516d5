package policy

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// oldUTF16Len is utf16Len as it was before the word-at-a-time loop
// (commit 097cd3e): the oracle the fast version must agree with.
func oldUTF16Len(s string) int64 {
	n := int64(0)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			n += 2 // a surrogate pair
		} else {
			n++
		}
	}
	return n
}

// FuzzUTF16Len checks the fast length against the old one on any bytes,
// invalid UTF-8 included. The seeds put multi-byte and invalid sequences
// across word boundaries.
func FuzzUTF16Len(f *testing.F) {
	for _, s := range []string{
		"", "a", "abcdefg", "abcdefgh", "abcdefghi",
		"abcdefg\xc3\xa9xyz", "abcdef\xe2\x94\x80", "abcdefgh\xf0\x9f\x98\x80abcdefgh",
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7", "abcdefg\xf0\x9f\x98", "\xed\xa0\x80 surrogate half",
		"\xf4\x90\x80\x80 above U+10FFFF", strings.Repeat("漢", 9), strings.Repeat("😀", 5) + "tail",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := utf16Len(s), oldUTF16Len(s); got != want {
			t.Fatalf("utf16Len(%q) = %d, old gives %d", s, got, want)
		}
	})
}

// BenchmarkUTF16Len compares the old and new lengths in one run on a
// JSON tool argument (ASCII), source code with a few non-ASCII runes,
// and CJK text (read the ratios; the machine is shared).
//
//	go test ./policy -run '^$' -bench BenchmarkUTF16Len -cpu 1 -count 3
func BenchmarkUTF16Len(b *testing.B) {
	inputs := []struct{ name, s string }{
		{"ascii", strings.Repeat(`{"file_path":"/home/u/proj/src/main.go","offset":120,"limit":400} `, 200)},
		{"code", strings.Repeat("    42→\tfmt.Println(\"héllo, wörld\") // prints a greeting\n", 200)},
		{"cjk", strings.Repeat("本文は日本語のテキストです。", 200)},
	}
	for _, in := range inputs {
		for _, v := range []struct {
			name string
			fn   func(string) int64
		}{{"old", oldUTF16Len}, {"new", utf16Len}} {
			b.Run(in.name+"/"+v.name, func(b *testing.B) {
				b.SetBytes(int64(len(in.s)))
				var n int64
				for b.Loop() {
					n += v.fn(in.s)
				}
			})
		}
	}
}

// TestBMPSeq checks the inline sequence test against the library on every
// three-byte string with a non-ASCII first byte.
func TestBMPSeq(t *testing.T) {
	for a := 0x80; a <= 0xff; a++ {
		for b := range 256 {
			for c := range 256 {
				s := string([]byte{byte(a), byte(b), byte(c)})
				r, size := utf8.DecodeRuneInString(s)
				want := 0
				if size > 1 && r < 0x10000 { // size 1: an invalid byte
					want = size
				}
				if got := bmpSeq(s); got != want {
					t.Fatalf("bmpSeq(%q) = %d, want %d", s, got, want)
				}
			}
		}
	}
}
