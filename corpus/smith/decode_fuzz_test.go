package smith

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// specLines are the example lines of smith.md §1.3, plus the two fixtures
// it names.
var specLines = []string{
	`{"role":"user","content":[{"type":"text","text":"Run the specs and fix whatever fails"}],"synthetic":false,"id":"3f9a0c51d2e87b46"}`,
	`{"role":"assistant","content":[{"type":"thinking","text":"Run the suite first.","signature":"ErUBCkYIARgCIkDx3s+Signature/Bytes=="},{"type":"text","text":"Running the specs."},{"type":"tool_use","tool_call_id":"toolu_01XyZ","tool_name":"bash","tool_args":{"command":"crystal spec"}}],"synthetic":false,"id":"a1b2c3d4e5f60718"}`,
	`{"role":"tool","content":[{"type":"tool_result","text":"312 examples, 1 failures\n…","tool_call_id":"toolu_01XyZ","is_error":false}],"synthetic":false,"id":"0badc0ffee123456"}`,
	`{"role":"assistant","content":[{"type":"redacted_thinking","text":"EncryptedPayload=="},{"type":"text","text":"Fixed."}],"synthetic":false,"id":"77e1d0c2b9a84f10"}`,
	`{"role":"user","content":[{"type":"text","text":"Your previous response was cut off at the output token limit. Continue exactly where you left off. Do not repeat what you already wrote and do not start over."}],"synthetic":true,"id":"5c0e9b1a2d3f4e6a"}`,
	`{"role":"user","content":[{"type":"text","text":"what is wrong here?"},{"type":"image","media_type":"image/png","source":"shot.png","media_ref":"9c56…64hex"}],"synthetic":false,"id":"…"}`,
	`{"role":"tool","content":[{"type":"tool_result","text":"Attached 'shot.png' as image/png (3 B).","tool_call_id":"p1","is_error":false},{"type":"image","tool_call_id":"p1","media_type":"image/png","source":"shot.png"}],"synthetic":false,"id":"…"}`,
	`{"role":"assistant","content":[{"type":"text","text":"hi"}]}`,
	`{"role":"assistant","content":[{"type":`,
}

// edgeLines exercise what the fast decoder must agree with encoding/json
// on, or hand over to it.
var edgeLines = []string{
	`{"role":"tool","content":[{"type":"tool_result","text":"a\"b\\c\/d\b\f\n\r\t\u00e9\u2028\ud83d\ude80\ud800x\udc00\u0000","tool_call_id":"t","is_error":true}]}`,
	`  { "role" : "assistant" , "content" : [ { "type" : "tool_use" , "tool_call_id" : "c" , "tool_name" : "read_file" , "tool_args" : { "path" : "a\nb" , "n" : [1, -2.5e+3, true, null, {}] } } ] , "id" : null , "synthetic" : null }  `,
	`{"role":"assistant","content":[{"type":"tool_use","tool_args":null}]}`,
	`{"role":"assistant","content":[{"type":"video","text":"x\ny","extra":{"a":[1,2]}}]}`,
	`{"role":"assistant","content":[{"text":"no type"}]}`,
	`{"role":"assistant","content":[null]}`,
	`{"role":"assistant","content":null}`,
	`{"role":"assistant"}`,
	`{"ROLE":"assistant","Content":[]}`,
	`{"role":"user","role":"assistant","content":[]}`,
	`{"role":"user","content":[],"timestamp":"2026-08-08T15:06:02Z","n":12}`,
	`{"role":"user","content":[{"type":"Tool_Use","tool_name":"x"}]}`,
	`{"role":5,"content":[]}`,
	`{"role":"user","content":"hello"}`,
	`{"role":"user","content":[5]}`,
	`{"role":"user","content":[{"type":"text","is_error":"no"}]}`,
	`{"role":"user","content":[{"type":"text","text":"x"}]} trailing`,
	`["role","user"]`,
	`{"role":"user","content":[{"type":"text","text":"bad \x escape"}]}`,
	`{"role":"user","content":[{"type":"text","text":"ctl ` + "\x01" + `"}]}`,
	`{"role":"user","content":[{"type":"text","text":"x"}],"synthetic":1}`,
	`{"role":"user","content":[],"n":01}`,
	`{"role":"user","content":[],"n":-}`,
	`{"role":"user","content":[],"n":1.}`,
	`{"role":"user","content":[],"ſynthetic":true}`,
	`{"role":"user","content":[],"id":"\u0041"}`,
	`{}`,
	``,
	`null`,
	// Skipped values nested to jsonscan.MaxDepth and past it (encoding/json's
	// limit): the first is served, the second declined.
	`{"role":"user","content":[],"n":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `}`,
	`{"role":"user","content":[],"n":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
}

// decodeBoth decodes line with the fast decoder and with encoding/json,
// each on its own copy (the fast one unescapes in place).
func decodeBoth(line []byte) (fast smithLine, fastOK bool, std smithLine, stdErr error) {
	var d lineDecoder
	fastOK = d.decode(append([]byte(nil), line...), &fast)
	stdErr = decodeSmithLineStd(append([]byte(nil), line...), &std)
	return
}

func checkAgree(t *testing.T, line []byte) {
	t.Helper()
	if !utf8.Valid(line) {
		return // the reader rejects such lines before decoding
	}
	orig := append([]byte(nil), line...)
	var d lineDecoder
	var fast smithLine
	buf := append([]byte(nil), line...)
	fastOK := d.decode(buf, &fast)
	if !fastOK && !bytes.Equal(buf, orig) {
		t.Fatalf("fast decoder declined %q but modified it", orig)
	}
	var std smithLine
	stdErr := decodeSmithLineStd(append([]byte(nil), line...), &std)
	if fastOK && stdErr != nil {
		t.Fatalf("fast decoder accepted %q, encoding/json rejects it: %v", orig, stdErr)
	}
	if fastOK && !reflect.DeepEqual(fast, std) {
		t.Fatalf("decoders disagree on %q:\nfast %#v\nstd  %#v", orig, fast, std)
	}
}

func FuzzSmithLine(f *testing.F) {
	for _, l := range specLines {
		f.Add([]byte(l))
	}
	for _, l := range edgeLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkAgree(t, line)
	})
}

// TestFastDecoderHandlesTheCommonShapes makes sure the fast path is the one
// that runs on smith's own lines (a decoder that always declined would pass
// the agreement check and be slow).
func TestFastDecoderHandlesTheCommonShapes(t *testing.T) {
	for _, l := range append(specLines[:8:8], edgeLines[0], edgeLines[1], edgeLines[2], edgeLines[3], edgeLines[10], edgeLines[11]) {
		fast, ok, std, err := decodeBoth([]byte(l))
		if !ok {
			t.Errorf("fast decoder declined %s", l)
			continue
		}
		if err != nil || !reflect.DeepEqual(fast, std) {
			t.Errorf("%s:\nfast %#v\nstd  %#v (%v)", l, fast, std, err)
		}
	}
}

func TestFastDecoderDeclinesWhatEncodingJSONMustDecide(t *testing.T) {
	for _, l := range []string{
		`{"ROLE":"assistant","Content":[]}`,                 // case-insensitive match
		`{"role":"user","role":"assistant","content":[]}`,   // duplicate key
		`{"role":"assistant","content":[null]}`,             // null block
		`{"role":"user","content":[],"ſynthetic":true}`,     // Unicode case folding
		`{"role":"user","content":"hello"}`,                 // wrong type
		`{"role":"user","content":[{"type":"text","text":}`, // syntax
	} {
		var d lineDecoder
		var out smithLine
		if d.decode([]byte(l), &out) {
			t.Errorf("fast decoder accepted %s; encoding/json must decide it", l)
		}
	}
}

func TestUnescapeMatchesEncodingJSON(t *testing.T) {
	for _, body := range []string{`plain`, `a\nb`, `\ud83d\ude80`, `\ud800`, `\ud800\u0041`, `\udc00\ud800`,
		`\ud83dx`, `\u00e9\u20ac`, `\\\"\/`, strings.Repeat(`x\t`, 1000)} {
		checkAgree(t, []byte(`{"role":"user","content":[{"type":"text","text":"`+body+`"}]}`))
	}
}

// TestDecodersAgreeOnGeneratedLines is the differential test: thousands of
// structured lines (keys in any order, whitespace, every escape, nested
// tool_args, unknown keys and block types), each also with one byte cut or
// changed, must decode identically with the fast decoder and encoding/json.
func TestDecodersAgreeOnGeneratedLines(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	frags := []string{"plain text ", `\n`, `\t`, `\"`, `\\`, `\/`, `\b\f\r`, `\u00e9`, `\u20AC`, `\ud83d\ude80`,
		`\ud800`, `\udc00x`, `\u0000`, "é", "—", "日本", "🚀", "'", "{", "]", ":", ","}
	str := func() string {
		var sb strings.Builder
		sb.WriteByte('"')
		for n := r.IntN(12); n > 0; n-- {
			sb.WriteString(frags[r.IntN(len(frags))])
		}
		sb.WriteByte('"')
		return sb.String()
	}
	ws := func() string { return []string{"", "", "", " ", "\t", " \r "}[r.IntN(6)] }
	var value func(depth int) string
	value = func(depth int) string {
		switch k := r.IntN(8); {
		case k == 0 && depth < 4:
			return "{" + ws() + str() + ws() + ":" + ws() + value(depth+1) + ws() + "}"
		case k == 1 && depth < 4:
			return "[" + value(depth+1) + "," + ws() + value(depth+1) + "]"
		case k == 2:
			return []string{"0", "-1", "3.25", "1e9", "-0.5E-3", "12"}[r.IntN(6)]
		case k == 3:
			return []string{"true", "false", "null"}[r.IntN(3)]
		}
		return str()
	}
	obj := func(members []string) string {
		r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		return "{" + ws() + strings.Join(members, ws()+","+ws()) + ws() + "}"
	}
	member := func(k, v string) string { return `"` + k + `"` + ws() + ":" + ws() + v }
	block := func() string {
		typ := []string{`"text"`, `"tool_use"`, `"tool_result"`, `"thinking"`, `"redacted_thinking"`, `"image"`,
			`"document"`, `"Tool_Use"`, `"video"`, `null`}[r.IntN(10)]
		ms := []string{member("type", typ)}
		for _, k := range []string{"text", "tool_call_id", "tool_name", "signature", "media_type", "source", "media_ref"} {
			if r.IntN(2) == 0 {
				ms = append(ms, member(k, str()))
			}
		}
		if r.IntN(2) == 0 {
			ms = append(ms, member("tool_args", value(0)))
		}
		if r.IntN(2) == 0 {
			ms = append(ms, member("is_error", []string{"true", "false", "null"}[r.IntN(3)]))
		}
		if r.IntN(5) == 0 {
			ms = append(ms, member("extra", value(0)))
		}
		return obj(ms)
	}
	for range 3000 {
		var blocks []string
		for n := r.IntN(4); n > 0; n-- {
			blocks = append(blocks, block())
		}
		ms := []string{member("role", []string{`"user"`, `"assistant"`, `"tool"`, `null`}[r.IntN(4)]),
			member("content", "["+strings.Join(blocks, ","+ws())+"]")}
		if r.IntN(2) == 0 {
			ms = append(ms, member("synthetic", []string{"true", "false", "null"}[r.IntN(3)]))
		}
		if r.IntN(2) == 0 {
			ms = append(ms, member("id", str()))
		}
		line := []byte(ws() + obj(ms) + ws())
		checkAgree(t, line)
		var fast smithLine
		var d lineDecoder
		if !d.decode(append([]byte(nil), line...), &fast) && !bytes.Contains(line, []byte("null")) &&
			!bytes.Contains(line, []byte(`"Tool_Use"`)) {
			// Only nulls in odd places may send a valid line to encoding/json.
			if err := decodeSmithLineStd(line, &fast); err == nil {
				t.Errorf("fast decoder declined a valid line: %s", line)
			}
		}
		// One byte cut or changed: usually invalid, sometimes still valid.
		i := r.IntN(len(line))
		checkAgree(t, append(append([]byte(nil), line[:i]...), line[i+1:]...))
		mut := append([]byte(nil), line...)
		mut[i] = "\"\\{}[],:0n \x01\xff"[r.IntN(13)]
		checkAgree(t, mut)
	}
}

func TestUTF8Len(t *testing.T) {
	for _, s := range []string{"é", "—", "日", "🚀", "\u0800", "\uffff", "\U0010ffff", "\xc0\x80", "\xc2", "\xe0\x80\x80",
		"\xed\xa0\x80", "\xe2\x82", "\xf4\x90\x80\x80", "\xff", "\x80", "\xdf\xbf", "\xef\xbf\xbf", "\xe1\x80\xc0"} {
		want := 0
		if r, size := utf8.DecodeRuneInString(s); !(r == utf8.RuneError && size <= 1) {
			want = size
		}
		if got := jsonscan.UTF8Len([]byte(s)); got != want {
			t.Errorf("jsonscan.UTF8Len(%q) = %d, want %d", s, got, want)
		}
	}
}

// A value the decoder skips is skipped by jsonscan.Scanner, which nests as
// deep as encoding/json does and no deeper: the fast path serves a line at
// the limit and declines one past it (which encoding/json rejects).
func TestSkippedValueDepth(t *testing.T) {
	for _, tc := range []struct {
		line string
		fast bool
	}{
		{edgeLines[len(edgeLines)-2], true},
		{edgeLines[len(edgeLines)-1], false},
	} {
		fast, ok, _, stdErr := decodeBoth([]byte(tc.line))
		if ok != tc.fast || (stdErr == nil) != tc.fast {
			t.Errorf("%d bytes: fast %v (%+v), encoding/json error %v; want fast %v", len(tc.line), ok, fast, stdErr, tc.fast)
		}
	}
}
