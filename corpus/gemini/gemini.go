// Package gemini reads Gemini CLI chat files
// (~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl, and
// the single .json document older builds wrote) into the corpus model.
//
// The shapes are those of google-gemini/gemini-cli
// packages/core/src/services/chatRecordingTypes.ts and
// chatRecordingService.ts (read at commit 04741d1d7383bce06c0f0a22101561b619a75dd3):
//
//   - The first JSONL record is the session metadata {sessionId, projectHash,
//     startTime, lastUpdated, kind?, directories?}; {"$set": {...}} records
//     update it later (lastUpdated, summary, directories).
//   - Every other record with an "id" is a message: {id, timestamp, type,
//     content, displayContent?}, type user | gemini | info | error | warning;
//     a gemini message adds toolCalls [{id, name, args, result, status,
//     timestamp}], thoughts [{subject, description, timestamp}], tokens
//     {input, output, cached, thoughts, tool, total} and model. The recorder
//     appends a message again each time it changes (tokens arrive, a tool
//     call completes, a result is masked): as loadConversationRecord does, a
//     later record replaces the earlier one but keeps its position.
//   - {"$rewindTo": id} removes that message and every later one (the user
//     rewound the conversation); an unknown id removes everything.
//   - Tool results are kept inside the gemini message's toolCalls, not as
//     messages: each call's result (functionResponse parts) becomes a tool
//     message right after its assistant message, paired by the call id.
//   - info, error and warning records are what the CLI showed the user; they
//     were never sent to the model, so they are not history. The CLI records
//     its compression notice as an info record, which is how a compression
//     shows in the file (compress.go): the <state_snapshot> summary itself is
//     not written, and the file keeps the full uncompressed history.
//   - The legacy .json is one ConversationRecord {sessionId, projectHash,
//     startTime, lastUpdated, messages: [...]} with the same message shape.
package gemini

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// record is any line of a chat file (or element of a legacy document's
// messages). Which kind it is follows from the keys present, in the order
// gemini-cli's loader tests them: $rewindTo, id, $set, sessionId+projectHash.
type record struct {
	RewindTo    *string      `json:"$rewindTo"`
	Set         *sessionMeta `json:"$set"`
	ID          *string      `json:"id"`
	message                  // message fields (when ID is set)
	sessionMeta              // metadata fields (the first line)
}

// message is a MessageRecord.
type message struct {
	// Timestamp and Tokens are kept raw and read in finish, so that one of
	// another type (a number for a time, a string for a count) costs the
	// message its time or its usage, with a warning, not the message.
	Timestamp json.RawMessage `json:"timestamp"`
	Type      *string         `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []toolCall      `json:"toolCalls"`
	Thoughts  []thought       `json:"thoughts"`
	Tokens    json.RawMessage `json:"tokens"`
	Model     string          `json:"model"`
}

type toolCall struct {
	ID        *string         `json:"id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Result    json.RawMessage `json:"result"`
	Status    string          `json:"status"`
	Timestamp string          `json:"timestamp"`
}

// paired reports whether a call has an id its result can be paired by:
// one without (absent or "") is skipped, its result with it.
func (tc *toolCall) paired() bool { return tc.ID != nil && *tc.ID != "" }

type thought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

// tokens is TokensSummary; pointers tell a missing count from a zero.
type tokens struct {
	Input    *int64 `json:"input"`
	Output   *int64 `json:"output"`
	Cached   *int64 `json:"cached"`
	Thoughts *int64 `json:"thoughts"`
	Tool     *int64 `json:"tool"`
	Total    *int64 `json:"total"`
}

// sessionMeta is the metadata record and the payload of $set.
type sessionMeta struct {
	SessionID   *string `json:"sessionId"`
	ProjectHash *string `json:"projectHash"`
	StartTime   string  `json:"startTime"`
	LastUpdated string  `json:"lastUpdated"`
	Summary     string  `json:"summary"`
	Kind        string  `json:"kind"`
}

// entry is one message as it stands after the records so far: its last
// record, raw until decode.
type entry struct {
	id   string
	line int
	raw  []byte
	m    message
	time time.Time // m.Timestamp parsed
}

type loader struct {
	path    string
	s       *corpus.Session
	tally   jsonscan.Tallies
	entries []*entry
	pos     map[string]int // id -> index in entries
	meta    bool           // a metadata record was seen
}

// Load reads one chat file, JSONL or legacy .json.
func Load(p string, opts corpus.Options) ([]*corpus.Session, error) {
	return jsonscan.LoadFile(p, opts, Read)
}

// Read reads a chat file from r; p names it in the session and warnings.
// A JSONL file is streamed (only the latest version of each message is
// kept); a legacy .json is one document and is read whole.
func Read(p string, r io.Reader, _ corpus.Options) ([]*corpus.Session, error) {
	l := &loader{path: p, tally: jsonscan.NewTallies(), pos: map[string]int{},
		s: &corpus.Session{Format: corpus.FormatGemini, Path: p}}
	br := bufio.NewReaderSize(r, 64<<10)
	first, n, cut, err := firstLine(br)
	if err != nil {
		return nil, jsonscan.ReadError(p, err)
	}
	if isLegacyStart(first) {
		rest, err := io.ReadAll(br)
		if err != nil {
			return nil, jsonscan.ReadError(p, err)
		}
		doc := append(bytes.Repeat([]byte{'\n'}, n-1), first...)
		if err := l.legacy(append(append(doc, '\n'), rest...)); err != nil {
			return nil, &corpus.FileError{Path: p, Err: err}
		}
	} else {
		if first != nil {
			l.line(n, first, cut)
		}
		err := jsonscan.StreamLines(br, func(k int, b []byte, final bool) error {
			l.line(n+k, b, final)
			return nil
		})
		if err != nil {
			return nil, jsonscan.ReadError(p, err)
		}
	}
	l.finish()
	return []*corpus.Session{l.s}, nil
}

// firstLine returns the first non-blank line (a byte-order mark removed)
// and its 1-based number; nil at the end of input. cut is true when that
// line has no newline: it is the whole input, perhaps cut mid-write.
func firstLine(br *bufio.Reader) (line []byte, n int, cut bool, err error) {
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			n++
			if n == 1 {
				b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
			}
			if len(bytes.TrimSpace(b)) > 0 {
				return bytes.TrimRight(b, "\r\n"), n, err == io.EOF, nil
			}
		}
		if err == io.EOF {
			return nil, n, false, nil
		}
		if err != nil {
			return nil, n, false, err
		}
	}
}

// isLegacyStart tells a legacy document from JSONL by its first line: the
// legacy recorder wrote JSON.stringify(conversation, null, 2), whose first
// line is a lone "{"; a compact legacy document is one object that holds
// the messages.
func isLegacyStart(first []byte) bool {
	t := bytes.TrimSpace(first)
	if bytes.Equal(t, []byte("{")) {
		return true
	}
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return false
	}
	var probe struct {
		Messages json.RawMessage `json:"messages"`
	}
	return json.Unmarshal(t, &probe) == nil && probe.Messages != nil
}

func (l *loader) warn(line int, format string, args ...any) {
	l.s.Warnings = append(l.s.Warnings, corpus.Warnf(l.path, line, format, args...))
}

// line handles one JSONL record.
func (l *loader) line(n int, b []byte, final bool) {
	if t := bytes.TrimLeft(b, " \t"); len(t) == 0 || t[0] != '{' {
		l.warn(n, "expected a JSON object, got %s; line skipped", describe(t))
		return
	}
	if !jsonscan.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		if final {
			l.warn(n, "the chat file is cut mid-line: the last line (%d bytes, no newline) is not complete JSON; line skipped", len(b))
		} else {
			l.warn(n, "invalid JSON (%v); line skipped", err)
		}
		return
	}
	// A message record is kept raw and decoded once, at the end: the
	// recorder appends each message again on every change, and only its
	// last version counts. Its id comes first (JSON.stringify keeps the
	// order newMessage builds), so it is read without decoding the line.
	if id, ok := leadingID(b); ok {
		l.put(id, bytes.Clone(b), n)
		return
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		l.typeError(n, err)
		return
	}
	l.record(&r, b, n)
}

// leadingID reads the id of a line that starts {"id":"<id>" with no escape
// in the id.
func leadingID(b []byte) (string, bool) {
	const prefix = `{"id":"`
	if !bytes.HasPrefix(b, []byte(prefix)) {
		return "", false
	}
	rest := b[len(prefix):]
	i := bytes.IndexAny(rest, `"\`)
	if i < 0 || rest[i] != '"' {
		return "", false
	}
	return string(rest[:i]), true
}

// typeError reports a valid JSON record whose fields have other types.
func (l *loader) typeError(n int, err error) {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := strings.TrimPrefix(strings.TrimPrefix(te.Field, "message."), "sessionMeta.")
		l.warn(n, "%s is a JSON %s, expected %s; line skipped", field, te.Value, goType(te.Type.String()))
		return
	}
	l.warn(n, "%v; line skipped", err)
}

// goType names a Go type of the record as the JSON it stands for.
func goType(t string) string {
	switch {
	case strings.Contains(t, "string"):
		return "a string"
	case strings.Contains(t, "int"):
		return "a number"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case t == "bool":
		return "true or false"
	}
	return "an object"
}

// describe names what a line starts with, for a warning.
func describe(b []byte) string {
	if len(b) > 20 {
		b = b[:20]
	}
	return fmt.Sprintf("%q", b)
}

// record applies one record (b is its line), in gemini-cli's order of
// tests.
func (l *loader) record(r *record, b []byte, n int) {
	switch {
	case r.RewindTo != nil:
		l.rewind(*r.RewindTo, n)
	case r.ID != nil:
		l.put(*r.ID, bytes.Clone(b), n)
	case r.Set != nil:
		l.setMeta(r.Set, n)
	case r.SessionID != nil && r.ProjectHash != nil:
		l.meta = true
		l.setMeta(&r.sessionMeta, n)
	default:
		l.tally.Unknown.Add("record (no id, $set, $rewindTo or sessionId and projectHash)", n)
	}
}

// setMeta applies the session metadata of line n (0: the legacy
// document's).
func (l *loader) setMeta(m *sessionMeta, n int) {
	if m.SessionID != nil && *m.SessionID != "" {
		l.s.ID = *m.SessionID
	}
	if t := l.tally.Times.Parse(m.StartTime, n); !t.IsZero() {
		l.s.Meta.CreatedAt = t
	}
	if t := l.tally.Times.Parse(m.LastUpdated, n); !t.IsZero() {
		l.s.Meta.UpdatedAt = t
	}
	if m.Summary != "" {
		l.s.Meta.Title = m.Summary
	}
	if m.Kind != "" {
		l.s.Meta.Kind = m.Kind
	}
}

// knownTypes are the message types of ConversationRecordExtra.
var knownTypes = map[string]bool{"user": true, "gemini": true, "info": true, "error": true, "warning": true}

// put applies a message record (raw): a new id is appended, a known id is
// replaced in place.
func (l *loader) put(id string, raw []byte, n int) {
	if i, ok := l.pos[id]; ok {
		l.entries[i].raw, l.entries[i].line = raw, n
		return
	}
	l.pos[id] = len(l.entries)
	l.entries = append(l.entries, &entry{id: id, line: n, raw: raw})
}

// decode decodes the last version of each message and drops those that
// are not messages calib knows, with a warning.
func (l *loader) decode() {
	kept := l.entries[:0]
	for _, e := range l.entries {
		raw := e.raw
		e.raw = nil
		if !scanMessage(raw, &e.m) {
			e.m = message{}
			if err := json.Unmarshal(raw, &e.m); err != nil {
				l.typeError(e.line, err)
				continue
			}
		}
		switch {
		case e.m.Type == nil:
			l.warn(e.line, "message %s has no type (expected user, gemini, info, error or warning); record skipped", e.id)
			continue
		case !knownTypes[*e.m.Type]:
			l.tally.Unknown.Add("message type "+*e.m.Type, e.line)
			continue
		}
		kept = append(kept, e)
	}
	l.entries = kept
}

// rewind removes the message id and every later one; an id that does not
// occur removes everything (both as gemini-cli's loader does).
func (l *loader) rewind(id string, n int) {
	cut, ok := l.pos[id]
	if !ok {
		l.warn(n, "$rewindTo names message %s, which does not occur before it; as Gemini CLI does, every earlier message is dropped", id)
		cut = 0
	}
	for _, e := range l.entries[cut:] {
		delete(l.pos, e.id)
	}
	l.entries = l.entries[:cut]
}

// sessionIDFromName is the id a file without metadata gets: its name
// without the extension.
func sessionIDFromName(p string) string {
	base := filepath.Base(p)
	return strings.TrimSuffix(strings.TrimSuffix(base, ".jsonl"), ".json")
}
