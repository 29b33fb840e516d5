package jsonscan

// specialBlocks returns the index of the first '"', '\\', control
// character or non-ASCII byte in the whole sixteen-byte blocks of b, or
// len(b) rounded down to sixteen when they hold none. It is written in
// assembly (special_amd64.s) because long tool outputs are most of a Claude
// Code log and a vector compare reads them several times faster than
// Special's eight-byte words.
//
//go:noescape
func specialBlocks(b []byte) int
