package jsonscan

import "bytes"

// QuoteEnd finds the closing quote of a string whose body starts at b[i]
// in text an earlier scan has already validated (StringEnd accepted every
// string of it): the first '"' not escaped, that is, not after an odd run
// of backslashes. It returns StringEnd's results for such text without
// looking at what lies between, and ok false where there is no closing
// quote (text that was not validated after all).
func QuoteEnd(b []byte, i int) (end int, escaped, ok bool) {
	start := i
	for {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return 0, false, false
		}
		j := i + k
		n := 0
		for j-n > start && b[j-n-1] == '\\' {
			n++
		}
		if n%2 == 0 {
			return j, bytes.IndexByte(b[start:j], '\\') >= 0, true
		}
		i = j + 1
	}
}
