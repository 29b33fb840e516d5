package jsonscan

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// rec is a struct of every field kind fields.go decodes.
type rec struct {
	S  string          `json:"s"`
	P  *string         `json:"p"`
	B  bool            `json:"b"`
	I  *int64          `json:"i"`
	F  float64         `json:"f"`
	R  json.RawMessage `json:"r"`
	L  []sub           `json:"l"`
	Pt *sub            `json:"pt"`
	V  sub             `json:"v"`
}

type sub struct {
	X string `json:"x"`
}

var recFields = []string{"s", "p", "b", "i", "f", "r", "l", "pt", "v"}

func scanRec(b []byte) (rec, bool) {
	var r rec
	s := &Scanner{B: b}
	subFn := func(x *sub) bool {
		return Members(s, []string{"x"}, func(int) bool { return s.StringField(&x.X) })
	}
	Members(s, recFields, func(k int) bool {
		switch k {
		case 0:
			return s.StringField(&r.S)
		case 1:
			return s.StringPtr(&r.P)
		case 2:
			return s.BoolField(&r.B)
		case 3:
			return s.Int64Ptr(&r.I)
		case 4:
			return s.Float64Field(&r.F)
		case 5:
			return RawCopy(s, &r.R)
		case 6:
			return List(s, &r.L, subFn)
		case 7:
			return Ptr(s, &r.Pt, subFn)
		}
		return Struct(s, func() bool { return subFn(&r.V) })
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
		{in: `{"s":"a\nb","p":"p","b":true,"i":-7,"f":1.5e3,"r":{"a": [1]},"l":[{"x":"1"},null],"pt":{"x":"2"},"v":{"x":"3"},"other":[{}]}`},
		{in: `{"s":null,"p":null,"b":null,"i":null,"f":null,"r":null,"l":null,"pt":null,"v":null}`},
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
