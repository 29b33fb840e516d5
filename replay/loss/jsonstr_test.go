package loss

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// oldForEachString is forEachString as it was before the direct walker
// (commit 097cd3e), walking json.Decoder tokens: the oracle the walker
// must agree with, malformed input included.
func oldForEachString(raw []byte, fn func(string)) {
	if len(raw) == 0 {
		return
	}
	d := json.NewDecoder(strings.NewReader(string(raw)))
	inObject := []bool{}
	expectKey := false
	for {
		t, err := d.Token()
		if err != nil {
			return
		}
		switch v := t.(type) {
		case json.Delim:
			switch v {
			case '{':
				inObject = append(inObject, true)
				expectKey = true
			case '[':
				inObject = append(inObject, false)
				expectKey = false
			default:
				inObject = inObject[:len(inObject)-1]
				expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
			}
			continue
		case string:
			if !expectKey {
				fn(v)
			}
		}
		if len(inObject) > 0 && inObject[len(inObject)-1] {
			expectKey = !expectKey
		}
	}
}

// jsonSeeds are documents the walkers must agree on: valid ones, streams
// of several values, and each kind of error at a point where strings have
// already been delivered.
var jsonSeeds = []string{
	`{"a":"x","b":{"c":["y",1,"z"],"d":null},"e":"w"}`,
	`"top" "level" {"k":"v"} ["a"]`,
	`{}{}[]"x"01"y"truefalse"z"`,
	`["a" "b"]`, `["a",]`, `{"a":"b",}`, `{"a" "b"}`, `{"a":"b"}}"lost"`, `["a"]]"lost"`,
	`["ok", 1e400, "after"]`, `["ok", 1e-400, "after"]`, `["ok", -, "x"]`, `["ok", 1., "x"]`, `["ok", .5]`,
	`["ok", tru]`, `["ok", truex]`, `["ok", nul`, `{"k":"v", 1:2}`, `{"k":"v" : "w"}`,
	`["esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \ud83d \ude00 \ud83dx \ud83d\u0041"]`,
	`["bad \x escape", "after"]`, `["bad \u12G4", "after"]`, "[\"ctl \x01\", \"after\"]",
	"[\"invalid \xff\xfe utf8 \xed\xa0\x80\", \"ok\"]", `["unterminated`, `["a", "b"`,
	` [ "ws" , { "k" : "v" } ] `, "\ufeff[\"bom\"]", `[[[[["deep"]]]]]`, `{"k":{"k":"v"},"k2":["v2"]}`,
	`"\u0000"`, `[-0, -0.5e+3, 0E1, "n"]`, `["x"] , ["y"]`, `: "x"`,
}

func FuzzForEachString(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var got, reused, want []string
		forEachString(raw, nil, func(s string) { got = append(got, s) })
		var scratch []byte
		forEachString(raw, &scratch, func(s string) { reused = append(reused, strings.Clone(s)) })
		oldForEachString(raw, func(s string) { want = append(want, s) })
		if !slices.Equal(got, want) {
			t.Fatalf("forEachString(%q) = %q, old gives %q", raw, got, want)
		}
		if !slices.Equal(reused, want) {
			t.Fatalf("forEachString(%q) with a scratch buffer = %q, old gives %q", raw, reused, want)
		}
	})
}

func TestForEachStringSeeds(t *testing.T) {
	// The seeds run as part of FuzzForEachString; this pins a few results
	// so that a wrong oracle cannot hide a wrong walker.
	cases := []struct {
		raw  string
		want []string
	}{
		{`{}{}[]"x"01"y"truefalse"z"`, []string{"x", "y", "z"}},
		{`["ok", 1e400, "after"]`, []string{"ok"}},
		{`{"a":"b"}}"lost"`, []string{"b"}},
		{`["\ud83d\ude00 \ud83dx \ud83d\u0041"]`, []string{"😀 \ufffdx \ufffdA"}},
		{"[\"\xff\"]", []string{"\ufffd"}},
	}
	for _, tc := range cases {
		var got []string
		forEachString([]byte(tc.raw), nil, func(s string) { got = append(got, s) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("forEachString(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

// BenchmarkForEachString compares the walker with the decoder-based
// version on a clai-like structured payload in one run.
//
//	go test ./replay/loss -run '^$' -bench BenchmarkForEachString -cpu 1 -count 3
func BenchmarkForEachString(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"results":[`)
	for i := range 100 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"path":"/home/u/proj/src/file.go","line":120,"text":"\tif err != nil {\n\t\treturn fmt.Errorf(\"read %s: %w\", p, err)\n\t}","score":0.93,"ok":true}`)
	}
	sb.WriteString(`],"summary":"100 matches in 1 file"}`)
	raw := []byte(sb.String())
	for _, v := range []struct {
		name string
		fn   func([]byte, func(string))
	}{{"old", oldForEachString}, {"new", func(raw []byte, fn func(string)) { forEachString(raw, nil, fn) }},
		{"scratch", func(raw []byte, fn func(string)) { var buf []byte; forEachString(raw, &buf, fn) }}} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				v.fn(raw, func(s string) { n += len(s) })
			}
		})
	}
}

// oldScanString is scanString a byte at a time, as it was before the
// eight-byte skip: the oracle of FuzzScanString.
func oldScanString(b []byte, i int) (end int, plain, ok bool) {
	plain, ascii := true, true
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			if !ascii && plain {
				plain = utf8.Valid(b[i+1 : j])
			}
			return j + 1, plain, true
		case c == '\\':
			plain = false
			j++
			if j >= len(b) {
				return 0, false, false
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if hex4(b[j+1:]) < 0 {
					return 0, false, false
				}
				j += 4
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return 0, false, false
}

// FuzzScanString holds scanString to the byte-at-a-time oracle on a
// literal starting at every quote of the input, specials falling at every
// place in a word.
func FuzzScanString(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add(s)
	}
	for k := range 9 {
		pad := strings.Repeat("a", k)
		for _, tail := range []string{`"`, `\"x"`, "\x1f\"", "é\"", "\xff\"", `\u00e9"`, `\`, "\x7f\x80\"", "\"\x00"} {
			f.Add(`"` + pad + tail + strings.Repeat("b", 9) + `"`)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		for i := range b {
			if b[i] != '"' {
				continue
			}
			e1, p1, ok1 := scanString(b, i)
			e2, p2, ok2 := oldScanString(b, i)
			if e1 != e2 || p1 != p2 || ok1 != ok2 {
				t.Fatalf("scanString(%q, %d) = %d, %v, %v; old gives %d, %v, %v", s, i, e1, p1, ok1, e2, p2, ok2)
			}
		}
	})
}
