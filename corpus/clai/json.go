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
	s     string
	i     int
	buf   []byte // scratch for unescaping
	depth int    // containers enclosing p.i
}

func (p *claiScan) ws() {
	p.i = jsonscan.SkipSpace(p.s, p.i)
}

// next skips white space and consumes c.
func (p *claiScan) next(c byte) bool {
	if p.peek() == c { // c is never 0, peek's end of input
		p.i++
		return true
	}
	return false
}

func (p *claiScan) peek() byte {
	c, i := jsonscan.Next(p.s, p.i)
	p.i = i
	return c
}

// str reads a string at p.i and returns its value. A string that breaks
// jsonscan's rule (invalid UTF-8 among others) fails: encoding/json then
// decides.
func (p *claiScan) str() (string, bool) {
	if !p.next('"') {
		return "", false
	}
	start := p.i
	end, escaped, ok := jsonscan.StringEndIn(p.s, start)
	if !ok {
		return "", false
	}
	p.i = end + 1
	if !escaped {
		return p.s[start:end], true
	}
	return p.unescape(p.s[start:end]), true
}

// unescape decodes the escapes of a validated string body, as encoding/json
// does.
func (p *claiScan) unescape(body string) string {
	b := p.buf[:0]
	for {
		k := strings.IndexByte(body, '\\')
		if k < 0 {
			b = append(b, body...)
			break
		}
		b = append(b, body[:k]...)
		r, n := jsonscan.DecodeEscape(body[k:])
		b = utf8.AppendRune(b, r)
		body = body[k+n:]
	}
	p.buf = b
	return string(b)
}

// skip steps over one JSON value, checking its syntax.
func (p *claiScan) skip() bool {
	switch p.peek() {
	case '"':
		return p.skipString()
	case '{':
		return p.container('}', func() bool { return p.skipString() && p.next(':') && p.skip() })
	case '[':
		return p.container(']', p.skip)
	}
	end, ok := jsonscan.ScalarEnd(p.s, p.i)
	if ok {
		p.i = end
	}
	return ok
}

// container steps over an object or array whose opening byte is at p.i;
// elem steps over each member or element.
//
// Past jsonscan.MaxDepth (encoding/json's limit) it gives up, so that
// encoding/json rejects the row: the scan recurses, and a content_json of
// a few million '[' would otherwise overflow the stack and end the process.
func (p *claiScan) container(close byte, elem func() bool) bool {
	if p.depth >= jsonscan.MaxDepth {
		return false
	}
	p.depth++
	ok := p.elements(close, elem)
	p.depth--
	return ok
}

func (p *claiScan) elements(close byte, elem func() bool) bool {
	p.i++
	if p.next(close) {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if p.next(close) {
			return true
		}
		if !p.next(',') {
			return false
		}
	}
}

func (p *claiScan) skipString() bool {
	if !p.next('"') {
		return false
	}
	end, _, ok := jsonscan.StringEndIn(p.s, p.i)
	p.i = end + 1
	return ok
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
