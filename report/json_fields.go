package report

import (
	"encoding"
	"encoding/json"
	"io"
	"reflect"
	"strings"
)

// Why this file exists: json.Encoder marshals a value whole into its own
// buffer, grown by doubling, before writing it. A replay report over
// 201 MB of sessions is 8 MB compact, and growing it touched 16 MB of
// fresh memory, which costs page faults on top of the copies. writeFields
// hands the Encoder a struct's fields one by one, and a slice field's
// elements one by one, so that its buffer holds one element at a time;
// the bytes are the same (field order, keys, omitempty, null for a nil
// slice), which TestWriteJSONMatchesEncoderIndent and FuzzWriteJSON check
// against the Encoder.

// jsonField is one exported field of a struct as encoding/json writes it.
type jsonField struct {
	index     int
	key       []byte // the field's name as a JSON string, colon included
	omitEmpty bool
}

// structFields lists t's fields as encoding/json would write them, or
// returns false for a struct writeFields leaves to the Encoder: one that
// marshals itself, or has an embedded field, or a tag option other than
// omitempty, or a name that would need escaping, or two fields of one
// name (encoding/json's rules for which one wins are not repeated here).
func structFields(t reflect.Type) ([]jsonField, bool) {
	if marshalsItself(t) {
		return nil, false
	}
	var fs []jsonField
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil, false
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if opts != "" && opts != "omitempty" {
			return nil, false
		}
		if name == "" {
			name = f.Name
		}
		if !plainName(name) || seen[name] {
			return nil, false
		}
		seen[name] = true
		fs = append(fs, jsonField{index: i, key: []byte(`"` + name + `":`), omitEmpty: opts == "omitempty"})
	}
	return fs, true
}

// plainName reports whether a key is letters, digits and underscores only,
// which encoding/json writes as they are.
func plainName(s string) bool {
	for i := range len(s) {
		c := s[i]
		if !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

// writeFields writes v, a struct or a pointer to one, as compact JSON
// without a trailing newline to w, encoding each field with enc (which
// must write to w through trimNewline). It returns false, having written
// nothing, for a value it leaves to the Encoder. A field that cannot be
// marshalled stops it with the Encoder's error after the fields before it
// were written. (w is the concrete type so that the punctuation written
// to it is not allocated.)
func writeFields(w *indentWriter, enc *json.Encoder, v any) (bool, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return false, nil
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return false, nil
	}
	fs, ok := structFields(rv.Type())
	if !ok {
		return false, nil
	}
	if _, err := w.Write([]byte("{")); err != nil {
		return true, err
	}
	first := true
	for _, f := range fs {
		fv := rv.Field(f.index)
		if f.omitEmpty && isEmptyValue(fv) {
			continue
		}
		if !first {
			if _, err := w.Write([]byte(",")); err != nil {
				return true, err
			}
		}
		first = false
		if _, err := w.Write(f.key); err != nil {
			return true, err
		}
		if err := encodeValue(w, enc, fv); err != nil {
			return true, err
		}
	}
	_, err := w.Write([]byte("}"))
	return true, err
}

// encodeValue encodes one field: a non-nil slice (other than bytes, which
// are base64) element by element, anything else whole. An element, like a
// field of an addressable struct, goes by pointer, so that a MarshalJSON
// on the pointer is called as encoding/json calls it on an addressable
// value.
func encodeValue(w *indentWriter, enc *json.Encoder, v reflect.Value) error {
	if v.Kind() != reflect.Slice || v.IsNil() || v.Type().Elem().Kind() == reflect.Uint8 || marshalsItself(v.Type()) {
		if v.CanAddr() {
			return enc.Encode(v.Addr().Interface())
		}
		return enc.Encode(v.Interface())
	}
	if _, err := w.Write([]byte("[")); err != nil {
		return err
	}
	for i := range v.Len() {
		if i > 0 {
			if _, err := w.Write([]byte(",")); err != nil {
				return err
			}
		}
		if err := enc.Encode(v.Index(i).Addr().Interface()); err != nil {
			return err
		}
	}
	_, err := w.Write([]byte("]"))
	return err
}

// marshalsItself reports whether encoding/json would call a MarshalJSON or
// MarshalText of t (on a value or on a pointer) rather than write its
// fields or elements.
func marshalsItself(t reflect.Type) bool {
	for _, i := range []reflect.Type{reflect.TypeFor[json.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()} {
		if t.Implements(i) || reflect.PointerTo(t).Implements(i) {
			return true
		}
	}
	return false
}

// trimNewline drops the newline json.Encoder ends each value with (a
// compact value holds no other raw newline), so that values written one
// after another form one compact value.
type trimNewline struct{ w io.Writer }

func (t trimNewline) Write(p []byte) (int, error) {
	n := len(p)
	if n > 0 && p[n-1] == '\n' {
		p = p[:n-1]
	}
	if _, err := t.w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// isEmptyValue is encoding/json's test for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
