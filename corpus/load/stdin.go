package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
	"github.com/calib-dev/calib/corpus/smith"
)

// stdinName is how sessions and warnings read from standard input name
// their file; stdinID names a session whose format records no id.
const (
	stdinName = "-"
	stdinID   = "stdin"
)

// loadStdin reads standard input whole and recognises it by content, as a
// file is: a Claude Code or Codex log piped in is read as one, and binary
// or unrecognised input is an error, not a transcript of warnings.
// Standard input cannot be read twice, so it is held in memory (about its
// size; a smith transcript's strings point into it, as for a file). Its
// first sniffLen bytes are judged before the rest is read: `calib replay -
// < /dev/zero` read zeros until memory ran out.
func loadStdin(r io.Reader, opts corpus.Options) ([]*corpus.Session, error) {
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, &corpus.FileError{Path: stdinName, Err: fmt.Errorf("reading standard input: %w", err)}
	}
	head = head[:n]
	if n < sniffLen && jsonscan.AllSpace(head) {
		return nil, &corpus.FileError{Path: stdinName, Err: errors.New("standard input is empty; expected a smith transcript or session.json, or a Claude Code, Codex or Gemini CLI log")}
	}
	// A blank head with more behind it is judged as any head is:
	// unrecognised, as no session starts with 8 KiB of white space.
	f, err := stdinFormat(head)
	if err != nil {
		return nil, err
	}
	buf := head
	if n == sniffLen {
		if buf, err = jsonscan.ReadAll(io.MultiReader(bytes.NewReader(head), r)); err != nil {
			return nil, &corpus.FileError{Path: stdinName, Err: fmt.Errorf("reading standard input: %w", err)}
		}
	}
	ss, err := f.read(buf, opts)
	if err != nil || f.record == nil || f.whole {
		return ss, err
	}
	return noMessages(stdinName, ss)
}

// stdinFormat recognises standard input from its head, or says why it
// cannot be read.
func stdinFormat(head []byte) (*format, error) {
	f := sniffBytes(head)
	switch {
	case f == nil && looksBinary(head):
		return nil, &corpus.FileError{Path: stdinName, Err: binaryError(head)}
	case f == nil:
		return nil, &corpus.FileError{Path: stdinName, Err: errors.New("unrecognised content on standard input; expected a smith transcript or session.json, a Claude Code or Codex session log or a Gemini CLI chat")}
	case f.read == nil:
		return nil, &corpus.FileError{Path: stdinName, Err: fmt.Errorf("standard input holds a %s, which is read only from a path; pass its path instead of -", f.what)}
	}
	return f, nil
}

func readSmithTranscript(buf []byte, opts corpus.Options) ([]*corpus.Session, error) {
	return smith.ReadTranscript(stdinName, stdinID, buf, opts)
}

func readSmithSession(buf []byte, opts corpus.Options) ([]*corpus.Session, error) {
	return smith.ReadSessionFile(stdinName, stdinID, buf, opts)
}

// readStream adapts a streaming reader (Claude Code, Codex) to input held
// in memory.
func readStream(read func(p string, r io.Reader, opts corpus.Options) ([]*corpus.Session, error)) func([]byte, corpus.Options) ([]*corpus.Session, error) {
	return func(buf []byte, opts corpus.Options) ([]*corpus.Session, error) {
		return read(stdinName, bytes.NewReader(buf), opts)
	}
}
