package jsonscan

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
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

// special64 (assembly on amd64) and special64Go flag every special byte
// of every 64-byte block; special64Go may flag more (borrows), the
// assembly exactly those.
func TestSpecial64(t *testing.T) {
	for pos := -1; pos < 64; pos++ {
		for _, c := range []byte{0, 0x1f, '"', '\\', 0x7f, 0x80, 0xa2, 0xdc, 0xff} {
			b := []byte(strings.Repeat("abcdefgh !#[]~", 6)[:64])
			if pos >= 0 {
				b[pos] = c
			}
			checkSpecial64(t, b)
		}
	}
}

// FuzzSpecial64 checks both versions of the block classifier against the
// byte-by-byte rule on any 64 bytes.
func FuzzSpecial64(f *testing.F) {
	f.Add([]byte(strings.Repeat("a\\\"\x1f\xe2\x86\x92 ", 8)))
	f.Add([]byte(strings.Repeat(" !#[]~\x7f\x80", 8)))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 64 {
			b = append(b, make([]byte, 64-len(b))...)
		}
		checkSpecial64(t, b[:64])
	})
}

func checkSpecial64(t *testing.T, b []byte) {
	t.Helper()
	var want uint64
	for k, c := range b[:64] {
		if c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			want |= 1 << k
		}
	}
	if got := special64(b); got != want {
		t.Errorf("special64(%q) = %064b, want %064b", b, got, want)
	}
	if got := special64Go(b); got&want != want {
		t.Errorf("special64Go(%q) = %064b misses some of %064b", b, got, want)
	}
}

// stringEndRef is StringEnd's rule written the plain way, a byte or a
// sequence at a time: the reference FuzzStringEnd checks the word and
// block scans against.
func stringEndRef(b []byte, i int) (end int, escaped, ok bool) {
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			return i, escaped, true
		case c == '\\':
			escaped = true
			_, n := DecodeEscape(b[i:])
			if n == 0 {
				return 0, false, false
			}
			i += n
		case c < 0x20:
			return 0, false, false
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				return 0, false, false
			}
			i += n
		}
	}
	return 0, false, false
}

// FuzzStringEnd checks StringEnd against stringEndRef from every start of
// the first 80 bytes, so the word scan, the block scan and the hand-over
// between them (escapes and runes across a 64-byte block edge) all meet
// the input. Long seeds put specials at every offset of a block.
func FuzzStringEnd(f *testing.F) {
	line := "\t 12→\tfmt.Println(\\\"héllo\\\")\\n"
	f.Add([]byte(strings.Repeat(line, 12) + `"`))
	f.Add([]byte(strings.Repeat("ab\\u00e9\\ud83d\\ude00\xf0\x9f\x98\x80\xed\x9f\xbf", 10) + `"x`))
	f.Add([]byte(strings.Repeat("x", 70) + "\xe2\x86" + strings.Repeat("y", 70) + `"`))
	f.Add([]byte(strings.Repeat("x", 100) + "\\q" + strings.Repeat("y", 70) + `"`))
	f.Add([]byte(strings.Repeat("x", 100) + "\x1f" + strings.Repeat("y", 70) + `"`))
	f.Add([]byte(strings.Repeat("x", 100) + "\xed\xa0\x80" + strings.Repeat("y", 70) + `"`))
	f.Add([]byte(strings.Repeat("\\\\", 50) + `\"` + strings.Repeat("y", 70)))
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b) && i < 80; i++ {
			end, esc, ok := StringEnd(b, i)
			wend, wesc, wok := stringEndRef(b, i)
			if end != wend || esc != wesc || ok != wok {
				t.Fatalf("StringEnd(%q, %d) = %d %v %v, want %d %v %v", b, i, end, esc, ok, wend, wesc, wok)
			}
		}
	})
}

// Every seed of FuzzStringEnd at every shift: each special byte and
// sequence meets each offset of a 64-byte block, and the block edge.
func TestStringEndShifts(t *testing.T) {
	pieces := []string{`\n`, `\"`, `\\`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, "→", "é", "\xf0\x9f\x98\x80",
		"\xe0\xa0\x80", "\xed\x9f\xbf", "\xe2\x86", "\xed\xa0\x80", "\xc0\x80", "\xff", "\x1f", `\q`, `\u12g4`, `"`}
	for _, p := range pieces {
		for shift := range 140 {
			b := []byte(strings.Repeat("a", shift) + p + strings.Repeat("b", 70) + `"` + strings.Repeat("c", 70))
			for _, i := range []int{0, 1, 17} {
				end, esc, ok := StringEnd(b, i)
				wend, wesc, wok := stringEndRef(b, i)
				if end != wend || esc != wesc || ok != wok {
					t.Fatalf("StringEnd(%q, %d) = %d %v %v, want %d %v %v", b, i, end, esc, ok, wend, wesc, wok)
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

// StringEnd against stringEndRef on many random strings drawn from the
// pieces that matter to the block scan (backslash runs of every parity
// across block edges, escaped and closing quotes, \u escapes, runes,
// control bytes), at a few densities: a fixed seed, so a failure repeats.
func TestStringEndRandom(t *testing.T) {
	pieces := []string{"a", "bcdefgh", `\`, `\\`, `"`, `\"`, `\n`, `\t`, `\/`, `\u0022`, `\ud83d\ude00`, `\x`,
		"→", "é", "\xf0\x9f\x98\x80", "\xe2\x86", "\xc3", "\x1f", "\x7f", "n", "u", "/"}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 40000
	if testing.Short() {
		n = 4000
	}
	for range n {
		plain := 1 + rng.IntN(30) // how many plain pieces per special one
		var sb strings.Builder
		for sb.Len() < 64+rng.IntN(200) {
			if rng.IntN(plain) == 0 {
				sb.WriteString(pieces[2+rng.IntN(len(pieces)-2)])
			} else {
				sb.WriteString(pieces[rng.IntN(2)])
			}
		}
		b := []byte(sb.String())
		for _, i := range []int{0, 1, 5, 17} {
			end, esc, ok := StringEnd(b, i)
			wend, wesc, wok := stringEndRef(b, i)
			if end != wend || esc != wesc || ok != wok {
				t.Fatalf("StringEnd(%q, %d) = %d %v %v, want %d %v %v", b, i, end, esc, ok, wend, wesc, wok)
			}
		}
	}
}
