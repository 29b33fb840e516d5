package smith

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// The scanning primitives of the fast line decoder (decode.go).

// scanString scans the string whose opening quote is at d.i, validating
// it by jsonscan's one rule (escapes, no raw control characters, UTF-8).
// Without inPlace it is jsonscan.StringEnd. With inPlace it also
// unescapes as it goes: once an escape has shortened the text by gap
// bytes, every byte read at i is written back at i-gap (whole words in the
// fast loop), and it returns the bounds of the decoded contents. The line
// is saved before its first byte changes, so that a later decline can
// restore it. Without inPlace nothing is written and pending reports
// escapes left to decode.
func (d *lineDecoder) scanString(inPlace bool) (start, end int, pending, ok bool) {
	b := d.b
	i := d.i + 1
	start = i
	if !inPlace {
		end, pending, ok := jsonscan.StringEnd(b, i)
		if !ok {
			return 0, 0, false, false
		}
		d.i = end + 1
		return start, end, pending, true
	}
	gap := 0
	for {
		// Eight bytes at a time, find the first byte that is '"', '\\',
		// below 0x20 or non-ASCII (see jsonscan.Special).
		if gap == 0 {
			for i+16 <= len(b) {
				if t := jsonscan.Special(binary.LittleEndian.Uint64(b[i:])); t != 0 {
					i += bits.TrailingZeros64(t) >> 3
					goto found
				}
				if t := jsonscan.Special(binary.LittleEndian.Uint64(b[i+8:])); t != 0 {
					i += 8 + bits.TrailingZeros64(t)>>3
					goto found
				}
				i += 16
			}
		} else {
			// Moving text left over the escapes seen so far. A clean word
			// is stored whole: it only overwrites bytes already loaded.
			for i+8 <= len(b) {
				x := binary.LittleEndian.Uint64(b[i:])
				if t := jsonscan.Special(x); t != 0 {
					for k := bits.TrailingZeros64(t) >> 3; k > 0; k-- {
						b[i-gap] = b[i]
						i++
					}
					goto found
				}
				binary.LittleEndian.PutUint64(b[i-gap:], x)
				i += 8
			}
		}
		for i < len(b) {
			c := b[i]
			if c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
				goto found
			}
			if gap > 0 {
				b[i-gap] = c
			}
			i++
		}
		return 0, 0, false, false
	found:
		c := b[i]
		switch {
		case c >= utf8.RuneSelf:
			size := jsonscan.UTF8Len(b[i:])
			if size == 0 {
				return 0, 0, false, false
			}
			if gap > 0 {
				copy(b[i-gap:], b[i:i+size])
			}
			i += size
		case c == '"':
			d.i = i + 1
			return start, i - gap, false, true
		case c < 0x20:
			return 0, 0, false, false
		default: // a backslash, decoded here
			if !d.saved {
				d.orig = append(d.orig[:0], b...)
				d.saved = true
			}
			// The common escapes (\n, \t, \", \\) inline; \u via unescapeOne.
			if i+1 < len(b) {
				if e := jsonscan.SimpleEscape(b[i+1]); e != 0 {
					b[i-gap] = e
					i += 2
					gap++
					continue
				}
			}
			if escapeLen(b[i:]) == 0 {
				return 0, 0, false, false
			}
			wn, rn := unescapeOne(b[i-gap:], b[i:])
			i += rn
			gap += rn - wn
		}
	}
}

// escapeLen validates the escape at b[0] == '\\' and returns its length
// (2 or 6), or 0 if it is not valid JSON.
func escapeLen(b []byte) int {
	_, n := jsonscan.DecodeEscape(b)
	return min(n, 6)
}

// unescapeOne decodes the escape at src[0] (already validated) into dst,
// which may overlap src at or before it, and returns the bytes written and
// read.
func unescapeOne(dst, src []byte) (written, read int) {
	r, n := jsonscan.DecodeEscape(src)
	return jsonscan.PutRune(dst, r), n
}

// sep consumes what follows an element of an object or array: a ',' (more
// follows) or the closing byte (done, ok). Anything else is a syntax error.
func (d *lineDecoder) sep(close byte) (more, ok bool) {
	d.i, more, ok = jsonscan.Sep(d.b, d.i, close)
	return more, ok
}

// skipValue validates and skips any JSON value, by the decoder's reused
// jsonscan.Scanner (keys inside it are only validated, so escaped ones are
// fine; nesting past jsonscan.MaxDepth declines).
func (d *lineDecoder) skipValue() bool {
	d.skip.B, d.skip.I, d.skip.Err = d.b, d.i, nil
	if !d.skip.Skip() {
		return false
	}
	d.i = d.skip.I
	return true
}

// unescape decodes the escapes of a validated JSON string body in place
// and returns the shortened slice.
func unescape(b []byte) []byte {
	w, r := 0, 0
	for r < len(b) {
		// Copy the run up to the next backslash in one move.
		j := len(b)
		if k := bytes.IndexByte(b[r:], '\\'); k >= 0 {
			j = r + k
		}
		w += copy(b[w:], b[r:j])
		if r = j; r >= len(b) {
			break
		}
		ch, n := jsonscan.DecodeEscape(b[r:])
		w += jsonscan.PutRune(b[w:], ch)
		r += n
	}
	return b[:w]
}
