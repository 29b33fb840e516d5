package corpus

import "errors"

// Stub: the Codex reader replaces this file.
func loadCodex(p string, opts Options) ([]*Session, error) {
	return nil, &FileError{Path: p, Err: errors.New("Codex logs: not implemented yet")}
}
