package jsonscan

import (
	"errors"
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

// Open opens a file a reader was given or found in a folder, refusing
// one that corpus.SpecialKind names before opening it, with an error that says
// what it is and not the path (every caller names the file): a session
// folder holding a named pipe in place of its session.json waited forever
// for a writer, and held up the corpus. A folder opens as os.Open opens it.
func Open(p string) (*os.File, error) {
	if fi, err := os.Stat(p); err == nil {
		if k := corpus.SpecialKind(fi.Mode()); k != "" {
			return nil, errors.New(k + ", not a regular file")
		}
	}
	return os.Open(p)
}

// ReadFile is os.ReadFile through Open.
func ReadFile(p string) ([]byte, error) {
	f, err := Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
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

// ReadWhole reads a file into one buffer of its size, as os.ReadFile does
// (the same bytes, the same errors). The buffer is first offered huge
// pages (hugePages): a loaded smith transcript keeps its buffer (its
// strings point into it), so each of its pages is fresh memory, and
// filling it then costs a page fault per 2 MB instead of one per 4 KB.
// On a virtual machine where a fault costs some 14 us, that was half of
// `calib inspect`'s time on a 201 MB corpus.
func ReadWhole(p string) ([]byte, error) {
	f, err := Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 0
	if fi, err := f.Stat(); err == nil && int64(int(fi.Size())) == fi.Size() {
		size = int(fi.Size())
	}
	// One byte more for the read that sees the end, and at least 512 for
	// files whose size Stat does not know (/proc).
	buf := make([]byte, 0, max(size+1, 512))
	hugePages(buf[:cap(buf)])
	return readAll(f, buf)
}

// hugePage is the size of a huge page on x86-64 and on arm64 with 4 KB
// pages.
const hugePage = 2 << 20

// ReadInto reads the file at p as os.ReadFile does (the same bytes, the
// same errors) into buf, which it grows as needed, and returns the bytes
// read: for files that are only compared and measured, one after another
// (Claude Code's persisted outputs), whose contents would otherwise each
// be a new allocation of their size.
func ReadInto(p string, buf []byte) ([]byte, error) {
	f, err := Open(p)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	return readAll(f, buf[:0])
}

// readAll appends f's contents to buf up to the end of the file, growing
// it as needed.
func readAll(f *os.File, buf []byte) ([]byte, error) {
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
	f, err := Open(p)
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
