package jsonscan

import (
	"encoding/json"
	"testing"
)

func TestDecodeEscape(t *testing.T) {
	tests := []struct {
		in   string
		want rune
		n    int
	}{
		{`\n`, '\n', 2}, {`\"`, '"', 2}, {`\/`, '/', 2}, {`\t`, '\t', 2},
		{`\u00e9`, 'é', 6}, {`\u00E9x`, 'é', 6},
		{`\ud83d\ude00`, '😀', 12},     // a surrogate pair
		{`\ud83dx`, '\uFFFD', 6},      // a lone high surrogate
		{`\ud83d\u0041`, '\uFFFD', 6}, // a mismatched pair: the second stands alone
		{`\ude00`, '\uFFFD', 6},       // a lone low surrogate
		{`\x`, 0, 0}, {`\u12`, 0, 0}, {`\u12g4`, 0, 0}, {`\`, 0, 0}, {`n`, 0, 0},
	}
	for _, tt := range tests {
		r, n := DecodeEscape(tt.in)
		if r != tt.want || n != tt.n {
			t.Errorf("decodeEscape(%q) = %q, %d; want %q, %d", tt.in, r, n, tt.want, tt.n)
		}
		if rb, nb := DecodeEscape([]byte(tt.in)); rb != r || nb != n {
			t.Errorf("decodeEscape([]byte(%q)) differs from the string form", tt.in)
		}
		if n == 0 {
			continue
		}
		// Agree with encoding/json on the escape alone.
		var s string
		if err := json.Unmarshal([]byte(`"`+tt.in[:n]+`"`), &s); err != nil || []rune(s)[0] != r {
			t.Errorf("%q: encoding/json gives %q (%v), decodeEscape %q", tt.in[:n], s, err, r)
		}
	}
}
