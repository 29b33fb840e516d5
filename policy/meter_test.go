package policy

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus"
)

func TestMeters(t *testing.T) {
	text := "Running the specs. 312 examples, 1 failures"
	blocks := []corpus.Block{
		{Kind: corpus.KindText, Text: text},
		{Kind: corpus.KindToolUse, ToolCallID: "toolu_01", ToolName: "bash", Args: []byte(`{"command":"crystal spec"}`)},
		{Kind: corpus.KindThinking, Text: "hm", Signature: "ErUBCkYIARgCIkDx"},
		{Kind: corpus.KindImage, MediaType: "image/png"},
	}
	m := corpus.Message{Role: corpus.RoleAssistant, Blocks: blocks}
	opt := MeterOptions{Signatures: true, ImageTokens: 1600, DocumentTokens: 5000}
	cases := []struct {
		meter  string
		units  int64
		tokens int
	}{
		// 43 + (26+4) + (2+16) + 1600×4 bytes
		{MeterBytes4, 43 + 30 + 18 + 6400, (43 + 30 + 18 + 6400) / 4},
		// per block: round(43/4)=11, round(30/4)=8 (7.5 up), round(18/4)=5 (4.5 up), 1600
		{MeterChars4, 11 + 8 + 5 + 1600, 11 + 8 + 5 + 1600},
	}
	for _, c := range cases {
		mt, err := NewMeter(c.meter, opt)
		if err != nil {
			t.Fatal(err)
		}
		if u := mt.Message(&m); u != c.units || mt.Tokens(u) != c.tokens {
			t.Errorf("%s: %d units, %d tokens; want %d, %d", c.meter, u, mt.Tokens(u), c.units, c.tokens)
		}
	}
	if _, err := NewMeter("gpt2", opt); err == nil || err.Error() != `unknown meter "gpt2" (valid: bytes4|o200k|chars4)` {
		t.Fatalf("unknown meter: %v", err)
	}
}

func TestMeterChars4CountsUTF16(t *testing.T) {
	mt, _ := NewMeter(MeterChars4, MeterOptions{})
	// 8 ideographs (24 bytes, 8 code units) and 2 emoji (8 bytes, 4 code units)
	b := corpus.Block{Kind: corpus.KindText, Text: "日本語のテキスト😀😀"}
	if got := mt.Block(&b); got != 3 {
		t.Fatalf("chars4 = %d, want round(12/4) = 3", got)
	}
	by, _ := NewMeter(MeterBytes4, MeterOptions{})
	if got := by.Block(&b); got != 32 {
		t.Fatalf("bytes = %d, want 32", got)
	}
}

func TestMeterO200k(t *testing.T) {
	mt, err := NewMeter(MeterO200k, MeterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	short := corpus.Block{Kind: corpus.KindText, Text: "hello world"}
	if got := mt.Block(&short); got != 2 {
		t.Fatalf("o200k(hello world) = %d, want 2", got)
	}
	long := corpus.Block{Kind: corpus.KindText, Text: strings.Repeat("hello world ", 100)}
	first := mt.Block(&long)
	if first < 150 || first > 250 {
		t.Fatalf("o200k of 100 × 'hello world ' = %d", first)
	}
	// memoized, and safe for concurrent use by sweep workers
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if got := mt.Block(&long); got != first {
					t.Errorf("memoized count %d != %d", got, first)
					return
				}
			}
		}()
	}
	wg.Wait()
	// a different string of the same length at another address is counted afresh
	other := corpus.Block{Kind: corpus.KindText, Text: strings.Repeat("x", len(long.Text))}
	if mt.Block(&other) == first {
		t.Fatal("memo confused two strings of the same length")
	}
}

func TestPoliciesWithOtherMeters(t *testing.T) {
	for _, meter := range []string{MeterO200k, MeterChars4} {
		p := staged(t, "max_tokens=40000,meter="+meter)
		o := compact(t, p, conversation(8, 20000)) // "xxxx…" is few BPE tokens; chars4 ≈ bytes4 here
		if meter == MeterChars4 && o.Strategy != Truncated {
			t.Fatalf("chars4: %s", o.Strategy)
		}
		if meter == MeterO200k && o.Strategy != None {
			t.Fatalf("o200k: a run of x is a handful of tokens, got %s at %d", o.Strategy, o.BeforeTokens)
		}
		compact(t, legacy(t, "max_tokens=1000,meter="+meter), conversation(10, 6000))
	}
}

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
