package smith

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// smith readers (smith.md §1, §5). A session is read from a transcript.jsonl
// (the raw history, Format smith-transcript), a session.json (the compacted
// working history and the metadata), a session folder holding either or
// both, or a sessions root with index.json.

// parseSmithTranscript decodes a whole transcript buffer. The returned
// session's strings alias buf, which must not be written afterwards.
func parseSmithTranscript(file string, buf []byte) *corpus.Session {
	s := &corpus.Session{Format: corpus.FormatSmithTranscript, Path: file}
	r := lineReader{file: file}
	// A line of a tool-heavy transcript averages a few KB; guessing the
	// count saves most of the slice regrowth.
	s.Messages = make([]corpus.Message, 0, len(buf)/4096+16)
	jsonscan.ForEachLine(buf, func(n int, line []byte, unterminated bool) {
		if m, ok := r.decode(line, n, "L"+strconv.Itoa(n), "", unterminated); ok {
			s.Messages = append(s.Messages, m)
		}
	})
	r.checkPairing(s.Messages)
	s.Warnings = r.warnings
	return s
}

// LoadTranscript loads a transcript file. A transcript.jsonl with a
// session.json beside it is loaded as its session folder.
func LoadTranscript(p string, opts corpus.Options) ([]*corpus.Session, error) {
	dir := filepath.Dir(p)
	if filepath.Base(p) == "transcript.jsonl" && jsonscan.Exists(filepath.Join(dir, "session.json")) {
		return LoadDir(dir, opts)
	}
	buf, err := jsonscan.ReadWhole(p)
	if err != nil {
		return nil, &corpus.FileError{Path: p, Err: err}
	}
	s := parseSmithTranscript(p, buf)
	s.ID = smithFileID(p)
	return []*corpus.Session{s}, nil
}

// smithFileID names a session read from a lone file: the folder for a
// transcript.jsonl or session.json, else the file name without extension.
func smithFileID(p string) string {
	base := filepath.Base(p)
	if base == "transcript.jsonl" || base == "session.json" {
		if d := filepath.Base(filepath.Dir(p)); d != "." && d != string(filepath.Separator) {
			return d
		}
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// ReadTranscript reads a transcript already in memory (standard input) as
// the session id, warnings naming file. The session's strings alias buf.
func ReadTranscript(file, id string, buf []byte, _ corpus.Options) ([]*corpus.Session, error) {
	s := parseSmithTranscript(file, buf)
	s.ID = id
	return []*corpus.Session{s}, nil
}

// ReadSessionFile reads a session.json already in memory (standard input);
// id names the session when the file records none.
func ReadSessionFile(file, id string, buf []byte, _ corpus.Options) ([]*corpus.Session, error) {
	sf, err := parseSmithSessionFile(file, buf)
	if err != nil {
		return nil, err
	}
	s := &corpus.Session{ID: sf.id, Format: corpus.FormatSmithSession, Path: file, Meta: sf.meta,
		Messages: sf.messages, Warnings: sf.warnings}
	if s.ID == "" {
		s.ID = id
	}
	return []*corpus.Session{s}, nil
}

// LoadSessionFile loads a session.json (or a legacy <id>.json). A
// session.json with a transcript beside it is loaded as its folder.
func LoadSessionFile(p string, opts corpus.Options) ([]*corpus.Session, error) {
	dir := filepath.Dir(p)
	if filepath.Base(p) == "session.json" && jsonscan.Exists(filepath.Join(dir, "transcript.jsonl")) {
		return LoadDir(dir, opts)
	}
	sf, err := readSmithSessionFile(p)
	if err != nil {
		return nil, err
	}
	return []*corpus.Session{sf.session(p, smithFileID(p))}, nil
}

// LoadDir loads one session folder: transcript.jsonl (the raw
// history) and/or session.json (metadata and the compacted history).
func LoadDir(dir string, opts corpus.Options) ([]*corpus.Session, error) {
	tp, sp := filepath.Join(dir, "transcript.jsonl"), filepath.Join(dir, "session.json")
	hasT, hasS := jsonscan.Exists(tp), jsonscan.Exists(sp)
	if !hasT && !hasS {
		return nil, &corpus.FileError{Path: dir, Err: fmt.Errorf("%w: expected a smith session folder holding transcript.jsonl and/or session.json", corpus.ErrNoSessions)}
	}
	var sf *smithSessionFile
	var sfErr error
	if hasS {
		sf, sfErr = readSmithSessionFile(sp)
	}
	if !hasT {
		if sfErr != nil {
			return nil, sfErr
		}
		return []*corpus.Session{sf.session(sp, filepath.Base(dir))}, nil
	}
	buf, err := jsonscan.ReadWhole(tp)
	if err != nil {
		return nil, &corpus.FileError{Path: tp, Err: err}
	}
	s := parseSmithTranscript(tp, buf)
	s.ID = filepath.Base(dir)
	if len(s.Messages) == 0 && len(s.Warnings) == 0 {
		s.Warnings = append(s.Warnings, corpus.Warning{File: tp, Line: 1,
			Message: "transcript.jsonl holds no messages; expected one JSON message per line (session.json's history is in the recorded history)"})
	}
	switch {
	case sfErr != nil:
		// The raw history is intact; only the metadata and the recorded
		// compaction are lost.
		var fe *corpus.FileError
		msg := sfErr.Error()
		if errors.As(sfErr, &fe) {
			msg = fe.Err.Error()
		}
		s.Warnings = append(s.Warnings, corpus.Warning{File: sp, Line: 1, Message: msg + "; loaded the transcript without it"})
	case sf != nil:
		if sf.id != "" {
			s.ID = sf.id
		}
		s.Meta = sf.meta
		s.Recorded.UsageTotal = sf.usage
		s.Recorded.History = sf.messages
		if s.Recorded.History == nil {
			s.Recorded.History = []corpus.Message{}
		}
		s.Warnings = append(s.Warnings, sf.warnings...)
	}
	return []*corpus.Session{s}, nil
}
