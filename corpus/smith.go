package corpus

import (
	"errors"
	"io"
)

// Stubs: the smith reader replaces this file.

func loadSmithTranscript(p string, opts Options) ([]*Session, error) {
	return nil, &FileError{Path: p, Err: errors.New("smith transcripts: not implemented yet")}
}
func loadSmithSessionFile(p string, opts Options) ([]*Session, error) {
	return nil, &FileError{Path: p, Err: errors.New("smith session.json: not implemented yet")}
}
func loadSmithRoot(dir string, opts Options) ([]*Session, error) {
	return nil, &FileError{Path: dir, Err: errors.New("smith sessions root: not implemented yet")}
}
func loadSmithDir(dir string, opts Options) ([]*Session, error) {
	return nil, &FileError{Path: dir, Err: errors.New("smith session folder: not implemented yet")}
}
func readStdin(r io.Reader) (*Session, error) {
	return nil, &FileError{Path: "-", Err: errors.New("stdin: not implemented yet")}
}
