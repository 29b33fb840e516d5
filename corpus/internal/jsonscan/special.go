package jsonscan

import "encoding/binary"

// special64Go is what special64 computes, in Go: the portable version,
// and the reference the assembly is tested against. Special's flags above
// the lowest may be borrows (a byte after a special one flagged too), which
// only costs stringEndLong a look at a plain byte; it never misses one.
func special64Go(b []byte) uint64 {
	_ = b[63]
	var m uint64
	for k := 0; k < 64; k += 8 {
		// Gather the flag bits (bit 7 of each byte) into the low byte:
		// byte j's bit lands on bit 56+j of the product and nothing else
		// reaches those eight bits.
		t := Special(binary.LittleEndian.Uint64(b[k:])) >> 7
		m |= (t * 0x0102040810204080 >> 56) << k
	}
	return m
}
