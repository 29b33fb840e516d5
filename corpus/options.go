package corpus

import (
	"errors"
	"fmt"
	"io"
)

// Options controls loading.
type Options struct {
	// Strict makes any warning fatal: the file that produced it fails to
	// load (its error names the file, line and warning).
	Strict bool
	// Stdin is read when a path is "-"; nil means no standard input.
	Stdin io.Reader
}

// FileError is a failure to load one input. It names the file, the line
// (or rowid, 0 when not about one line) and what was expected.
type FileError struct {
	Path string
	Line int
	Err  error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// ErrNoSessions is wrapped by the error for a directory that holds nothing
// calib can read.
var ErrNoSessions = errors.New("no sessions found")

// NotSessionFile is the error of a reader for a file of its kind that holds
// no sessions of any agent calib reads (a SQLite database of another
// program): a folder walk skips such a file with a warning, where one
// given by name is an error.
type NotSessionFile struct{ Err error }

func (e *NotSessionFile) Error() string { return e.Err.Error() }
func (e *NotSessionFile) Unwrap() error { return e.Err }

// FileWarning is a warning about a file that belongs to no session (a
// file a folder walk skipped, a damaged line of a file that gave no
// session). Load returns it among its errors, but it fails nothing:
// callers print it as a warning (Options.Strict makes it a *FileError
// holding a *FatalWarning).
type FileWarning struct {
	Path    string
	Line    int
	Message string
}

func (w *FileWarning) Error() string {
	return (&FileError{Path: w.Path, Line: w.Line, Err: errors.New("warning: " + w.Message)}).Error()
}

// FatalWarning is the error Options.Strict makes of a warning: the
// *FileError of the file it is about wraps it. Count is how many warnings
// the session had (0 for a warning about a file that gave no session).
// Its text names the option, not a command's flag: a command that has
// one for it says so (calib prints "--strict makes warnings fatal").
type FatalWarning struct {
	Message string
	Count   int
}

func (w *FatalWarning) Error() string {
	if w.Count == 0 {
		return w.Message + " (a warning, fatal in strict mode)"
	}
	return fmt.Sprintf("%s (a warning, fatal in strict mode; %d warning(s) in this session)", w.Message, w.Count)
}
