package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// oldWriteJSON is the WriteJSON that marshalIndent replaced, kept as the
// oracle: encoding/json's Encoder with HTML escaping off and two-space
// indent.
func oldWriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indentUnit)
	return enc.Encode(v)
}

func encoderIndent(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	if err := oldWriteJSON(&buf, v); err != nil {
		t.Fatalf("Encoder.Encode(%#v): %v", v, err)
	}
	return buf.Bytes()
}

// checkSame fails unless WriteJSON writes exactly the oracle's bytes for v.
func checkSame(t testing.TB, v any) {
	t.Helper()
	want := encoderIndent(t, v)
	var got bytes.Buffer
	if err := WriteJSON(&got, v); err != nil {
		t.Fatalf("WriteJSON(%#v): %v", v, err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("WriteJSON(%#v) =\n%q\nEncoder with SetIndent =\n%q", v, got.Bytes(), want)
	}
}

// rawCompact is a Marshaler whose output has insignificant space, which
// encoding/json compacts before our indenter sees it.
type rawCompact struct{}

func (rawCompact) MarshalJSON() ([]byte, error) {
	return []byte(" { \"a\" : [ 1 , { } , [ ] ] ,\n\t\"b\":\"x\\\"y\" } "), nil
}

// deep nests n single-element arrays around an object, past the 32 levels
// appendNewline serves from one constant.
func deep(n int) any {
	var v any = map[string]any{"leaf": "x"}
	for i := 0; i < n; i++ {
		v = []any{v}
	}
	return v
}

func TestWriteJSONMatchesEncoderIndent(t *testing.T) {
	type inner struct {
		S string   `json:"s"`
		F float64  `json:"f"`
		P *int     `json:"p"`
		L []string `json:"l"`
		E struct{} `json:"e"`
	}
	one := 1
	tests := []struct {
		name string
		v    any
	}{
		{"null", nil},
		{"true", true},
		{"false", false},
		{"int", 42},
		{"negative float", -1.5e-7},
		{"big float", 1e21},
		{"number", json.Number("12.50")},
		{"empty string", ""},
		{"string", "plain"},
		{"quotes and backslashes", `a"b\c\\"d\`},
		{"backslash before quote", `\"`},
		{"trailing backslashes", `x\\\\`},
		{"html not escaped", "<a href=\"x\">&amp;</a>"},
		{"line separators", "a\u2028b\u2029c"},
		{"control characters", "tab\there\nnew\rline\x00\x1f\x7f"},
		{"unicode", "héllo 世界 🙂"},
		{"invalid utf8", "bad\xff\xfebytes"},
		{"structural chars in string", `{"a":[1,2]},:[]{}`},
		{"empty object", map[string]any{}},
		{"empty array", []any{}},
		{"nil slice", []int(nil)},
		{"nested empties", []any{map[string]any{}, []any{}, []any{[]any{}}, map[string]any{"a": map[string]any{}}}},
		{"array of scalars", []any{1, "two", 3.25, true, false, nil}},
		{"sorted map keys", map[string]int{"b": 2, "a": 1, "c": 3, "": 0, "A": -1}},
		{"map with escaped keys", map[string]any{"k\"ey": 1, "k\\": []int{}, "<&>": "v"}},
		{"struct", inner{S: "s,:{}", F: 0.1, P: &one, L: []string{"x", ""}}},
		{"struct with nil pointer", inner{}},
		{"marshaler with spaces", []any{rawCompact{}, rawCompact{}}},
		{"raw message", json.RawMessage(` [ 1, {"x": [ ] } ] `)},
		{"bytes", []byte("binary\x00data")},
		{"deep", deep(40)},
		{"deep empties", []any{[]any{[]any{map[string]any{}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkSame(t, tt.v)
		})
	}
}

// TestWriteJSONError checks an unmarshallable value still gives
// encoding/json's error and writes nothing.
func TestWriteJSONError(t *testing.T) {
	var buf bytes.Buffer
	err := WriteJSON(&buf, map[string]any{"x": make(chan int)})
	if err == nil || !strings.Contains(err.Error(), "unsupported type: chan int") {
		t.Errorf("WriteJSON(chan) error = %v, want encoding/json's unsupported type", err)
	}
	if buf.Len() != 0 {
		t.Errorf("WriteJSON(chan) wrote %q, want nothing", buf.Bytes())
	}
}

// TestIndenterSplitAnywhere feeds the indenter a compact value cut in two
// at every byte, and cut into single bytes: a piece may end inside a
// string, right after a backslash, inside a number or between a bracket
// and what closes it, and the output must be json.Indent's all the same.
func TestIndenterSplitAnywhere(t *testing.T) {
	src := []byte(`{"a":[1,-2.5e+3,{},[],"x\\\"y\\",[{"k\"":"\u2028"}]],"":true,"n":null,"s":"\\"}` + "\n")
	var want bytes.Buffer
	if err := json.Indent(&want, src, "", indentUnit); err != nil {
		t.Fatal(err)
	}
	for k := 0; k <= len(src); k++ {
		var d indenter
		if got := d.append(d.append(nil, src[:k]), src[k:]); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("split at %d (%q | %q):\n%s\nwant\n%s", k, src[:k], src[k:], got, want.Bytes())
		}
	}
	var d indenter
	var got []byte
	for i := range src {
		got = d.append(got, src[i:i+1])
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("one byte at a time:\n%s\nwant\n%s", got, want.Bytes())
	}
}

// writeRecorder records the size of each Write and fails the one numbered
// failAt (from 1; 0 never).
type writeRecorder struct {
	bytes.Buffer
	sizes  []int
	failAt int
}

var errWriteFull = errors.New("disk full")

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	if len(w.sizes) == w.failAt {
		return 0, errWriteFull
	}
	return w.Buffer.Write(p)
}

// TestWriteJSONStreams checks that a large report reaches the writer in
// chunks (none over twice chunkSize for this report, whose indenting
// grows no chunk of input by half) whose concatenation is the Encoder's
// output, and that a failed write stops the report with its error.
func TestWriteJSONStreams(t *testing.T) {
	v := benchReport()
	want := encoderIndent(t, v)
	var w writeRecorder
	if err := WriteJSON(&w, v); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("WriteJSON wrote %d bytes that differ from the Encoder's %d", w.Len(), len(want))
	}
	if len(w.sizes) < len(want)/(2*chunkSize) {
		t.Errorf("WriteJSON wrote %d bytes in %d writes, want chunks of at most %d", len(want), len(w.sizes), 2*chunkSize)
	}
	for i, n := range w.sizes {
		if n > 2*chunkSize {
			t.Errorf("write %d holds %d bytes, want at most %d", i, n, 2*chunkSize)
		}
	}

	f := writeRecorder{failAt: 2}
	if err := WriteJSON(&f, v); !errors.Is(err, errWriteFull) {
		t.Errorf("WriteJSON to a writer failing its second write = %v, want %v", err, errWriteFull)
	}
	if len(f.sizes) != 2 {
		t.Errorf("WriteJSON went on writing after the failure: %d writes, want 2", len(f.sizes))
	}
}

// FuzzWriteJSON decodes the input and checks WriteJSON against the Encoder
// for the decoded value, both as plain any (numbers as float64) and with
// UseNumber (numbers written back as they were spelled). It also indents
// the compacted input directly against json.Indent, which reaches spellings
// a round trip normalises away.
func FuzzWriteJSON(f *testing.F) {
	for _, s := range []string{
		`null`, `0`, `-1.5e+10`, `"x"`, `""`, `{}`, `[]`, `[{}]`, `[[],{}]`,
		`{"a":{"b":[1,2,{"c":null}]},"d":true}`,
		`"\u2028<>&\"\\\/\b\f\n\r\t\u0000"`,
		`{"z":1,"a":2,"m":{"y":[],"x":{}}}`,
		`[1, 2 , "a\\", "b\\\"c" ]`,
		`"héllo 世界"`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		checkSame(t, v)

		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var n any
		if dec.Decode(&n) == nil {
			checkSame(t, n)
		}

		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			t.Fatalf("Compact of valid JSON %q: %v", data, err)
		}
		compact.WriteByte('\n')
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "", indentUnit); err != nil {
			t.Fatalf("Indent of %q: %v", compact.Bytes(), err)
		}
		if got := appendIndented(nil, compact.Bytes()); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("appendIndented(%q) =\n%q\njson.Indent =\n%q", compact.Bytes(), got, want.Bytes())
		}
		// The same input in two pieces, split where the data says.
		src := compact.Bytes()
		k := len(data) % (len(src) + 1)
		var d indenter
		if got := d.append(d.append(nil, src[:k]), src[k:]); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("indenter on %q split at %d =\n%q\njson.Indent =\n%q", src, k, got, want.Bytes())
		}
	})
}

// benchLoss mirrors metrics.LossDetail, the bulk of a replay report.
type benchLoss struct {
	Session     string       `json:"session"`
	ToolCallID  string       `json:"tool_call_id"`
	Tool        string       `json:"tool"`
	Subject     string       `json:"subject"`
	Stage       string       `json:"stage"`
	HiddenAt    benchLossAt  `json:"hidden_at"`
	NeededAt    *benchLossAt `json:"needed_at"`
	RefetchedAt *benchLossAt `json:"refetched_at"`
	NeededBy    string       `json:"needed_by,omitempty"`
	Lost        bool         `json:"lost"`
}

type benchLossAt struct {
	Request int `json:"request"`
	Line    int `json:"line"`
}

// benchReport is 30k loss details plus a per-session summary map, about
// the size and shape of a replay report over the synthetic corpus.
func benchReport() any {
	losses := make([]benchLoss, 30000)
	for i := range losses {
		at := &benchLossAt{Request: i / 7, Line: 3*i + 1}
		l := benchLoss{
			Session:    fmt.Sprintf("sessions/2026-01-%02d/session-%04d.jsonl", i%28+1, i/100),
			ToolCallID: fmt.Sprintf("toolu_01%016x", i*7919),
			Tool:       []string{"Read", "Bash", "Grep", "Edit"}[i%4],
			Subject:    fmt.Sprintf("src/pkg%d/file_%d.go", i%13, i),
			Stage:      []string{"stale-read", "old-output", "large-result"}[i%3],
			HiddenAt:   benchLossAt{Request: i / 9, Line: 3 * i},
			NeededBy:   "name",
			Lost:       i%5 == 0,
		}
		if i%2 == 0 {
			l.NeededAt = at
		} else {
			l.RefetchedAt = at
		}
		losses[i] = l
	}
	sessions := map[string]map[string]float64{}
	for i := 0; i < 300; i++ {
		sessions[fmt.Sprintf("session-%04d", i)] = map[string]float64{
			"tokens_saved": float64(i) * 1234.5, "ratio": float64(i) / 301, "requests": float64(i * 3),
		}
	}
	// A struct, as the commands' results are (WriteJSON writes its
	// fields and its slices' elements one by one).
	return struct {
		Losses   []benchLoss                   `json:"losses"`
		Policy   string                        `json:"policy"`
		Sessions map[string]map[string]float64 `json:"sessions"`
	}{losses, "smith-staged", sessions}
}

// BenchmarkWriteJSON compares the Encoder with SetIndent (old) with
// WriteJSON (new) on the same value in one run; MB/s is of the output.
func BenchmarkWriteJSON(b *testing.B) {
	v := benchReport()
	size := int64(len(encoderIndent(b, v)))
	for _, bm := range []struct {
		name  string
		write func(io.Writer, any) error
	}{{"old", oldWriteJSON}, {"new", WriteJSON}} {
		b.Run(bm.name, func(b *testing.B) {
			b.SetBytes(size)
			var buf bytes.Buffer
			buf.Grow(int(size)) // what the writer allocates is not WriteJSON's
			for b.Loop() {
				buf.Reset()
				if err := bm.write(&buf, v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
