package loss

// newlines64 returns a mask of the newlines of s[:64] (s must hold 64):
// bit k for s[k]. It is written in assembly (newline_amd64.s): four vector
// compares classify 64 bytes several times faster than newlines64Go's
// eight-byte words.
//
//go:noescape
func newlines64(s string) uint64
