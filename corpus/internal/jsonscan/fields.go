package jsonscan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Decoding into the fields of a Go struct as encoding/json would, or
// declining. The Gemini CLI, opencode and clai readers decode their hot
// paths with these and hand anything they decline to encoding/json, which
// stays the reference for their warnings (its type errors are quoted in
// them): a decoder here fails the Scanner (so the caller falls back) on a
// value of another type, a key that matches a field only
// case-insensitively, a field given twice, and, through StringEnd's rule,
// a string that is not valid UTF-8 (encoding/json would replace it). Where
// it succeeds, it gives what json.Unmarshal gives; each reader checks that
// in a differential fuzz test.

// TooDeep reports whether b could nest deeper than encoding/json allows
// (counting brackets inside strings too, so it errs toward true). A
// decoder that must agree with encoding/json declines such input.
func TooDeep(b []byte) bool {
	return len(b) > MaxDepth && bytes.Count(b, []byte{'{'})+bytes.Count(b, []byte{'['}) > MaxDepth
}

// Valid is json.Valid(b): by the Scanner when it accepts b (all it accepts
// is valid JSON), else by encoding/json.
func Valid(b []byte) bool {
	if !TooDeep(b) {
		s := Scanner{B: b}
		if s.Skip() && s.End() {
			return true
		}
	}
	return json.Valid(b)
}

// Members reads an object into a struct whose JSON field names are names
// (at most 64), calling fn with the index of each one present; fn must
// consume the value. It fails on a field given twice, or on a key that
// matches a field only case-insensitively (encoding/json would take it for
// that field); other keys are skipped, validated. The error names a copy
// of the name (fmt keeps its arguments), so that names does not escape:
// Fields passes names that sit beside func literals, which would then be
// allocated on every call.
func Members(s *Scanner, names []string, fn func(k int) bool) bool {
	if s.Peek() != '{' {
		return s.Fail("expected an object")
	}
	var seen uint64
	return s.Object(func(key []byte) bool {
		for k, n := range names {
			if string(key) == n {
				if seen&(1<<k) != 0 {
					return s.Fail("%s given twice", strings.Clone(n))
				}
				seen |= 1 << k
				return fn(k)
			}
		}
		for _, n := range names {
			if bytes.EqualFold(key, []byte(n)) {
				return s.Fail("key %q matches %s only case-insensitively", key, strings.Clone(n))
			}
		}
		return s.Skip()
	})
}

// Null consumes a null and reports true, or reports false when the next
// value is not one.
func (s *Scanner) Null() bool {
	if s.Peek() != 'n' {
		return false
	}
	s.Skip()
	return true
}

// StringField reads a string field: null leaves it unset.
func (s *Scanner) StringField(dst *string) bool {
	if s.Null() {
		return s.Err == nil
	}
	if s.Peek() != '"' {
		return s.Fail("expected a string")
	}
	v, ok := s.Str()
	*dst = v
	return ok
}

// StringPtr reads a *string field: null is nil.
func (s *Scanner) StringPtr(dst **string) bool {
	if s.Null() {
		*dst = nil
		return s.Err == nil
	}
	var v string
	if !s.StringField(&v) {
		return false
	}
	*dst = &v
	return true
}

// BoolField reads a bool field: null leaves it unset.
func (s *Scanner) BoolField(dst *bool) bool {
	switch s.Peek() {
	case 'n':
		return s.Skip()
	case 't', 'f':
		*dst = s.Bool()
		return s.Err == nil
	}
	return s.Fail("expected true or false")
}

// number reads a number literal for a numeric field (null: nil).
func (s *Scanner) number() ([]byte, bool) {
	switch s.Peek() {
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return s.Raw()
	}
	return nil, s.Fail("expected a number")
}

// Int64Ptr reads a *int64 field: null is nil; a fraction, an exponent or
// an overflow fails, as it is a type error in encoding/json.
func (s *Scanner) Int64Ptr(dst **int64) bool {
	if s.Null() { // no allocation for it
		*dst = nil
		return s.Err == nil
	}
	return s.Int64PtrTo(dst, new(int64))
}

// Int64PtrTo is Int64Ptr with the number stored in *slot, which *dst then
// points to: a decoder that reads several such fields can keep them in
// one allocation (Claude Code's message.usage has six, on every
// assistant line).
func (s *Scanner) Int64PtrTo(dst **int64, slot *int64) bool {
	if s.Null() {
		*dst = nil
		return s.Err == nil
	}
	lit, ok := s.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseInt(string(lit), 10, 64)
	if err != nil {
		return s.Fail("not an int64")
	}
	*slot = v
	*dst = slot
	return true
}

// Float64Field reads a float64 field: null leaves it unset; a number out
// of range fails, as it is a type error in encoding/json.
func (s *Scanner) Float64Field(dst *float64) bool {
	if s.Null() {
		return s.Err == nil
	}
	lit, ok := s.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return s.Fail("not a float64")
	}
	*dst = v
	return true
}

// RawCopy reads any value as json.RawMessage holds it: a copy of its bytes
// (null included).
func RawCopy[T ~[]byte](s *Scanner, dst *T) bool {
	v, ok := s.Raw()
	*dst = T(bytes.Clone(v))
	return ok
}

// List reads a slice-of-struct field: null is nil, [] is empty, a null
// element is a zero element (all as encoding/json does); elem decodes an
// object element.
func List[T any](s *Scanner, dst *[]T, elem func(*T) bool) bool {
	if s.Null() {
		*dst = nil
		return s.Err == nil
	}
	out := []T{}
	ok := s.Array(func() bool {
		out = append(out, *new(T))
		if s.Null() {
			return s.Err == nil
		}
		return elem(&out[len(out)-1])
	})
	*dst = out
	return ok
}

// Ptr reads a pointer-to-struct field: null is nil, an object a new T
// that fill decodes.
func Ptr[T any](s *Scanner, dst **T, fill func(*T) bool) bool {
	if s.Null() {
		*dst = nil
		return s.Err == nil
	}
	v := new(T)
	*dst = v
	return fill(v)
}

// Struct reads a struct-valued field: null leaves it unset.
func Struct(s *Scanner, fill func() bool) bool {
	if s.Null() {
		return s.Err == nil
	}
	return fill()
}

// Field names one member of an object and says where its value goes. A
// decoder is a list of Fields: each name is written once, beside its
// destination, instead of in a list of names and again as a case of a
// switch on the name's index (which had to be kept in step by hand).
type Field struct {
	Name string
	// Dst is where the value goes, decoded by its type: for Fields as
	// encoding/json decodes into that type (see Scanner.Decode), for Loose
	// leniently (see decodeLoose). A func() bool consumes the value itself
	// (a nested object, a span kept uncopied).
	Dst any
}

// maxFields is how many Fields one object may have: room for the widest
// decoder (opencode's part, 17) without zeroing Members' limit of 64 names
// on the stack for every object.
const maxFields = 32

// Fields reads an object into the destinations of fields (at most
// maxFields), as
// Members reads it into names: a field given twice or a key that matches
// one only case-insensitively fails the Scanner, other keys are skipped.
func Fields(s *Scanner, fields []Field) bool {
	// The names are copied to the stack, so that Members stays the one
	// place a key is matched. Into the array, not a slice of it: escape
	// analysis takes a store through a slice for one to the heap, and the
	// func literals among the Dsts would then be allocated on every call.
	var names [maxFields]string
	for k := range fields {
		names[k] = fields[k].Name
	}
	return Members(s, names[:len(fields)], func(k int) bool { return s.Decode(fields[k].Dst) })
}

// Decode reads the next value into dst, one of the types a Field's Dst may
// have. Another type is a bug in the caller, not bad input: it panics.
func (s *Scanner) Decode(dst any) bool {
	switch d := dst.(type) {
	case *string:
		return s.StringField(d)
	case **string:
		return s.StringPtr(d)
	case *bool:
		return s.BoolField(d)
	case *float64:
		return s.Float64Field(d)
	case **int64:
		return s.Int64Ptr(d)
	case *json.RawMessage:
		return RawCopy(s, d)
	case func() bool:
		return d()
	}
	// Not naming dst's type (fmt would make every dst escape, and every
	// func literal passed in with it).
	panic("jsonscan: Decode: a Dst of a type it does not decode")
}

// View is a Field's Dst for a value kept as a slice of the Scanner's
// input, not copied (valid as long as B is): for a span the caller reads at
// once and copies only where it keeps it.
func View[T ~[]byte](s *Scanner, dst *T) func() bool {
	return func() bool {
		v, ok := s.Raw()
		*dst = T(v)
		return ok
	}
}

// Loose reads an object into the destinations of fields as the Codex
// reader reads its lines: leniently, where Fields declines. A value of
// another type reads as the zero value (a log written by another version
// loses that field, not the line), a key given twice keeps its last value,
// keys are matched exactly, and other keys are skipped, validated.
func Loose(s *Scanner, fields []Field) bool {
	return s.Object(func(key []byte) bool {
		for k := range fields {
			if string(key) == fields[k].Name {
				return s.decodeLoose(fields[k].Dst)
			}
		}
		return s.Skip()
	})
}

// decodeLoose reads the next value into dst: a *string takes a string
// (anything else is ""), an *int an integer (anything else is 0); a
// func() bool consumes the value itself.
func (s *Scanner) decodeLoose(dst any) bool {
	switch d := dst.(type) {
	case *string:
		*d = s.StrOrNull()
	case *int:
		*d, _ = s.Int()
	case func() bool:
		return d()
	default:
		panic("jsonscan: Loose: a Dst of a type it does not decode")
	}
	return s.Err == nil
}
