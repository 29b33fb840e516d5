package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// legacy reads the single-document .json of older Gemini CLI builds: a
// ConversationRecord whose messages are the MessageRecords the JSONL format
// writes one per line. The document is walked token by token so that each
// message's warnings name its line, and a file cut mid-write (the recorder
// rewrote the whole file on every change) keeps the messages before the cut.
func (l *loader) legacy(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	lines := &lineCounter{doc: doc}
	var meta sessionMeta
	defer func() {
		// Applied also when the document is cut: what was read counts.
		if meta.SessionID != nil && meta.ProjectHash != nil {
			l.meta = true
		}
		l.setMeta(&meta, 0)
	}()
	// cut reports a document that stops being JSON at the value that
	// starts after byte off, and keeps what was read before it.
	cut := func(off int64, err error) error {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			n := 1 + bytes.Count(bytes.TrimRight(doc, " \t\r\n"), []byte{'\n'})
			l.warn(n, "the chat file is cut at line %d: the document ends before it is complete JSON; the %d message(s) before the cut are kept", n, len(l.entries))
			return nil
		}
		n := lines.at(syntaxErrorAt(doc, off))
		l.warn(n, "invalid JSON at line %d (%v); the %d message(s) before it are kept, the rest of the document is skipped", n, err, len(l.entries))
		return nil
	}
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("expected a Gemini CLI chat: a JSON object with sessionId, projectHash and messages (%w)", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("expected a Gemini CLI chat: a JSON object with sessionId, projectHash and messages, got %v", tok)
	}
	for dec.More() {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return cut(off, err)
		}
		key, _ := tok.(string)
		switch key {
		case "messages":
			if off, err := l.legacyMessages(dec, lines); err != nil {
				return cut(off, err)
			}
		case "sessionId", "projectHash", "startTime", "lastUpdated", "summary", "kind":
			off := dec.InputOffset()
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return cut(off, err)
			}
			dst := map[string]any{"sessionId": &meta.SessionID, "projectHash": &meta.ProjectHash, "startTime": &meta.StartTime,
				"lastUpdated": &meta.LastUpdated, "summary": &meta.Summary, "kind": &meta.Kind}[key]
			if err := json.Unmarshal(v, dst); err != nil {
				l.warn(lines.at(valueStart(doc, off)), "%s is %s, expected a string; ignored", key, describe(v))
			}
		default:
			off := dec.InputOffset()
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return cut(off, err)
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return cut(dec.InputOffset(), err)
	}
	return nil
}

// legacyMessages reads the messages array element by element; on error it
// returns the offset after which the failing value starts.
func (l *loader) legacyMessages(dec *json.Decoder, lines *lineCounter) (int64, error) {
	doc := lines.doc
	off := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return off, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return off, fmt.Errorf("messages is not a list (got %v)", tok)
	}
	for dec.More() {
		off := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return off, err
		}
		n := lines.at(valueStart(doc, off))
		var r struct {
			ID *string `json:"id"`
		}
		if err := json.Unmarshal(raw, &r); err != nil || r.ID == nil {
			l.warn(n, "message is not a message record with an id (expected {id, timestamp, type, content}); skipped")
			continue
		}
		l.put(*r.ID, raw, n)
	}
	off = dec.InputOffset()
	_, err = dec.Token()
	return off, err
}

// valueStart is where the value after byte off starts: past whitespace and
// the separator before it.
func valueStart(doc []byte, off int64) int64 {
	for int(off) < len(doc) && bytes.IndexByte([]byte(" \t\r\n,:"), doc[off]) >= 0 {
		off++
	}
	return off
}

// syntaxErrorAt finds where the value after byte off stops being JSON:
// decoding from its start fails at the same byte (json.Decoder reports
// offsets relative to its buffer, not the document).
func syntaxErrorAt(doc []byte, off int64) int64 {
	start := valueStart(doc, off)
	var v any
	var se *json.SyntaxError
	if err := json.Unmarshal(doc[start:], &v); errors.As(err, &se) {
		return start + se.Offset - 1
	}
	return start
}

// lineCounter gives the 1-based line of a byte of doc. The walk asks for
// lines in document order, so it counts the newlines from the last byte
// asked about on, not from the start: counting from the start for every
// message made a long pretty-printed chat quadratic (40,000 messages took
// 5.3 s against 0.5 s for the same chat as JSONL). An offset before the
// last one is counted from the start again.
type lineCounter struct {
	doc  []byte
	off  int // the last offset asked about
	line int // its line, minus one
}

func (c *lineCounter) at(off int64) int {
	o := max(0, min(int(off), len(c.doc)))
	if o < c.off {
		c.off, c.line = 0, 0
	}
	c.line += bytes.Count(c.doc[c.off:o], []byte{'\n'})
	c.off = o
	return 1 + c.line
}
