package jsonscan

// special64 returns a mask of the bytes of b[:64] (b must hold 64) that
// are '"', '\\', a control character or non-ASCII: bit k for b[k]. It is
// written in assembly (special_amd64.s) because long tool outputs are most
// of a Claude Code log and four vector compares classify 64 bytes several
// times faster than Special's eight-byte words.
//
//go:noescape
func special64(b []byte) uint64
