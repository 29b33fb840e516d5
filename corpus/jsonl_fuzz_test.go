package corpus

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
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
