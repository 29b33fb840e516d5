package jsonscan

// Style is how an agent's JSON library escapes a string. Byte counts,
// digests and duplicate-call keys depend on the exact bytes, so writers of
// real files (corpus/synth) and renderers that re-serialize (clai's digest)
// must escape exactly as the agent does.
type Style int

const (
	// Serde is Rust's serde_json (clai): '"', '\\' and control
	// characters are escaped (\b \f \n \r \t by name, others as \u00xx);
	// DEL, U+2028/2029 and <>& are written raw.
	Serde Style = iota
	// Crystal is Crystal's JSON (smith): as serde_json, and DEL (0x7f)
	// is escaped as \u007f too.
	Crystal
)

// AppendString appends s as a JSON string in the given style.
func AppendString(dst []byte, s string, style Style) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && (c != 0x7f || style != Crystal) {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
