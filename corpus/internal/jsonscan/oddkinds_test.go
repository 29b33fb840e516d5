package jsonscan

import (
	"slices"
	"testing"
)

// StrNoting reads a string or null as StrOrNullReusing does and notes any
// other value with its JSON text; OddKinds says each field once, at its
// first line, with how many, in the order first met, with the field's own
// expectation and effect when it gives them.
func TestOddKinds(t *testing.T) {
	var o OddKinds
	for i, line := range []string{
		`{"cwd":"/w","v":"1"}`,
		`{"cwd":5,"v":null}`,
		`{"cwd":{"p":1},"v":[1]}`,
		`{"cwd":"\u00e9"}`,
	} {
		var odd []OddValue
		var cwd, v string
		s := &Scanner{B: []byte(line)}
		s.Object(func(key []byte) bool {
			var last string
			switch string(key) {
			case "cwd":
				cwd = s.StrNoting(&last, "cwd", &odd)
			case "v":
				v = s.StrNoting(&last, "v", &odd)
			}
			return s.Err == nil
		})
		if s.Err != nil {
			t.Fatalf("line %d: %v", i+1, s.Err)
		}
		want := map[int][2]string{0: {"/w", "1"}, 1: {"", ""}, 2: {"", ""}, 3: {"é", ""}}[i]
		if [2]string{cwd, v} != want {
			t.Errorf("line %d: cwd %q v %q, want %q", i+1, cwd, v, want)
		}
		o.Note(odd, i+1)
	}
	o.Note([]OddValue{{Name: "input", JSON: `"a.go"`, Want: "an object", Effect: "kept"}}, 9)
	var got []string
	for _, w := range o.Warnings("f.jsonl") {
		got = append(got, w.File+":"+string(rune('0'+w.Line))+": "+w.Message)
	}
	want := []string{
		"f.jsonl:2: cwd is 5, not a string (2 times, first at this line); read as absent",
		"f.jsonl:3: v is [1], not a string (once); read as absent",
		`f.jsonl:9: input is "a.go", not an object (once); kept`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n got %q\nwant %q", got, want)
	}
}
