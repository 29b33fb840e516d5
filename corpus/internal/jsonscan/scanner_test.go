package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// Unescape decodes what StringEnd accepts as encoding/json does (a lone
// surrogate escape is U+FFFD).
func TestUnescapeMatchesEncodingJSON(t *testing.T) {
	for _, in := range []string{`a\nb\t\"c\\`, `\u00e9\ud83d\ude00`, `\ud83dx\n`, `\/\b\f\r`, "caf\xc3\xa9\\n"} {
		got, ok := Unescape([]byte(in))
		var want string
		if err := json.Unmarshal([]byte(`"`+in+`"`), &want); err != nil || !ok || got != want {
			t.Errorf("Unescape(%q) = %q, %v; encoding/json %q (%v)", in, got, ok, want, err)
		}
	}
	if _, ok := Unescape([]byte(`bad\q`)); ok {
		t.Error(`Unescape accepts \q`)
	}
}

// unescapeRef is Unescape written the plain way (a search and a copy
// call per escape): the reference FuzzUnescape checks it against.
func unescapeRef(raw []byte) (string, bool) {
	var out []byte
	for len(raw) > 0 {
		k := bytes.IndexByte(raw, '\\')
		if k < 0 {
			out = append(out, raw...)
			break
		}
		out = append(out, raw[:k]...)
		r, n := DecodeEscape(raw[k:])
		if n == 0 {
			return "", false
		}
		out = utf8.AppendRune(out, r)
		raw = raw[k+n:]
	}
	return string(out), true
}

// FuzzUnescape checks Unescape against unescapeRef on any bytes, and
// against encoding/json on the bodies StringEnd accepts.
func FuzzUnescape(f *testing.F) {
	f.Add([]byte(strings.Repeat(`\t 12→\tfmt.Println(\"héllo\")\n`, 5)))
	f.Add([]byte(`0123456\n01234567\\\u00e9\ud83d\ude00abcdefgh\ud83dx\/\b\f\r`))
	f.Add([]byte(`01234567abcdefgh\q`))
	f.Add([]byte(`01234567abcdef\u12`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := Unescape(raw)
		if want, wok := unescapeRef(raw); got != want || ok != wok {
			t.Fatalf("Unescape(%q) = %q, %v; want %q, %v", raw, got, ok, want, wok)
		}
		if end, _, valid := stringEndRef(append(raw[:len(raw):len(raw)], '"'), 0); !valid || end != len(raw) {
			return
		}
		var want string
		if err := json.Unmarshal([]byte(`"`+string(raw)+`"`), &want); err != nil || got != want {
			t.Errorf("Unescape(%q) = %q; encoding/json %q (%v)", raw, got, want, err)
		}
	})
}

func TestScannerInt(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{{"123", 123, true}, {"-4", -4, true}, {"null", 0, true}, {"1.5", 0, false}, {`"7"`, 0, false}}
	for _, tt := range tests {
		s := &Scanner{B: []byte(tt.in)}
		v, ok := s.Int()
		if v != tt.want || ok != tt.ok || !s.End() {
			t.Errorf("Int(%s) = %d, %v (err %v); want %d, %v", tt.in, v, ok, s.Err, tt.want, tt.ok)
		}
	}
}

// With Alias, Str returns a string without escapes as a view of B (clai's
// column strings are not copied again); without it, a copy (a reused line
// buffer would change it). An escaped string is decoded either way.
func TestScannerStrAlias(t *testing.T) {
	for _, tc := range []struct {
		in    string
		alias bool
		view  bool
	}{
		{`"abc"`, true, true},
		{`"abc"`, false, false},
		{`"a\nc"`, true, false},
		{`""`, true, false}, // empty: nothing to share
	} {
		b := []byte(tc.in)
		s := &Scanner{B: b, Alias: tc.alias}
		got, ok := s.Str()
		var want string
		if err := json.Unmarshal(b, &want); err != nil || !ok || got != want {
			t.Fatalf("%s alias %v: %q %v, want %q (%v)", tc.in, tc.alias, got, ok, want, err)
		}
		view := len(got) > 0 && unsafe.StringData(got) == &b[1]
		if view != tc.view {
			t.Errorf("%s alias %v: a view of B is %v, want %v", tc.in, tc.alias, view, tc.view)
		}
	}
}

// StrOrNullReusing reads what StrOrNull reads, one value after another
// with one last: a value equal to last is last itself (not a new copy),
// and an escaped body that spells last's text is decoded, not taken for it.
func TestStrOrNullReusing(t *testing.T) {
	var last string
	for _, tc := range []struct {
		in     string
		reused bool // the result is the string last held before
	}{
		{`"abc"`, false},
		{`"abc"`, true},
		{`"abd"`, false},
		{`null`, false},
		{`"abd"`, true}, // null leaves last alone
		{`"a\\nb"`, false},
		{`"a\nb"`, false}, // its raw bytes are last's text: a\nb with a backslash
		{`"a\nb"`, false}, // an escaped body is always decoded
		{`7`, false},
		{`"bad \x"`, false},
	} {
		s := &Scanner{B: []byte(tc.in)}
		before := last
		got := s.StrOrNullReusing(&last)
		s2 := &Scanner{B: []byte(tc.in)}
		if want := s2.StrOrNull(); got != want || (s.Err == nil) != (s2.Err == nil) {
			t.Fatalf("%s: %q (err %v), StrOrNull gives %q (err %v)", tc.in, got, s.Err, want, s2.Err)
		}
		reused := len(got) > 0 && len(before) > 0 && unsafe.StringData(got) == unsafe.StringData(before)
		if reused != tc.reused {
			t.Errorf("%s: reused %v, want %v", tc.in, reused, tc.reused)
		}
	}
}

// StrOrText reads a string or null as StrOrNull does, and a value of
// another kind as its JSON text; the scanner ends past the value.
func TestStrOrText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`"2026-02-01T10:00:00Z"`, "2026-02-01T10:00:00Z"},
		{`"a\"b"`, `a"b`},
		{`null`, ""},
		{`1770000000`, "1770000000"},
		{` true`, "true"},
		{`{"a": [1, 2]}`, `{"a": [1, 2]}`},
	} {
		s := &Scanner{B: []byte(tt.in + ",")}
		if got := s.StrOrText(); got != tt.want || s.Err != nil || s.B[s.I] != ',' {
			t.Errorf("StrOrText(%s) = %q at %d (err %v), want %q at the comma", tt.in, got, s.I, s.Err, tt.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("x", 39) + "é" // 'é' starts at byte 39 and ends past 40
	for _, tt := range []struct{ in, want string }{
		{"5", "5"},
		{"  {\"a\":1}\n", `{"a":1}`},
		{strings.Repeat("y", 40), strings.Repeat("y", 40)},
		{strings.Repeat("y", 41), strings.Repeat("y", 40) + "…"},
		{long + "zz", strings.Repeat("x", 39) + "…"},
	} {
		if got := Excerpt(tt.in); got != tt.want {
			t.Errorf("Excerpt(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
