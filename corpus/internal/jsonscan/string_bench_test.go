package jsonscan

import (
	"strings"
	"testing"
)

// BenchmarkStringEnd scans a 1 MB string body of mostly ASCII text with
// sparse escapes and some accented letters, as tool outputs are.
func BenchmarkStringEnd(b *testing.B) {
	body := strings.Repeat("func main() {\\n\\tfmt.Println(\\\"héllo\\\") // a comment of some length\\n}\\n", 1<<20/64)
	in := []byte(body + `"`)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if end, _, ok := StringEnd(in, 0); !ok || end != len(body) {
			b.Fatal(end, ok)
		}
	}
}

// BenchmarkUnescape decodes the body BenchmarkStringEnd scans: file
// contents with a \n every line and \" in some.
func BenchmarkUnescape(b *testing.B) {
	body := []byte(strings.Repeat("func main() {\\n\\tfmt.Println(\\\"héllo\\\") // a comment of some length\\n}\\n", 1<<20/64))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, ok := Unescape(body); !ok {
			b.Fatal("rejected")
		}
	}
}
