package clai

import (
	"strings"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// A fast decoder for content_json, the bulk of a clai database.
//
// encoding/json validates every document in a first pass, then decodes it
// in a second, and copies each string: it held loading to ~80 MB/s, under
// the 100 MB/s target. This scanner makes one pass over the column's string
// and returns strings without escapes as substrings of it (no copy; the
// model shares strings anyway). Anything it is not sure about (invalid
// JSON, invalid UTF-8, a key that only matches case-insensitively, a
// non-string where a string belongs) makes it give up, and the row is
// decoded again by encoding/json, whose result and error messages are the
// reference. So the fast path only ever agrees with encoding/json.

type claiScan struct {
	s   string
	i   int
	buf []byte // scratch for unescaping
}

func (p *claiScan) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// next skips white space and consumes c.
func (p *claiScan) next(c byte) bool {
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *claiScan) peek() byte {
	p.ws()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// str reads a string at p.i and returns its value.
func (p *claiScan) str() (string, bool) {
	if !p.next('"') {
		return "", false
	}
	start := p.i
	j := claiPlainEnd(p.s, start)
	if j >= len(p.s) {
		return "", false
	}
	switch p.s[j] {
	case '"':
		v := p.s[start:j]
		if !utf8.ValidString(v) {
			return "", false // invalid UTF-8: let encoding/json replace it
		}
		p.i = j + 1
		return v, true
	case '\\':
		return p.unescape(start, j)
	}
	return "", false // a raw control character
}

// unescape decodes a string with escapes, as encoding/json does; s[j] is
// the first backslash.
func (p *claiScan) unescape(start, j int) (string, bool) {
	b := append(p.buf[:0], p.s[start:j]...)
	for j < len(p.s) {
		switch c := p.s[j]; {
		case c == '"':
			if !utf8.ValidString(p.s[start:j]) {
				return "", false
			}
			p.i = j + 1
			p.buf = b
			return string(b), true
		case c != '\\':
			return "", false // a raw control character
		}
		r, n := jsonscan.DecodeEscape(p.s[j:])
		if n == 0 {
			return "", false
		}
		b = utf8.AppendRune(b, r)
		j += n
		k := claiPlainEnd(p.s, j)
		b = append(b, p.s[j:k]...)
		j = k
	}
	return "", false
}

// claiPlainEnd returns the index of the first byte at or after j that ends
// a plain run inside a JSON string: a quote, a backslash or a control
// character. It tests eight bytes at a time (SWAR): text is long and its
// escapes are sparse.
func claiPlainEnd(s string, j int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; j+8 <= len(s); j += 8 {
		x := uint64(s[j]) | uint64(s[j+1])<<8 | uint64(s[j+2])<<16 | uint64(s[j+3])<<24 |
			uint64(s[j+4])<<32 | uint64(s[j+5])<<40 | uint64(s[j+6])<<48 | uint64(s[j+7])<<56
		q := x ^ ('"' * ones)
		bs := x ^ ('\\' * ones)
		// Each term's high bit is set for some byte iff a byte is zero (the
		// quote or backslash) or below 0x20: exact as a yes/no.
		if ((q-ones)&^q|(bs-ones)&^bs|(x-0x20*ones)&^x)&highs != 0 {
			break
		}
	}
	for ; j < len(s); j++ {
		if c := s[j]; c == '"' || c == '\\' || c < 0x20 {
			return j
		}
	}
	return j
}

// skip steps over one JSON value, checking its syntax.
func (p *claiScan) skip() bool {
	switch p.peek() {
	case '"':
		return p.skipString()
	case '{':
		p.i++
		if p.next('}') {
			return true
		}
		for {
			if !p.skipString() || !p.next(':') || !p.skip() {
				return false
			}
			if p.next('}') {
				return true
			}
			if !p.next(',') {
				return false
			}
		}
	case '[':
		p.i++
		if p.next(']') {
			return true
		}
		for {
			if !p.skip() {
				return false
			}
			if p.next(']') {
				return true
			}
			if !p.next(',') {
				return false
			}
		}
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	}
	return p.number()
}

func (p *claiScan) skipString() bool {
	if !p.next('"') {
		return false
	}
	start := p.i
	j := claiPlainEnd(p.s, start)
	for j < len(p.s) {
		switch p.s[j] {
		case '"':
			p.i = j + 1
			return utf8.ValidString(p.s[start:j])
		case '\\':
			_, n := jsonscan.DecodeEscape(p.s[j:])
			if n == 0 {
				return false
			}
			j = claiPlainEnd(p.s, j+n)
		default:
			return false // a raw control character
		}
	}
	return false
}

func (p *claiScan) literal(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

// number checks JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *claiScan) number() bool {
	s, i := p.s, p.i
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	p.i = i
	return true
}

// claiPartKeys are the ContentPart fields, for the case-insensitive check.
var claiPartKeys = []string{"type", "text", "signature", "tool_call_id", "tool_name", "arguments", "payload", "id", "path", "media_type"}

// claiFastParts decodes content_json; ok=false means "use encoding/json".
// scratch (may be nil) lends its unescaping buffer, so a worker reuses one.
func claiFastParts(s string, scratch *claiScan) (parts []claiPart, ok bool) {
	p := &claiScan{s: s}
	if scratch != nil {
		p.buf = scratch.buf
		defer func() { scratch.buf = p.buf }()
	}
	if !p.next('[') {
		return nil, false
	}
	if p.next(']') {
		p.ws()
		return []claiPart{}, p.i == len(s)
	}
	for {
		p.ws()
		start := p.i
		var part claiPart
		if !p.part(&part) {
			return nil, false
		}
		part.raw = s[start:p.i]
		parts = append(parts, part)
		if p.next(']') {
			break
		}
		if !p.next(',') {
			return nil, false
		}
	}
	p.ws()
	return parts, p.i == len(s)
}

func (p *claiScan) part(part *claiPart) bool {
	if !p.next('{') {
		return false
	}
	if p.next('}') {
		return true
	}
	for {
		key, ok := p.str()
		if !ok || !p.next(':') {
			return false
		}
		var dst *string
		switch key {
		case "type":
			dst = &part.Type
		case "text":
			dst = &part.Text
		case "signature":
			dst = &part.Signature
		case "tool_call_id":
			dst = &part.ToolCallID
		case "tool_name":
			dst = &part.ToolName
		case "id":
			dst = &part.ID
		case "path":
			dst = &part.Path
		case "media_type":
			dst = &part.MediaType
		case "arguments", "payload":
			p.ws()
			start := p.i
			if !p.skip() {
				return false
			}
			raw := []byte(p.s[start:p.i])
			if key == "arguments" {
				part.Arguments = raw
			} else {
				part.Payload = raw
			}
		default:
			for _, k := range claiPartKeys {
				if strings.EqualFold(k, key) {
					return false // encoding/json would match it: let it
				}
			}
			if !p.skip() {
				return false
			}
		}
		if dst != nil {
			if p.peek() != '"' {
				return false // null or a wrong type: encoding/json decides
			}
			if *dst, ok = p.str(); !ok {
				return false
			}
		}
		if p.next('}') {
			return true
		}
		if !p.next(',') {
			return false
		}
	}
}

// claiFastSource reads provider_metadata_json's "source" (a flat object);
// ok=false means "use encoding/json".
func claiFastSource(s string) (source string, ok bool) {
	p := &claiScan{s: s}
	if !p.next('{') {
		return "", false
	}
	if p.next('}') {
		p.ws()
		return "", p.i == len(s)
	}
	for {
		key, ok := p.str()
		if !ok || !p.next(':') {
			return "", false
		}
		switch {
		case key == "source":
			if p.peek() != '"' {
				return "", false
			}
			if source, ok = p.str(); !ok {
				return "", false
			}
		case strings.EqualFold(key, "source"):
			return "", false
		default:
			if !p.skip() {
				return "", false
			}
		}
		if p.next('}') {
			p.ws()
			return source, p.i == len(s)
		}
		if !p.next(',') {
			return "", false
		}
	}
}

// AppendJSONString appends s as a JSON string escaped as clai's
// serde_json escapes it, for renderers that re-serialize clai's JSON
// (policy's clai digest).
func AppendJSONString(dst []byte, s string) []byte {
	return jsonscan.AppendString(dst, s, jsonscan.Serde)
}
