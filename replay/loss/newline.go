package loss

// Finding the lines of a tool result: strings.IndexByte per line was a
// call and a vector loop set up for every line, most of them too short to
// be content lines, and the largest single cost of a report (an eighth of
// BenchmarkReportReal's profile). candidateLines instead takes a mask of
// the newlines of 64 bytes at a time (newlines64: four vector compares on
// amd64) and walks its bits.

// newlines64Go is what newlines64 computes, in Go: bit k of the result is
// set when s[k] is '\n' (s must hold 64 bytes). It is the portable version
// and the reference the assembly is tested against. Each word's test is
// exact: adding 0x7f to a byte's low seven bits carries into its top bit
// unless they are all zero, and never into the next byte.
func newlines64Go(s string) uint64 {
	_ = s[63]
	var m uint64
	for k := 0; k < 64; k += 8 {
		x := le64(s[k:]) ^ 0x0a0a0a0a0a0a0a0a
		t := ^((x&0x7f7f7f7f7f7f7f7f + 0x7f7f7f7f7f7f7f7f) | x) & highBits >> 7
		// Gather the flag bits (bit 0 of each byte) into the low byte:
		// byte j's bit lands on bit 56+j of the product.
		m |= (t * 0x0102040810204080 >> 56) << k
	}
	return m
}

// newlinesTail is the newline mask of the last len(s) < 64 bytes.
func newlinesTail(s string) uint64 {
	var m uint64
	for k := 0; k < len(s); k++ {
		if s[k] == '\n' {
			m |= 1 << k
		}
	}
	return m
}
