package jsonscan

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzDecodeString holds DecodeString to the two passes it stands for,
// StringEnd then Unescape: the same verdict, end and text (or, past the
// limit, a text that is indeed longer); and a Scanner's Str with Scratch to
// one without: the same string, position and error.
func FuzzDecodeString(f *testing.F) {
	f.Add([]byte(strings.Repeat(`\t 12→\tfmt.Println(\"héllo\")\n`, 5)+`" tail`), uint8(255))
	f.Add([]byte(`0123456\n01234567\\\u00e9\ud83d\ude00abcdefgh\ud83dx\/\b\f\r"`), uint8(10))
	f.Add([]byte(`01234567abcdefgh\q"`), uint8(200))
	f.Add([]byte(`01234567abcdef\u12"`), uint8(200))
	f.Add([]byte("tab\there\""), uint8(200))
	f.Add([]byte("caf\xe9 au lait\""), uint8(200))
	f.Add([]byte(`no end \"`), uint8(200))
	f.Add([]byte(`0123456789abcdef0123456789"`), uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, limit uint8) {
		text, end, ok, long := DecodeString([]byte("junk"), b, 0, int(limit))
		wend, wesc, wok := StringEnd(b, 0)
		want := ""
		if wok {
			want = string(b[:wend])
			if wesc {
				want, _ = Unescape(b[:wend])
			}
		}
		switch {
		case long:
			if text != nil || end != 0 || ok || (wok && len(want) <= int(limit)) {
				t.Fatalf("%q, limit %d: long, with %q %d %v; two passes: %q, %v", b, limit, text, end, ok, want, wok)
			}
		case ok != wok || (ok && (end != wend || string(text) != want)) || (!ok && (text != nil || end != 0)):
			t.Fatalf("%q, limit %d: %q, %d, %v; two passes: %q, %d, %v", b, limit, text, end, ok, want, wend, wok)
		}

		in := append([]byte(`"`), b...)
		plain := &Scanner{B: in}
		pv, pok := plain.Str()
		var scratch []byte
		fused := &Scanner{B: in, Scratch: &scratch}
		fv, fok := fused.Str()
		if pv != fv || pok != fok || plain.I != fused.I || fmt.Sprint(plain.Err) != fmt.Sprint(fused.Err) {
			t.Fatalf("%q: Str with Scratch %q %v at %d (%v), without %q %v at %d (%v)",
				in, fv, fok, fused.I, fused.Err, pv, pok, plain.I, plain.Err)
		}
	})
}
