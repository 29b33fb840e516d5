package jsonscan

import (
	"fmt"
	"io"
	"os"

	"github.com/calib-dev/calib/corpus"
)

// Exists reports whether anything is at p.
func Exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// IsDir reports whether p is a directory.
func IsDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// AllSpace reports whether b holds only whitespace and newlines.
func AllSpace(b []byte) bool {
	for _, c := range b {
		if c != '\n' && c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// ReadInto reads the file at p as os.ReadFile does (the same bytes, the
// same errors) into buf, which it grows as needed, and returns the bytes
// read: for files that are only compared and measured, one after another
// (Claude Code's persisted outputs), whose contents would otherwise each
// be a new allocation of their size.
func ReadInto(p string, buf []byte) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // room for more
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return buf, err
		}
	}
}

// LoadFile opens p and hands it to read, a streaming reader's Read (Claude
// Code, Codex, Gemini CLI): their Load is this, with the open error as a
// *corpus.FileError naming p.
func LoadFile(p string, opts corpus.Options, read func(p string, r io.Reader, opts corpus.Options) ([]*corpus.Session, error)) ([]*corpus.Session, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, &corpus.FileError{Path: p, Err: err}
	}
	defer f.Close()
	return read(p, f, opts)
}

// ReadError is a streaming reader's failure to read p (an I/O error, or a
// line past StreamLines' limit) as a *corpus.FileError naming p.
func ReadError(p string, err error) error {
	return &corpus.FileError{Path: p, Err: fmt.Errorf("reading: %w", err)}
}
