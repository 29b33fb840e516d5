package corpus

import "errors"

// Stub: the Claude Code reader replaces this file.
func loadClaudeCode(p string, opts Options) ([]*Session, error) {
	return nil, &FileError{Path: p, Err: errors.New("Claude Code logs: not implemented yet")}
}
