package smith

import (
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// Why a hand-written decoder: loading must run at least twice as fast as a
// Python loop doing json.loads per line (~170 MB/s here). encoding/json
// reaches ~130 MB/s on this shape and allocates a copy of every string
// (go-style.md §6); faster libraries still copy every string, which puts
// peak memory near 2x the input. smith's lines have one small, fixed shape,
// so this decoder:
//   - scans strings 8 bytes at a time (SWAR) for '"', '\\', control
//     characters and non-ASCII bytes (validated as UTF-8 where they occur),
//     so each byte of text is looked at once;
//   - unescapes JSON strings in place (an unescaped string is never longer
//     than its escaped form) and returns strings that point into the file's
//     read buffer (unsafe.String), so text is never copied and a loaded
//     transcript costs about its file size;
//   - keeps tool_args as the exact bytes of the file (a sub-slice).
//
// It unescapes in place as it scans, after saving the line, and declines
// (returns false, with the line restored) on anything unusual: a syntax
// error, a wrong type, a duplicate or escaped key, a key encoding/json
// might match case-insensitively, a null block, invalid UTF-8. The caller
// then decodes the line with encoding/json (decodeSmithLineStd), which
// gives the exact error, so on valid input both paths produce identical
// results; the fuzz target and the differential test check exactly that.
// Strings of a block whose type is unknown keep its raw JSON intact (it
// becomes Payload) and are copied instead.
//
// Strings returned here alias the buffer: the buffer must never be written
// again, which holds because each line is decoded once.

// smithLine is one decoded message line (or session.json message) before
// it becomes a Message.
type smithLine struct {
	Role         string
	Blocks       []corpus.Block
	Synthetic    bool
	HasSynthetic bool
	ID           string
	HasID        bool
}

// A block's keys, numbered: a key's number is its bit in the block's seen
// mask and, for a string, the field its span fills (blockKeys spells them).
const (
	fType = iota // validated at parse time, never stored
	fText
	fToolCallID
	fToolName
	fSignature
	fMediaType
	fSource
	fMediaRef
	fToolArgs // kept raw
	fIsError  // a bool
	// The message's own strings.
	fRole
	fID
)

// strSpan is a string value found while scanning, materialised only once
// the whole line is known to be good.
type strSpan struct {
	block int // -1 for the message itself
	field uint8
	// pending: escapes not decoded yet (the string was scanned before its
	// block's type was known).
	pending    bool
	start, end int
}

// lineDecoder holds scratch space reused across lines.
type lineDecoder struct {
	b     []byte
	i     int
	spans []strSpan
	// copyBlocks marks blocks of unknown type: their raw JSON is kept as
	// Payload, so their strings must be copied, not unescaped in place.
	copyBlocks []bool
	// inPlace: strings of the current block may be unescaped as they are
	// scanned (its type is known).
	inPlace bool
	// orig holds the line as it was before the first in-place write, so a
	// decline can hand encoding/json the untouched line.
	orig  []byte
	saved bool
	// skip skips the values the model does not use.
	skip jsonscan.Scanner
}

// decode decodes one line into out. It returns false, leaving line
// untouched, when the line must go to encoding/json instead. The line must
// already be valid UTF-8.
func (d *lineDecoder) decode(line []byte, out *smithLine) bool {
	*out = smithLine{}
	d.b, d.i, d.spans, d.copyBlocks, d.saved = line, 0, d.spans[:0], d.copyBlocks[:0], false
	d.ws()
	if !d.message(out) || (d.peek() != 0 || d.i != len(d.b)) {
		if d.saved {
			copy(line, d.orig)
		}
		*out = smithLine{}
		return false
	}
	d.materialize(out)
	return true
}

func (d *lineDecoder) ws() {
	d.i = jsonscan.SkipSpace(d.b, d.i)
}

// peek returns the next non-space byte, or 0 at the end.
func (d *lineDecoder) peek() byte {
	c, i := jsonscan.Next(d.b, d.i)
	d.i = i
	return c
}

func (d *lineDecoder) literal(s string) bool {
	d.ws()
	if len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

// key reads an object key with no escapes and returns it (aliasing the
// line; only compared, never kept).
func (d *lineDecoder) key() (string, bool) {
	if d.peek() != '"' {
		return "", false
	}
	start, end, esc, ok := d.scanString(false)
	if !ok || esc {
		return "", false
	}
	d.ws()
	if d.i >= len(d.b) || d.b[d.i] != ':' {
		return "", false
	}
	d.i++
	return unsafe.String(unsafe.SliceData(d.b[start:]), end-start), true
}

// object iterates over the members of an object, calling member after
// each key; member must consume the value.
func (d *lineDecoder) object(member func(k string) bool) bool {
	if d.peek() != '{' {
		return false
	}
	return d.elements('}', func() bool {
		k, ok := d.key()
		return ok && member(k)
	})
}

// elements reads the members or elements of the object or array whose
// opening byte is at d.i, up to its closing byte; elem consumes each.
func (d *lineDecoder) elements(close byte, elem func() bool) bool {
	d.i++
	if d.peek() == close {
		d.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		if more, ok := d.sep(close); !more {
			return ok
		}
	}
}

// message parses {"role":…,"content":[…],"synthetic":…,"id":…}.
func (d *lineDecoder) message(out *smithLine) bool {
	var seen uint8
	return d.object(func(k string) bool {
		var bit uint8
		switch k {
		case "role":
			bit = 1
		case "content":
			bit = 2
		case "synthetic":
			bit = 4
		case "id":
			bit = 8
		default:
			return d.unknownKey(k, messageKeys)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case 1:
			return d.stringOrNull(-1, fRole)
		case 2:
			return d.content(out)
		case 4:
			switch {
			case d.literal("true"):
				out.Synthetic, out.HasSynthetic = true, true
			case d.literal("false"):
				out.Synthetic, out.HasSynthetic = false, true
			case d.literal("null"):
			default:
				return false
			}
			return true
		default:
			if d.peek() == '"' {
				out.HasID = true
			}
			return d.stringOrNull(-1, fID)
		}
	})
}

var (
	messageKeys = []string{"role", "content", "synthetic", "id"}
	blockKeys   = []string{fType: "type", fText: "text", fToolCallID: "tool_call_id", fToolName: "tool_name",
		fSignature: "signature", fMediaType: "media_type", fSource: "source", fMediaRef: "media_ref",
		fToolArgs: "tool_args", fIsError: "is_error"}
)

// unknownKey skips the value of a key the model does not use, unless
// encoding/json could match it to a known field case-insensitively (then
// the line goes to encoding/json).
func (d *lineDecoder) unknownKey(k string, known []string) bool {
	for i := 0; i < len(k); i++ {
		if k[i] >= utf8.RuneSelf {
			return false
		}
	}
	for _, kk := range known {
		if asciiEqualFold(k, kk) {
			return false
		}
	}
	return d.skipValue()
}

func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// stringOrNull records a string value for (block, field), or accepts null,
// which encoding/json treats as "leave unchanged".
func (d *lineDecoder) stringOrNull(block int, field uint8) bool {
	switch d.peek() {
	case '"':
		start, end, pending, ok := d.scanString(block < 0 || d.inPlace)
		if !ok {
			return false
		}
		d.spans = append(d.spans, strSpan{block: block, field: field, pending: pending, start: start, end: end})
		return true
	case 'n':
		return d.literal("null")
	}
	return false
}

// content parses the block array, or null.
func (d *lineDecoder) content(out *smithLine) bool {
	switch d.peek() {
	case 'n':
		if !d.literal("null") {
			return false
		}
		out.Blocks = nil
		return true
	case '[':
	default:
		return false
	}
	return d.elements(']', func() bool {
		// null or a wrong type: encoding/json decides
		return d.peek() == '{' && d.block(out)
	})
}

// block parses one content block object.
func (d *lineDecoder) block(out *smithLine) bool {
	idx := len(out.Blocks)
	out.Blocks = append(out.Blocks, corpus.Block{})
	d.copyBlocks = append(d.copyBlocks, false)
	start := d.i
	d.inPlace = false
	var seen uint16
	typeStart, typeEnd := -1, -1
	ok := d.object(func(k string) bool {
		field := slices.Index(blockKeys, k)
		if field < 0 {
			return d.unknownKey(k, blockKeys)
		}
		bit := uint16(1) << field
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		switch field {
		case fType:
			if d.peek() != '"' {
				return d.literal("null")
			}
			s, e, esc, ok := d.scanString(false)
			if !ok || esc {
				return false
			}
			typeStart, typeEnd = s, e
			_, d.inPlace = smithKind(unsafe.String(unsafe.SliceData(d.b[s:]), e-s))
			return true
		case fToolArgs:
			d.ws()
			vs := d.i
			if !d.skipValue() {
				return false
			}
			out.Blocks[idx].Args = d.b[vs:d.i:d.i]
			return true
		case fIsError:
			switch {
			case d.literal("true"):
				out.Blocks[idx].IsError = true
			case d.literal("false"):
				out.Blocks[idx].IsError = false
			case d.literal("null"):
			default:
				return false
			}
			return true
		}
		return d.stringOrNull(idx, uint8(field))
	})
	if !ok {
		return false
	}
	typ := ""
	if typeStart >= 0 {
		typ = unsafe.String(unsafe.SliceData(d.b[typeStart:]), typeEnd-typeStart)
	}
	kind, known := smithKind(typ)
	out.Blocks[idx].Kind = kind
	if !known {
		out.Blocks[idx].Payload = d.b[start:d.i:d.i]
		d.copyBlocks[idx] = true
	}
	return true
}

// materialize turns the recorded spans into strings, unescaping in place.
func (d *lineDecoder) materialize(out *smithLine) {
	for _, sp := range d.spans {
		var s string
		switch {
		case sp.end == sp.start:
		case !sp.pending:
			s = unsafe.String(&d.b[sp.start], sp.end-sp.start)
		case sp.block >= 0 && d.copyBlocks[sp.block]:
			// The raw block is kept as Payload: unescape into a copy.
			s = string(unescape(append([]byte(nil), d.b[sp.start:sp.end]...)))
		default:
			u := unescape(d.b[sp.start:sp.end])
			if len(u) > 0 {
				s = unsafe.String(&u[0], len(u))
			}
		}
		if sp.block < 0 {
			if sp.field == fRole {
				out.Role = s
			} else {
				out.ID = s
			}
			continue
		}
		*blockString(&out.Blocks[sp.block], sp.field) = s
	}
}

// blockString is the field of b that a string key fills (fText to fMediaRef).
func blockString(b *corpus.Block, field uint8) *string {
	return [...]*string{fText: &b.Text, fToolCallID: &b.ToolCallID, fToolName: &b.ToolName, fSignature: &b.Signature,
		fMediaType: &b.MediaType, fSource: &b.Source, fMediaRef: &b.MediaRef}[field]
}
