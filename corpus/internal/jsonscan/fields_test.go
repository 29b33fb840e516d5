package jsonscan

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// rec is a struct of every field kind fields.go and table.go decode.
type rec struct {
	S  string          `json:"s"`
	P  *string         `json:"p"`
	B  bool            `json:"b"`
	I  *int64          `json:"i"`
	F  float64         `json:"f"`
	R  json.RawMessage `json:"r"`
	W  json.RawMessage `json:"w"` // by View
	L  []sub           `json:"l"`
	Pt *sub            `json:"pt"`
	V  sub             `json:"v"`
}

type sub struct {
	X string `json:"x"`
}

func scanRec(b []byte) (rec, bool) {
	var r rec
	s := &Scanner{B: b}
	subFn := func(x *sub) bool {
		return Members(s, []string{"x"}, func(int) bool { return s.StringField(&x.X) })
	}
	Fields(s, []Field{
		{Name: "s", Dst: &r.S},
		{Name: "p", Dst: &r.P},
		{Name: "b", Dst: &r.B},
		{Name: "i", Dst: &r.I},
		{Name: "f", Dst: &r.F},
		{Name: "r", Dst: &r.R},
		{Name: "w", Dst: View(s, &r.W)},
		{Name: "l", Dst: func() bool { return List(s, &r.L, subFn) }},
		{Name: "pt", Dst: func() bool { return Ptr(s, &r.Pt, subFn) }},
		{Name: "v", Dst: func() bool { return Struct(s, func() bool { return subFn(&r.V) }) }},
	})
	return r, s.End() && s.Err == nil
}

// Each field kind decodes as json.Unmarshal decodes it, and what the
// decoders must leave to encoding/json is declined.
func TestFieldsAgreeWithEncodingJSON(t *testing.T) {
	for _, tc := range []struct {
		in      string
		decline bool
	}{
		{in: `{"s":"a\nb","p":"p","b":true,"i":-7,"f":1.5e3,"r":{"a": [1]},"w":[ 2, "x" ],"l":[{"x":"1"},null],"pt":{"x":"2"},"v":{"x":"3"},"other":[{}]}`},
		{in: `{"s":null,"p":null,"b":null,"i":null,"f":null,"r":null,"w":null,"l":null,"pt":null,"v":null}`},
		{in: `{"l":[],"p":""}`},
		{in: `{}`},
		{in: `{"s":1}`, decline: true},
		{in: `{"b":"true"}`, decline: true},
		{in: `{"i":1.0}`, decline: true},
		{in: `{"i":9223372036854775808}`, decline: true},
		{in: `{"f":1e309}`, decline: true},
		{in: `{"l":{}}`, decline: true},
		{in: `{"l":[1]}`, decline: true},
		{in: `{"pt":[]}`, decline: true},
		{in: `{"v":"x"}`, decline: true},
		{in: `{"S":"a"}`, decline: true},
		{in: `{"\u0053":"a"}`, decline: true},
		{in: "{\"\u017f\":\"a\"}", decline: true}, // ſ folds to s in encoding/json
		{in: `{"s":"a","s":"b"}`, decline: true},
		{in: `{"v":{},"v":{}}`, decline: true},
		{in: `{"W":1}`, decline: true},
		{in: "{\"s\":\"\xff\"}", decline: true},
		{in: `{"s":"a"} {}`, decline: true},
		{in: `[]`, decline: true},
	} {
		got, ok := scanRec([]byte(tc.in))
		if ok == tc.decline {
			t.Errorf("%s: decoded %v, want decline %v", tc.in, ok, tc.decline)
			continue
		}
		if !ok {
			continue
		}
		var want rec
		if err := json.Unmarshal([]byte(tc.in), &want); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, encoding/json %+v (%v)", tc.in, got, want, err)
		}
	}
}

// Valid is json.Valid, on both sides of encoding/json's nesting limit and
// on what the Scanner rejects but encoding/json accepts.
func TestValid(t *testing.T) {
	nest := func(n int) []byte {
		return append(bytes.Repeat([]byte{'['}, n), bytes.Repeat([]byte{']'}, n)...)
	}
	for _, in := range [][]byte{nest(MaxDepth), nest(MaxDepth + 1), []byte("\"\xff\""), []byte(`{"a":1}`), []byte(`{"a":}`), nil} {
		if got, want := Valid(in), json.Valid(in); got != want {
			t.Errorf("Valid(%.40q) = %v, json.Valid %v", in, got, want)
		}
	}
}

// Fields allocates nothing of its own: not the names it copies, not the
// func literals among the Dsts (Members' error once kept the names, and so
// every Dst beside them, on the heap).
func TestFieldsAllocateNothing(t *testing.T) {
	in := []byte(`{"b":true,"f":2,"i":null,"v":{},"n":[1]}`)
	var r rec
	allocs := testing.AllocsPerRun(100, func() {
		s := Scanner{B: in}
		Fields(&s, []Field{
			{Name: "b", Dst: &r.B},
			{Name: "f", Dst: &r.F},
			{Name: "i", Dst: &r.I},
			{Name: "v", Dst: func() bool { return Struct(&s, func() bool { return s.Skip() }) }},
		})
		if !s.End() || s.Err != nil {
			t.Fatal(s.Err)
		}
	})
	if allocs != 0 {
		t.Errorf("Fields: %v allocations a call, want 0", allocs)
	}
}

// A Dst of a type Decode does not know is a bug in the decoder: it
// panics rather than skipping the value.
func TestDecodeRefusesAnUnknownDst(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Decode(*int) did not panic")
		}
	}()
	s := Scanner{B: []byte(`1`)}
	var n int
	s.Decode(&n)
}

// Loose reads what Fields would decline: a value of another type reads as
// the zero value and a key given twice keeps its last value; a line that
// is not JSON still fails.
func TestLoose(t *testing.T) {
	type looseRec struct {
		S   string
		N   int
		Raw string
	}
	for _, tc := range []struct {
		in   string
		want looseRec
		ok   bool
	}{
		{in: `{"s":"a\u0062","n":-3,"raw":[1, {}]}`, want: looseRec{S: "ab", N: -3, Raw: `[1, {}]`}, ok: true},
		{in: `{"s":1,"n":"7","raw":null}`, want: looseRec{Raw: "null"}, ok: true},
		{in: `{"s":null,"n":1.5}`, ok: true},
		{in: `{"s":"a","s":"b","n":1,"n":2}`, want: looseRec{S: "b", N: 2}, ok: true},
		{in: `{"S":"a","other":{"x":[true]}}`, ok: true},
		{in: `{"other":[tru]}`},
		{in: `{"s":"a"`, want: looseRec{S: "a"}},
		{in: `[]`},
	} {
		var got looseRec
		s := &Scanner{B: []byte(tc.in)}
		Loose(s, []Field{
			{Name: "s", Dst: &got.S},
			{Name: "n", Dst: &got.N},
			{Name: "raw", Dst: func() bool {
				v, ok := s.Raw()
				got.Raw = string(v)
				return ok
			}},
		})
		if ok := s.End() && s.Err == nil; ok != tc.ok || got != tc.want {
			t.Errorf("%s: got %+v, ok %v (%v); want %+v, ok %v", tc.in, got, ok, s.Err, tc.want, tc.ok)
		}
	}
}

// A Dst Loose does not know panics, as in Decode.
func TestLooseRefusesAnUnknownDst(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Loose with a *float64 did not panic")
		}
	}()
	var f float64
	Loose(&Scanner{B: []byte(`{"f":1}`)}, []Field{{Name: "f", Dst: &f}})
}
