package jsonscan

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strings"
	"testing"
	"unicode/utf8"
)

// UTF8Len agrees with utf8.DecodeRune on every two-, three- and four-byte
// prefix shape, valid or not.
func TestUTF8LenMatchesDecodeRune(t *testing.T) {
	for c0 := 0x80; c0 <= 0xff; c0++ {
		for _, c1 := range []byte{0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0} {
			for _, tail := range []string{"", "\x80", "\x80\x80", "\x80\x80\x80", "a", "\x80a"} {
				b := append([]byte{byte(c0), c1}, tail...)
				want := 0
				if r, n := utf8.DecodeRune(b); r != utf8.RuneError || n > 1 {
					want = n
				}
				if got := UTF8Len(b); got != want {
					t.Errorf("UTF8Len(% x) = %d, want %d", b, got, want)
				}
				if got := UTF8Len(string(b)); got != want {
					t.Errorf("UTF8Len(string % x) = %d, want %d", b, got, want)
				}
			}
		}
	}
}

// StringEnd accepts exactly the strings encoding/json accepts, less those
// with invalid UTF-8 (the rule: calib rejects them), and finds the same end.
func TestStringEndMatchesEncodingJSON(t *testing.T) {
	bodies := []string{
		``, `plain`, `a\"b`, `\\`, `\\\"`, `\u00e9\n\t\/`, `\ud83d\ude00`, `\ud83d`, `\u12`, `\x`,
		"tab\there", "nl\nx", "caf\xc3\xa9", "bad\xe9utf8", "\xed\xa0\x80", "\xf0\x9f\x98\x80",
		strings.Repeat("long text ", 20) + `\"` + strings.Repeat("é", 30),
	}
	for _, body := range bodies {
		for _, tail := range []string{`"`, `"rest`, ``} {
			in := `"` + body + tail
			end, _, ok := StringEndIn(in, 1)
			var s string
			err := json.NewDecoder(strings.NewReader(in)).Decode(&s)
			want := err == nil && utf8.ValidString(body) && tail != ""
			if ok != want {
				t.Errorf("StringEnd(%q) ok=%v, want %v (encoding/json: %v)", in, ok, want, err)
				continue
			}
			if ok && end != 1+len(body) {
				t.Errorf("StringEnd(%q) = %d, want %d", in, end, 1+len(body))
			}
		}
	}
}

// NumberEnd accepts exactly JSON's numbers.
func TestNumberEndMatchesEncodingJSON(t *testing.T) {
	for _, n := range []string{"0", "-0", "12", "-", "01", "1.", "1.5", ".5", "1e", "1e+", "1E-7", "-12.5e10", "1x", "+1", "00"} {
		end, ok := NumberEnd(n, 0)
		want := json.Valid([]byte(n))
		if got := ok && end == len(n); got != want {
			t.Errorf("NumberEnd(%q) = %d, %v; encoding/json valid: %v", n, end, ok, want)
		}
	}
}

// Special's lowest flag marks the first byte that is '"', '\\', below 0x20
// or non-ASCII, and it is zero when there is none: the scanners rely on
// exactly that (the flags above the lowest may be borrows).
func TestSpecialLowestFlag(t *testing.T) {
	interesting := []byte{0, 0x1f, 0x20, 0x21, '"', 0x23, '\\', 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff, 'a'}
	words := [][8]byte{}
	for _, a := range interesting {
		for _, b := range interesting {
			for pos := range 7 {
				w := [8]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}
				w[pos], w[pos+1] = a, b
				words = append(words, w)
			}
		}
	}
	for _, w := range words {
		want := 8
		for k, c := range w {
			if c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
				want = k
				break
			}
		}
		got := 8
		if t := Special(binary.LittleEndian.Uint64(w[:])); t != 0 {
			got = bits.TrailingZeros64(t) >> 3
		}
		if got != want {
			t.Errorf("Special(% x): first flag at %d, want %d", w, got, want)
		}
	}
}

// specialBlocks (assembly on amd64) agrees with specialBlocksGo on every
// special byte at every position of every length, and on plain text.
func TestSpecialBlocksMatchesGo(t *testing.T) {
	for n := range 70 {
		for pos := -1; pos < n; pos++ {
			for _, c := range []byte{0, 0x1f, '"', '\\', 0x7f, 0x80, 0xa2, 0xdc, 0xff} {
				b := []byte(strings.Repeat("abcdefgh !#[]~", 6)[:n])
				if pos >= 0 {
					b[pos] = c
				}
				if got, want := specialBlocks(b), specialBlocksGo(b); got != want {
					t.Errorf("specialBlocks(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}

// ScalarEnd passes over a literal or a number and nothing else; what
// follows the value is the caller's to check, so "truex" ends after true.
func TestScalarEnd(t *testing.T) {
	for _, tt := range []struct {
		in  string
		i   int
		end int
		ok  bool
	}{
		{"true", 0, 4, true},
		{"false,", 0, 5, true},
		{"[null]", 1, 5, true},
		{"-1.5e3}", 0, 6, true},
		{"0", 0, 1, true},
		{"truex", 0, 4, true},
		{"tru", 0, 0, false},
		{"nul", 0, 0, false},
		{"-", 0, 0, false},
		{"01", 0, 1, true}, // a leading zero ends the number; the next byte is the caller's
		{"x", 0, 0, false},
		{`"s"`, 0, 0, false},
		{"", 0, 0, false},
		{"[", 1, 1, false},
	} {
		end, ok := ScalarEnd(tt.in, tt.i)
		bend, bok := ScalarEnd([]byte(tt.in), tt.i)
		if end != tt.end || ok != tt.ok || bend != end || bok != ok {
			t.Errorf("ScalarEnd(%q, %d) = %d %v (bytes: %d %v), want %d %v", tt.in, tt.i, end, ok, bend, bok, tt.end, tt.ok)
		}
	}
}
