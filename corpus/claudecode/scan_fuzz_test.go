package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCCDecodeLine checks the Claude Code line scanner against
// encoding/json on any input: it rejects every line that is not a valid
// JSON object (and, by jsonscan's rule, every line with invalid UTF-8),
// accepts every other one, and where encoding/json decodes the line into the same types
// it decodes the same values. Two things encoding/json does that the
// scanner does not are left out of the value comparison: matching a key
// case-insensitively ("TYPE" for "type") and merging duplicate keys;
// Claude Code writes neither. Its seeds (the fixtures' lines and the cases
// below) run in every `go test`.
func FuzzCCDecodeLine(f *testing.F) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, p := range fixtures {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, b := range bytes.Split(data, []byte("\n")) {
			if len(b) > 0 {
				f.Add(b)
			}
		}
	}
	for _, s := range []string{
		`{"type":"user","x":"\q"}`, `{"type":"user","x":01}`, `{"type":"user","x":-}`, `{"type":"user","x":1.}`,
		`{"type":"user","x":"tab` + "\t" + `"}`, "{\"type\":\"user\",\"x\":\"caf\xe9\"}", `{"t\u0079pe":"user"}`,
		`{"type":"user","x":[1,2e5,-0.5,true,null,{"a":"\ud83d\ude00"}]}`, `{"type":1}`, `{"TYPE":"user"}`,
		`{"type":"user","type":"assistant"}`, `{"message":{"content":[{"type":"text","text":"hi"}]}}`,
		// message.content the line scan cannot decode (scanContent reads
		// it again as raw): other shapes, and invalid JSON inside it.
		`{"type":"user","message":{"content":5}}`, `{"message":{"content":[1]}}`, `{"message":{"content":[{"source":"x"}]}}`,
		`{"message":{"content":[{"type":"tool_result","content":{"a":1}}]}}`,
		`{"message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"nested"}]}]}}`,
		`{"message":{"content":[{"type":"text","text":"bad \q"}]}}`, `{"message":{"content":[{"type":"text"} {}]}}`,
		`{"message":{"content":nul}}`, `{"message":{"content":null}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// Decoded twice with one ccRecent: the second time, every field
		// whose value it kept is reused, not copied.
		var recent ccRecent
		var got ccLine
		gerr := ccDecodeLine(b, &got, &recent)
		if again := ccDecodeLine(b, &got, &recent); (again == nil) != (gerr == nil) {
			t.Fatalf("%q: error %v, decoded again %v", b, gerr, again)
		}
		// Decoding message.content in the line scan changes nothing the
		// plain scan (content kept raw) decides: the same error, the same
		// line, the same content bytes, which ccContent decodes alike.
		var plain ccLine
		perr := decodeLine(b, &plain, &ccRecent{}, false)
		if fmt.Sprint(perr) != fmt.Sprint(gerr) {
			t.Fatalf("%q: error %v, plain scan's %v", b, gerr, perr)
		}
		if gerr == nil {
			scanned := got
			if got.Message != nil {
				m := *got.Message
				checkScanned(t, "fuzz", 1, m.Content, m.content, true)
				m.content = ccValue{}
				scanned.Message = &m
			}
			if !reflect.DeepEqual(scanned, plain) {
				t.Fatalf("%q: line %+v, plain scan's %+v", b, scanned, plain)
			}
		}
		// A line is a record: an object.
		valid := json.Valid(b) && utf8.Valid(b) && bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("{"))
		if valid != (gerr == nil) {
			t.Fatalf("%q: a valid JSON object in UTF-8: %v, scanner error: %v", b, valid, gerr)
		}
		var want ccLine
		if !valid || json.Unmarshal(b, &want) != nil || !plainKeys(b) {
			return
		}
		if want.Message != nil && got.Message != nil && !shaped(want.Message.Content) {
			// Content that is neither a string nor a list of blocks is
			// compared as raw bytes only (compareLine decodes it).
			if !bytes.Equal(want.Message.Content, got.Message.Content) {
				t.Fatalf("%q: content %q, want %q", b, got.Message.Content, want.Message.Content)
			}
			want.Message.Content, got.Message.Content = nil, nil
			got.Message.content = ccValue{}
		}
		compareLine(t, "fuzz", 1, want, got)
	})
}

// shaped reports whether content is what Claude Code writes: a string, or
// a list of blocks whose own content is shaped too.
func shaped(raw []byte) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return true
	}
	var blocks []ccBlock
	if json.Unmarshal(raw, &blocks) != nil || blocks == nil {
		return false
	}
	for _, bl := range blocks {
		if len(bl.Content) > 0 && !shaped(bl.Content) {
			return false
		}
	}
	return true
}

// knownKeys are the keys the scanner reads: the json tags of the line types.
func knownKeys() map[string]bool {
	keys := map[string]bool{}
	var walk func(reflect.Type)
	walk = func(rt reflect.Type) {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice {
			rt = rt.Elem()
		}
		if rt.Kind() != reflect.Struct || keys["type:"+rt.Name()] {
			return
		}
		keys["type:"+rt.Name()] = true
		for i := range rt.NumField() {
			if tag, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ","); tag != "" && tag != "-" {
				keys[tag] = true
			}
			walk(rt.Field(i).Type)
		}
	}
	walk(reflect.TypeFor[ccLine]())
	walk(reflect.TypeFor[ccBlock]())
	return keys
}

// plainKeys reports whether no object of the (valid) line has two keys
// that fold to the same name and no key is a case variant of a known key.
func plainKeys(b []byte) bool {
	known := knownKeys()
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		object bool
		keys   map[string]bool
		atKey  bool
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return true
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, frame{object: true, keys: map[string]bool{}, atKey: true})
				continue
			case '[':
				stack = append(stack, frame{})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		} else if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].atKey {
			k := strings.ToLower(tok.(string))
			if stack[n-1].keys[k] {
				return false
			}
			stack[n-1].keys[k] = true
			for name := range known {
				if name != tok.(string) && strings.EqualFold(name, tok.(string)) {
					return false
				}
			}
			stack[n-1].atKey = false
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].atKey = true
		}
	}
}
