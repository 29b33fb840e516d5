package jsonscan

import (
	"fmt"

	"github.com/calib-dev/calib/corpus"
)

// OddValue is a field whose value was of another kind than its reader
// expects (a cwd that is a number): its name and its JSON text.
type OddValue struct {
	Name, JSON string
	// Want is the kind the reader expects ("a string" when empty) and
	// Effect what it did with the value ("read as absent" when empty).
	Want, Effect string
}

// StrNoting reads a string or null as StrOrNullReusing does; a value of
// another kind reads as "", as before, but is appended to odd under name,
// so that the reader can say it read that field as absent (a cwd lost in
// silence changes which paths a session's messages name).
func (s *Scanner) StrNoting(last *string, name string, odd *[]OddValue) string {
	if c := s.Peek(); c != '"' && c != 'n' {
		if raw, ok := s.Raw(); ok {
			*odd = append(*odd, OddValue{Name: name, JSON: string(raw)})
		}
		return ""
	}
	return s.StrOrNullReusing(last)
}

// Noting is a Loose destination that reads a string or null into dst
// and notes a value of another kind under name in odd (StrNoting).
func Noting(s *Scanner, dst *string, name string, odd *[]OddValue) func() bool {
	return func() bool {
		var last string
		*dst = s.StrNoting(&last, name, odd)
		return s.Err == nil
	}
}

// OddKinds tallies a file's odd values by field, so that a reader warns
// once per field, with how many and where first, not once per line
// (a log written by another tool may hold the same odd field on every
// line), as Times does for timestamps.
type OddKinds struct {
	fields []oddField // in the order first met; a reader's fields are few
}

type oddField struct {
	OddValue // the first
	line, n  int
}

// Note tallies the odd values of one line; values under one name are
// said with the first one's Want and Effect.
func (o *OddKinds) Note(odd []OddValue, line int) {
	for _, v := range odd {
		i := 0
		for i < len(o.fields) && o.fields[i].Name != v.Name {
			i++
		}
		if i == len(o.fields) {
			o.fields = append(o.fields, oddField{OddValue: v, line: line})
		}
		o.fields[i].n++
	}
}

// Warnings is one warning per odd field of file, at its first line.
func (o *OddKinds) Warnings(file string) []corpus.Warning {
	var ws []corpus.Warning
	for _, f := range o.fields {
		lines := "once"
		if f.n > 1 {
			lines = fmt.Sprintf("%d times, first at this line", f.n)
		}
		want, effect := f.Want, f.Effect
		if want == "" {
			want = "a string"
		}
		if effect == "" {
			effect = "read as absent"
		}
		ws = append(ws, corpus.Warning{File: file, Line: f.line, Message: fmt.Sprintf(
			"%s is %s, not %s (%s); %s", f.Name, Excerpt(f.JSON), want, lines, effect)})
	}
	return ws
}
