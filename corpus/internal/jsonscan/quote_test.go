package jsonscan

import (
	"strings"
	"testing"
)

// FuzzQuoteEnd checks QuoteEnd against StringEnd on every string StringEnd
// accepts (the only text it is given), from every start of the first 80
// bytes: same end, same escaped.
func FuzzQuoteEnd(f *testing.F) {
	f.Add([]byte(`abc"`))
	f.Add([]byte(`a\"b\\"c"`))
	f.Add([]byte(`\\\\\"\\"`))
	f.Add([]byte(strings.Repeat(`\t 12→\tfmt.Println(\"héllo\")\n`, 5) + `"`))
	f.Add([]byte(`no quote\"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b) && i < 80; i++ {
			wend, wesc, wok := StringEnd(b, i)
			if !wok {
				continue
			}
			if end, esc, ok := QuoteEnd(b, i); end != wend || esc != wesc || !ok {
				t.Fatalf("QuoteEnd(%q, %d) = %d %v %v, want %d %v true", b, i, end, esc, ok, wend, wesc)
			}
		}
	})
}

// QuoteEnd fails, rather than reading past b, where no quote closes the
// string.
func TestQuoteEndUnclosed(t *testing.T) {
	for _, in := range []string{``, `abc`, `abc\"`, `\\\"`} {
		if _, _, ok := QuoteEnd([]byte(in), 0); ok {
			t.Errorf("QuoteEnd(%q) ok", in)
		}
	}
}
