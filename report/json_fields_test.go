package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// upper marshals itself only through a pointer: encoding/json calls it
// on an addressable value (a slice element, a field of a struct given
// by pointer) and not on a copy.
type upper string

func (u *upper) MarshalJSON() ([]byte, error) { return json.Marshal(strings.ToUpper(string(*u))) }

// pair is a slice that marshals itself as one string.
type pair []int

func (p pair) MarshalJSON() ([]byte, error) { return json.Marshal("pair") }

type inner struct {
	A int    `json:"a"`
	B string `json:"b,omitempty"`
}

// fields has a field of each kind writeFields treats apart.
type fields struct {
	Items    []inner           `json:"items"`
	Nil      []inner           `json:"nil"`
	Empty    []inner           `json:"empty"`
	Ptrs     []*inner          `json:"ptrs"`
	Bytes    []byte            `json:"bytes"`
	Raw      json.RawMessage   `json:"raw"`
	Pair     pair              `json:"pair"`
	Uppers   []upper           `json:"uppers"`
	Upper    upper             `json:"upper"`
	Map      map[string]int    `json:"map"`
	Any      any               `json:"any"`
	Ptr      *inner            `json:"ptr"`
	OmitS    string            `json:"omit_s,omitempty"`
	OmitI    int               `json:"omit_i,omitempty"`
	OmitF    float64           `json:"omit_f,omitempty"`
	OmitB    bool              `json:"omit_b,omitempty"`
	OmitP    *inner            `json:"omit_p,omitempty"`
	OmitL    []int             `json:"omit_l,omitempty"`
	OmitM    map[string]string `json:"omit_m,omitempty"`
	OmitA    any               `json:"omit_a,omitempty"`
	OmitSt   inner             `json:"omit_st,omitempty"`
	Untagged string
	GoName   int `json:",omitempty"`
	Skipped  int `json:"-"`
	hidden   int
}

func fullFields() fields {
	return fields{
		Items: []inner{{1, "x"}, {2, ""}}, Empty: []inner{}, Ptrs: []*inner{{A: 3}, nil},
		Bytes: []byte("b\x00"), Raw: json.RawMessage(` {"r": [1, 2]} `), Pair: pair{1, 2},
		Uppers: []upper{"a", "b"}, Upper: "c", Map: map[string]int{"z": 1, "a": 2}, Any: []any{1, "s"},
		Ptr: &inner{A: 4}, OmitS: "s", OmitI: 1, OmitF: 0.5, OmitB: true, OmitP: &inner{}, OmitL: []int{1},
		OmitM: map[string]string{"k": "v"}, OmitA: 0, Untagged: "<&>", GoName: 5, Skipped: 6, hidden: 7,
	}
}

// TestWriteFieldsMatchesEncoder checks struct values, which writeFields
// writes field by field, and those it leaves to the Encoder, against the
// Encoder's bytes.
func TestWriteFieldsMatchesEncoder(t *testing.T) {
	type embedded struct {
		inner
		C int `json:"c"`
	}
	type asString struct {
		N int `json:"n,string"`
	}
	type dashed struct {
		N int `json:"a-b"`
	}
	type twice struct { // one key twice: encoding/json writes only the tagged field
		A int `json:"B"`
		B int
	}
	full := fullFields()
	tests := []struct {
		name string
		v    any
	}{
		{"every kind", full},
		{"by pointer (addressable fields)", &full},
		{"zero", fields{}},
		{"zero by pointer", &fields{}},
		{"nil pointer", (*fields)(nil)},
		{"no fields", struct{}{}},
		{"all omitted", struct {
			A int `json:"a,omitempty"`
		}{}},
		{"embedded field (Encoder)", embedded{inner{1, "b"}, 2}},
		{"string option (Encoder)", asString{3}},
		{"escaped name (Encoder)", dashed{4}},
		{"one name twice (Encoder)", twice{1, 2}},
		{"marshals itself (Encoder)", struct{ P pair }{pair{1}}},
		{"nested slices", struct {
			L [][]inner `json:"l"`
		}{[][]inner{{{1, "a"}}, {}, nil}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkSame(t, tt.v)
		})
	}
}

// TestWriteFieldsError checks that a field that cannot be marshalled
// gives encoding/json's error.
func TestWriteFieldsError(t *testing.T) {
	v := struct {
		A []int    `json:"a"`
		C chan int `json:"c"`
	}{[]int{1}, make(chan int)}
	if err := WriteJSON(&bytes.Buffer{}, v); err == nil || !strings.Contains(err.Error(), "unsupported type: chan int") {
		t.Errorf("WriteJSON(chan field) error = %v, want encoding/json's unsupported type", err)
	}
	var w writeRecorder
	w.failAt = 1
	if err := WriteJSON(&w, fullFields()); !errors.Is(err, errWriteFull) {
		t.Errorf("WriteJSON to a failing writer = %v, want %v", err, errWriteFull)
	}
}

// TestWriteJSONStructAllocates checks that a large struct report is not
// marshalled whole: what WriteJSON allocates is a small part of its size.
func TestWriteJSONStructAllocates(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector empties sync.Pools at random and instruments allocation: the bound does not hold")
	}
	v := benchReport()
	var compact bytes.Buffer
	if err := json.NewEncoder(&compact).Encode(v); err != nil {
		t.Fatal(err)
	}
	// Two collections empty encoding/json's pool of buffers, which the
	// Encode above left a report-sized one in.
	runtime.GC()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := WriteJSON(discard{}, v); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(compact.Len()/8); got > limit {
		t.Errorf("WriteJSON of a %d-byte report allocated %d bytes, want at most %d", compact.Len(), got, limit)
	}
}

// discard is io.Discard without its ReadFrom.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
