package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// specialBlocksGo is what specialBlocks computes, in Go: the portable
// version, and the reference the assembly is tested against.
func specialBlocksGo(b []byte) int {
	n := len(b) &^ 15
	for i := 0; i < n; i += 8 {
		if t := Special(binary.LittleEndian.Uint64(b[i:])); t != 0 {
			return i + bits.TrailingZeros64(t)>>3
		}
	}
	return n
}
