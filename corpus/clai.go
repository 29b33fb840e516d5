package corpus

import "errors"

// Stub: the clai reader replaces this file.
func loadClai(p string, opts Options) ([]*Session, error) {
	return nil, &FileError{Path: p, Err: errors.New("clai: not implemented yet")}
}
