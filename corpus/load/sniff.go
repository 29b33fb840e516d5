package load

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
	"github.com/calib-dev/calib/corpus/claudecode"
	"github.com/calib-dev/calib/corpus/codex"
	"github.com/calib-dev/calib/corpus/gemini"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
	"github.com/calib-dev/calib/corpus/opencode"
	"github.com/calib-dev/calib/corpus/smith"
)

// format is one format Load reads: how its files are recognised and read.
type format struct {
	name string
	// magic, when set, is the prefix that identifies a binary file.
	magic string
	// probe, when set, confirms a file with the magic by looking inside it
	// (which SQLite tables it has); formats sharing a magic are told apart
	// by it, in list order.
	probe func(p string) bool
	// record recognises the format's first record (its line, starting at
	// its opening bracket).
	record func(first []byte) bool
	// whole marks a single-document format (a session.json, an
	// index.json): known by the start of the file only, never by a later
	// line.
	whole bool
	// doc, when set, recognises a single-document format by the start of
	// the file (the whole sniff window): a pretty-printed JSON document
	// says what it is only after its first line.
	doc  func(head []byte) bool
	load func(p string, opts corpus.Options) ([]*corpus.Session, error)
	// read reads the format from memory (standard input); nil for formats
	// read only from a path (a database, a sessions root).
	read func(buf []byte, opts corpus.Options) ([]*corpus.Session, error)
	// what names a format read only from a path, for the error when it
	// arrives on standard input.
	what string
}

// formats lists every format calib reads, in the order a file is tried
// against them: the first that recognises it wins. A new format is one more
// entry here (and its package).
func formats() []format {
	return []format{
		{name: "opencode", magic: "SQLite format 3\x00", probe: opencode.IsDatabase, load: opencode.Load, what: "SQLite database (an opencode opencode.db)"},
		{name: "clai", magic: "SQLite format 3\x00", load: clai.Load, what: "SQLite database (a clai data.sqlite or an opencode.db)"},
		{name: "smith-index", record: smith.IsIndex, whole: true, what: "smith index.json (it lists the session folders beside it)",
			load: func(p string, opts corpus.Options) ([]*corpus.Session, error) {
				return smith.LoadRoot(filepath.Dir(p), opts)
			}},
		{name: "smith-transcript", record: smith.IsTranscriptLine, load: smith.LoadTranscript, read: readSmithTranscript},
		{name: "codex", record: codex.IsRecord, load: codex.Load, read: readStream(codex.Read)},
		{name: "gemini-cli", record: gemini.IsRecord, doc: gemini.IsConversation, load: gemini.Load, read: readStream(gemini.Read)},
		{name: "opencode-session", whole: true, doc: opencode.IsSessionFile, load: opencode.LoadSessionFile,
			what: "storage session file of opencode (it reads the message/ and part/ folders beside session/)"},
		{name: "claude-code", record: claudecode.IsRecord, load: claudecode.Load, read: readStream(claudecode.Read)},
		{name: "smith-session", record: smith.IsSession, whole: true, load: smith.LoadSessionFile, read: readSmithSession},
		{name: "smith-transcript", record: smith.IsMessageLine, load: smith.LoadTranscript, read: readSmithTranscript},
	}
}

// sniffLen is how much of a file is read to recognise it. Lines may be many
// megabytes, so detection looks only at the keys that open the first record,
// which every format writes first.
const sniffLen = 8 << 10

// binaryError says what a binary file that no format reads is: a
// compressed log (logs are often archived gzipped) gets told how to read
// it, anything else what was expected.
func binaryError(head []byte) error {
	for _, c := range compressions {
		if bytes.HasPrefix(head, []byte(c.magic)) {
			return errors.New(c.name + "-compressed; calib reads logs uncompressed: decompress it first (" + c.command + ")")
		}
	}
	return errors.New("binary content (NUL bytes or invalid UTF-8 near the start); expected a JSONL transcript, a session.json or a clai data.sqlite")
}

// compressions are the archive formats a log is likely to arrive in, by
// their magic numbers.
var compressions = []struct{ name, magic, command string }{
	{"gzip", "\x1f\x8b", "gunzip -k FILE, or gunzip -c FILE | calib ... -"},
	{"zstd", "\x28\xb5\x2f\xfd", "zstd -d FILE, or zstd -dc FILE | calib ... -"},
	{"xz", "\xfd7zXZ\x00", "xz -dk FILE, or xz -dc FILE | calib ... -"},
	{"zip", "PK\x03\x04", "unzip FILE"},
}

// sniffFile reports what a file holds, by content. An empty file is an
// error; so is a binary file that is not SQLite.
func sniffFile(p string) (*format, error) {
	f, err := jsonscan.Open(p)
	if err != nil {
		return nil, &corpus.FileError{Path: p, Err: err}
	}
	defer f.Close()
	buf := make([]byte, sniffLen)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, &corpus.FileError{Path: p, Err: err}
	}
	buf = buf[:n]
	if n == sniffLen && bytes.IndexByte(bytes.TrimLeft(buf, " \t\r\n"), '\n') < 0 {
		// The first record is longer than the window. The agents write
		// the keys that tell their formats apart first, but a log whose
		// keys were sorted since (jq -S, json.dumps(sort_keys=True))
		// holds them after a long message, beyond the window: such a
		// Claude Code log was refused, or taken for a smith transcript
		// by the keys of its nested message. Read the first line whole.
		if buf, err = readFirstLine(f, buf); err != nil {
			return nil, &corpus.FileError{Path: p, Err: err}
		}
	}
	if len(bytes.TrimSpace(buf)) == 0 {
		return nil, &corpus.FileError{Path: p, Err: errors.New("empty file; expected at least one JSON line or a SQLite database")}
	}
	fs := formats()
	for i := range fs {
		if fs[i].probe != nil && bytes.HasPrefix(buf, []byte(fs[i].magic)) && fs[i].probe(p) {
			return &fs[i], nil
		}
	}
	k := sniffBytes(buf)
	if k != nil && k.name == "smith-index" && filepath.Base(p) != "index.json" {
		// smith keeps its index only as index.json beside the session
		// folders, and its reader reads that name. Any other JSON array
		// ("[]" is any tool's empty list) is not a session file: in a
		// folder walk it is skipped like other files.
		return nil, nil
	}
	if k == nil && looksBinary(buf) {
		return nil, &corpus.FileError{Path: p, Err: binaryError(buf)}
	}
	return k, nil
}

// maxSniffLine bounds how much of a first line readFirstLine reads: a
// first record longer than that is judged by its first 64 MiB.
const maxSniffLine = 64 << 20

// readFirstLine extends buf, the start of r, to the end of its first line
// (or of r, or maxSniffLine).
func readFirstLine(r io.Reader, buf []byte) ([]byte, error) {
	chunk := make([]byte, 256<<10)
	for len(buf) < maxSniffLine {
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if bytes.IndexByte(chunk[:n], '\n') >= 0 || err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// sniffBytes recognises a format from the first bytes of a file, or
// returns nil. A JSONL file whose first record is damaged (a crash, a stray
// line) is recognised by the next complete lines in the window, so one bad
// line does not cost the whole file: the reader then warns about that line.
func sniffBytes(b []byte) *format {
	fs := formats()
	for i := range fs {
		// A format with a probe needs the file itself: sniffFile tries it.
		if fs[i].magic != "" && fs[i].probe == nil && bytes.HasPrefix(b, []byte(fs[i].magic)) {
			return &fs[i]
		}
	}
	b = bytes.TrimLeft(b, " \t\r\n\xef\xbb\xbf")
	if len(b) == 0 {
		return nil
	}
	f := sniffRecord(fs, b, true)
	for rest := b; f == nil; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		rest = bytes.TrimLeft(rest[i+1:], " \t\r\n")
		if bytes.IndexByte(rest, '\n') < 0 {
			break // only whole lines count: the window may cut the last one
		}
		f = sniffRecord(fs, rest, false)
	}
	return f
}

// sniffRecord returns the first format that recognises the record b starts
// with; single-document formats only at the start of the file.
func sniffRecord(fs []format, b []byte, atStart bool) *format {
	if b[0] != '{' && b[0] != '[' {
		return nil
	}
	first := b
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		first = b[:i]
	}
	first = compactLine(first)
	for i := range fs {
		if fs[i].record != nil && (atStart || !fs[i].whole) && fs[i].record(first) {
			return &fs[i]
		}
		if atStart && fs[i].doc != nil && fs[i].doc(b) {
			return &fs[i]
		}
	}
	return nil
}

// compactLine is a JSON line without the whitespace between its tokens:
// the formats' record tests match keys as the agents write them, compact
// ("type":"session_meta"), and a log re-serialised by another tool (a
// redaction script's json.dumps writes ", " and ": ") was taken for
// another format or none. The line may be cut by the sniff window; strings
// are copied as they are.
func compactLine(b []byte) []byte {
	if bytes.IndexAny(b, " \t\r") < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\r':
			continue
		}
		out = append(out, c)
	}
	return out
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
