package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestReadmeJSONShapes checks the JSON shapes README.md writes out for
// replay and inspect against the types that encode them: every object the
// README spells out must name all of its type's keys, in the order the
// encoder writes them (omitempty ones too), and nothing else. `{...}` and
// `[...]` mark a part described in another section, `{NAME:value}` a map
// keyed by data, and a name without ":" a value whose inside is not shown.
func TestReadmeJSONShapes(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		start string // how the README's code span starts
		typ   reflect.Type
	}{
		{`{"policy":{"name","params"},"events":`, reflect.TypeFor[replayJSON]()},
		{`{"sessions":[{"id","format","path",`, reflect.TypeFor[inspectResult]()},
	} {
		span, ok := readmeCodeSpan(string(md), c.start)
		if !ok {
			t.Errorf("README shows no JSON shape starting %s", c.start)
			continue
		}
		p := &shapeParser{s: span}
		obj := p.object()
		if p.err != "" || p.i != len(p.s) {
			t.Errorf("README shape %s...: cannot read it at byte %d: %s", c.start, p.i, p.err)
			continue
		}
		for _, e := range compareShape(obj, c.typ, c.typ.Name()) {
			t.Error(e)
		}
	}
}

// readmeCodeSpan returns the code span of md that starts with start, white
// space removed (the README wraps long spans over lines).
func readmeCodeSpan(md, start string) (string, bool) {
	flat := strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, md)
	i := strings.Index(flat, "`"+start)
	if i < 0 {
		return "", false
	}
	rest := flat[i+1:]
	j := strings.IndexByte(rest, '`')
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

// shape is one object of a README shape: its names in order and what is
// shown of each value (nil: nothing).
type shape struct {
	names    []string
	children map[string]*shape
	elided   bool // {...}: described elsewhere
	dynamic  bool // {NAME:value}: a map keyed by data
}

// shapeParser reads the README's notation for JSON shapes.
type shapeParser struct {
	s   string
	i   int
	err string
}

func (p *shapeParser) eat(tok string) bool {
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

func (p *shapeParser) fail(msg string) *shape {
	if p.err == "" {
		p.err = msg
	}
	return nil
}

func (p *shapeParser) object() *shape {
	if !p.eat("{") {
		return p.fail(`expected "{"`)
	}
	if p.eat("...}") {
		return &shape{elided: true}
	}
	if p.i < len(p.s) && unicode.IsUpper(rune(p.s[p.i])) {
		j := strings.IndexByte(p.s[p.i:], '}')
		if j < 0 {
			return p.fail(`expected "}" after a map's NAME:value`)
		}
		p.i += j + 1
		return &shape{dynamic: true}
	}
	o := &shape{children: map[string]*shape{}}
	for p.err == "" {
		if p.eat("...") { // "more keys" would make the list incomplete
			return p.fail(`"..." inside an object: list every key`)
		}
		if !p.eat(`"`) {
			return p.fail(`expected a quoted name`)
		}
		j := strings.IndexByte(p.s[p.i:], '"')
		if j < 0 {
			return p.fail("unterminated name")
		}
		name := p.s[p.i : p.i+j]
		p.i += j + 1
		o.names = append(o.names, name)
		if p.eat(":") {
			o.children[name] = p.value()
		}
		if p.eat("}") {
			return o
		}
		if !p.eat(",") {
			return p.fail(`expected "," or "}"`)
		}
	}
	return nil
}

func (p *shapeParser) value() *shape {
	if p.eat("[") {
		if p.eat("...]") {
			return &shape{elided: true}
		}
		o := p.object()
		if !p.eat("]") {
			return p.fail(`expected "]"`)
		}
		return o
	}
	return p.object()
}

// compareShape lists how the README's object o differs from the keys the
// encoder writes for t.
func compareShape(o *shape, t reflect.Type, at string) []string {
	if o == nil || o.elided {
		return nil
	}
	t = elem(t)
	if o.dynamic {
		if t.Kind() != reflect.Map {
			return []string{at + ": README shows a map keyed by data, the type is " + t.String()}
		}
		return nil
	}
	if t.Kind() != reflect.Struct {
		return []string{at + ": README shows an object, the type is " + t.String()}
	}
	fields := jsonFields(t)
	var names []string
	for _, f := range fields {
		names = append(names, f.name)
	}
	if !slices.Equal(o.names, names) {
		return []string{at + ": README lists\n\t" + strings.Join(o.names, ",") + "\nthe encoder writes\n\t" + strings.Join(names, ",")}
	}
	var errs []string
	for _, f := range fields {
		if c := o.children[f.name]; c != nil {
			errs = append(errs, compareShape(c, f.typ, at+"."+f.name)...)
		}
	}
	return errs
}

func elem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t
}

type jsonField struct {
	name string
	typ  reflect.Type
}

// jsonFields are the keys encoding/json writes for a struct, in order:
// exported fields by their tag's name, embedded structs without a tag
// flattened in place.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" && elem(f.Type).Kind() == reflect.Struct {
			out = append(out, jsonFields(elem(f.Type))...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		out = append(out, jsonField{tag, f.Type})
	}
	return out
}
