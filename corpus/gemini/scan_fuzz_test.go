package gemini

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// The oracle: how the reader decoded with encoding/json before scan.go,
// kept here to check the scanner against.

func messageJSON(raw []byte) (message, error) {
	var m message
	err := json.Unmarshal(raw, &m)
	return m, err
}

// partsOracle is parts as it was: the list in one pass, else element by
// element (strings as text).
func partsOracle(raw []byte) ([]part, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if raw[0] == '[' {
		var out []part
		if json.Unmarshal(raw, &out) == nil {
			return out, nil
		}
	}
	elems := []json.RawMessage{raw}
	if raw[0] == '[' {
		elems = nil
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, err
		}
	}
	out := make([]part, len(elems))
	for i, e := range elems {
		if len(e) > 0 && e[0] == '"' {
			var s string
			if err := json.Unmarshal(e, &s); err != nil {
				return nil, err
			}
			out[i].Text = &s
			continue
		}
		if err := json.Unmarshal(e, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func resultOracle(response []byte) (output, errText *string, ok bool) {
	var r struct {
		Output *string `json:"output"`
		Error  *string `json:"error"`
	}
	ok = json.Unmarshal(response, &r) == nil
	return r.Output, r.Error, ok
}

// checkScan checks every scanner decoder on in against the oracle: where
// the scanner decodes, it decodes exactly what encoding/json decodes (and
// where it declines, the reader asks encoding/json, so the two agree on
// every input). It returns whether scanMessage decoded in.
func checkScan(t *testing.T, in []byte) bool {
	t.Helper()
	if got, want := jsonscan.Valid(in), json.Valid(in); got != want {
		t.Fatalf("valid(%q) = %v, json.Valid %v", in, got, want)
	}
	var m message
	scanned := scanMessage(in, &m)
	ref, err := messageJSON(in)
	if scanned {
		if err != nil {
			t.Fatalf("scanMessage decodes %q, encoding/json fails: %v", in, err)
		}
		if !reflect.DeepEqual(m, ref) {
			t.Fatalf("scanMessage(%q) =\n%+v\nencoding/json:\n%+v", in, m, ref)
		}
	}
	raws := [][]byte{in}
	if err == nil {
		raws = append(raws, ref.Content)
		for _, tc := range ref.ToolCalls {
			raws = append(raws, tc.Result)
		}
	}
	for _, raw := range raws {
		checkParts(t, raw)
	}
	if err == nil && len(ref.Tokens) > 0 && string(ref.Tokens) != "null" {
		checkTokens(t, ref.Tokens)
	}
	return scanned
}

// checkTokens holds scanTokens to encoding/json: where it decodes, it
// decodes what json.Unmarshal does.
func checkTokens(t *testing.T, raw []byte) {
	t.Helper()
	var got, want tokens
	if !scanTokens(raw, &got) {
		return
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("scanTokens decodes %q, encoding/json fails: %v", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("scanTokens(%q) = %+v, encoding/json %+v", raw, got, want)
	}
}

func checkParts(t *testing.T, raw []byte) {
	t.Helper()
	want, werr := partsOracle(raw)
	got, gerr := parts(raw)
	if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) || !reflect.DeepEqual(got, want) {
		t.Fatalf("parts(%q) = %+v, %v; encoding/json %+v, %v", raw, got, gerr, want, werr)
	}
	responses := [][]byte{raw}
	for _, p := range want {
		if p.FunctionResponse != nil {
			responses = append(responses, p.FunctionResponse.Response)
		}
	}
	for _, r := range responses {
		out, errText, ok, sure := scanResult(r)
		if !sure {
			continue
		}
		wout, werr, wok := resultOracle(r)
		if ok != wok || (ok && (!reflect.DeepEqual(out, wout) || !reflect.DeepEqual(errText, werr))) {
			t.Fatalf("scanResult(%q) = %v %v %v; encoding/json %v %v %v", r, out, errText, ok, wout, werr, wok)
		}
	}
}

// fixtureLines are the testdata chats' lines, seeds for FuzzScan.
func fixtureLines(tb testing.TB) [][]byte {
	var out [][]byte
	for _, name := range []string{"session-2026-01-05T09-00-0a1b2c3d.jsonl", "session-2025-09-01T10-00-11111111.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, bytes.Split(b, []byte{'\n'})...)
	}
	return out
}

// The scanner, not the fallback, decodes the records the recorder writes:
// the differential test below is not passing because it always declines.
func TestScanDecodesFixtureMessages(t *testing.T) {
	n := 0
	for _, line := range fixtureLines(t) {
		if _, ok := leadingID(line); !ok {
			continue
		}
		n++
		if !checkScan(t, line) {
			t.Errorf("scanMessage declines %s", line)
		}
	}
	if n < 5 {
		t.Fatalf("only %d message lines in the fixtures", n)
	}
}

// encoding/json rejects nesting deeper than 10,000 and the scanner has no
// limit: the guard keeps them in agreement on both sides of the limit. (Not
// fuzz seeds: minimizing a 20 KB input takes the fuzzer minutes.)
func TestScanAgreesAtDepthLimit(t *testing.T) {
	for _, depth := range []int{jsonscan.MaxDepth - 2, jsonscan.MaxDepth - 1, jsonscan.MaxDepth, jsonscan.MaxDepth + 1} {
		nest := string(bytes.Repeat([]byte{'['}, depth)) + string(bytes.Repeat([]byte{']'}, depth))
		for _, in := range []string{`{"a":` + nest + `}`, `{"content":` + nest + `}`, nest, `{"content":{"functionResponse":{"response":{"x":` + nest + `}}}}`} {
			checkScan(t, []byte(in))
		}
	}
}

// FuzzScan is the differential test of scan.go against encoding/json.
// Seeds: the fixtures' lines and the cases where the scanner must decline
// (type errors, keys in other case or given twice, invalid UTF-8).
func FuzzScan(f *testing.F) {
	for _, line := range fixtureLines(f) {
		f.Add(line)
	}
	for _, s := range []string{
		`{"id":"g","type":"gemini","content":[{"text":"a","thought":true},null,"s",{"functionCall":{"id":"c","name":"n","args":{"x":[1,2]}}}],"toolCalls":[null,{"id":"c","name":"n","args":null,"result":[{"functionResponse":{"id":"c","response":{"output":"o\u00e9\ud83d\ude00","error":null}}}],"status":"success"}],"thoughts":[],"tokens":{"input":1,"output":-2,"cached":null}}`,
		`{"type":"user","TYPE":"gemini","content":"x"}`,
		`{"type":"user","type":"gemini"}`,
		`{"tokens":{"input":1.5}}`,
		`{"tokens":{"input":99999999999999999999}}`,
		`{"tokens":{"input":"many","output":1}}`,
		`{"tokens":[1]}`,
		`{"tokens":{"Input":3,"input":4}}`,
		`{"timestamp":5,"type":"user"}`,
		`{"content":[{"text":"a","inlinedata":{}}]}`,
		`{"content":[1]}`,
		`{"content":{"functionResponse":{"response":{"output":5}}}}`,
		`{"content":{"functionResponse":{"response":{"OUTPUT":"x"}}}}`,
		`{"content":{"functionResponse":{"response":"str"}}}`,
		"{\"content\":\"\xff\"}",
		`{"typ\u0065":"user","modeL":"m"}`,
		`{"toolCalls":{}}`,
		`{"thoughts":[{"subject":"s","description":null}]}`,
		`{"type":"user"} x`,
		`{"content":[{"thought":null,"text":"t"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkScan(t, in)
	})
}
