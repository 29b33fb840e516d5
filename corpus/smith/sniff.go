package smith

import (
	"bytes"
	"io"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// How a smith file is recognised by its first record (first is the record's
// line, starting at its opening bracket). corpus/load tries these in its
// ordered list of formats.

// IsIndex recognises a sessions root's index.json.
func IsIndex(first []byte) bool {
	return first[0] == '[' && (bytes.Contains(first, []byte(`"first_prompt"`)) || bytes.Contains(first, []byte(`"message_count"`)) ||
		bytes.Equal(bytes.TrimSpace(first), []byte("[]")))
}

// IsTranscriptLine recognises a transcript line as smith writes it:
// "role" first.
func IsTranscriptLine(first []byte) bool {
	return bytes.HasPrefix(first, []byte(`{"role":`))
}

// IsSession recognises a session.json (or a legacy <id>.json).
func IsSession(first []byte) bool {
	return first[0] == '{' && bytes.Contains(first, []byte(`"messages":`)) &&
		(bytes.HasPrefix(first, []byte(`{"id":`)) || bytes.Contains(first, []byte(`"created_at":`)))
}

// IsMessageLine recognises a message line whose keys were written in
// another order (a hand-edited or re-serialised transcript). It is tried
// last: other formats' records hold "role" and "content" too.
func IsMessageLine(first []byte) bool {
	return first[0] == '{' && bytes.Contains(first, []byte(`"role":`)) && bytes.Contains(first, []byte(`"content":`))
}

// smithSniffLen is how much of a .json file beside index.json is read to
// tell a legacy session file from other JSON.
const smithSniffLen = 8 << 10

// isSmithSessionFile reports whether the file at p starts like a
// session.json.
func isSmithSessionFile(p string) bool {
	f, err := jsonscan.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, smithSniffLen)
	n, _ := io.ReadFull(f, buf)
	b := bytes.TrimLeft(buf[:n], " \t\r\n\xef\xbb\xbf")
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return len(b) > 0 && IsSession(b)
}
