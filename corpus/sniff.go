package corpus

import (
	"bytes"
	"errors"
	"io"
	"os"
	"unicode/utf8"
)

type sniffKind int

const (
	sniffUnknown sniffKind = iota
	sniffSQLite
	sniffSmithTranscript
	sniffSmithSession
	sniffSmithIndex
	sniffClaudeCode
	sniffCodex
)

// sniffLen is how much of a file is read to recognise it. Lines may be many
// megabytes, so detection looks only at the keys that open the first record,
// which every format writes first.
const sniffLen = 8 << 10

var errBinary = errors.New("binary content (NUL bytes or invalid UTF-8 near the start); expected a JSONL transcript, a session.json or a clai data.sqlite")

// sniffFile reports what a file holds, by content. An empty file is an
// error; so is a binary file that is not SQLite.
func sniffFile(p string) (sniffKind, error) {
	f, err := os.Open(p)
	if err != nil {
		return sniffUnknown, &FileError{Path: p, Err: err}
	}
	defer f.Close()
	buf := make([]byte, sniffLen)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return sniffUnknown, &FileError{Path: p, Err: err}
	}
	buf = buf[:n]
	if len(bytes.TrimSpace(buf)) == 0 {
		return sniffUnknown, &FileError{Path: p, Err: errors.New("empty file; expected at least one JSON line or a SQLite database")}
	}
	k := sniffBytes(buf)
	if k == sniffUnknown && looksBinary(buf) {
		return sniffUnknown, &FileError{Path: p, Err: errBinary}
	}
	return k, nil
}

// sniffBytes recognises a format from the first bytes of a file. A JSONL
// file whose first record is damaged (a crash, a stray line) is recognised
// by the next complete lines in the window, so one bad line does not cost
// the whole file: the reader then warns about that line.
func sniffBytes(b []byte) sniffKind {
	if bytes.HasPrefix(b, []byte("SQLite format 3\x00")) {
		return sniffSQLite
	}
	b = bytes.TrimLeft(b, " \t\r\n\xef\xbb\xbf")
	if len(b) == 0 {
		return sniffUnknown
	}
	k := sniffRecord(b)
	for rest := b; k == sniffUnknown; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		rest = bytes.TrimLeft(rest[i+1:], " \t\r\n")
		if bytes.IndexByte(rest, '\n') < 0 {
			break // only whole lines count: the window may cut the last one
		}
		if k = sniffRecord(rest); k == sniffSmithIndex || k == sniffSmithSession {
			k = sniffUnknown // single-document formats are known by their start only
		}
	}
	return k
}

// sniffRecord recognises the record b starts with.
func sniffRecord(b []byte) sniffKind {
	first := b
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		first = b[:i]
	}
	has := func(s string) bool { return bytes.Contains(first, []byte(s)) }
	switch b[0] {
	case '[':
		if has(`"first_prompt"`) || has(`"message_count"`) || bytes.Equal(bytes.TrimSpace(first), []byte("[]")) {
			return sniffSmithIndex
		}
		return sniffUnknown
	case '{':
	default:
		return sniffUnknown
	}
	switch {
	case bytes.HasPrefix(b, []byte(`{"role":`)):
		return sniffSmithTranscript
	case has(`"payload":`) && (has(`"type":"session_meta"`) || has(`"type":"response_item"`) ||
		has(`"type":"turn_context"`) || has(`"type":"event_msg"`) || has(`"type":"compacted"`)):
		return sniffCodex
	case has(`"parentUuid":`) || has(`"sessionId":`) || has(`"leafUuid":`) ||
		bytes.HasPrefix(b, []byte(`{"type":"file-history-snapshot"`)) || bytes.HasPrefix(b, []byte(`{"type":"summary"`)):
		return sniffClaudeCode
	case has(`"messages":`) && (bytes.HasPrefix(b, []byte(`{"id":`)) || has(`"created_at":`)):
		return sniffSmithSession
	case has(`"role":`) && has(`"content":`):
		// A message line whose keys were written in another order (a
		// hand-edited or re-serialised transcript).
		return sniffSmithTranscript
	}
	return sniffUnknown
}

func looksBinary(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	// Allow a multi-byte character cut by the sniff window.
	for len(b) > 0 && !utf8.Valid(b) {
		if len(b) > utf8.UTFMax && !utf8.Valid(b[:len(b)-utf8.UTFMax]) {
			return true
		}
		return false
	}
	return false
}
