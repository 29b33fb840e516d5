package corpus

import (
	"bytes"
	"io"
	"os"
)

// JSONL input is read whole into one buffer per file and split with
// bytes.IndexByte. There is no line-length cap (a 64 MB tool result is one
// line), no per-line allocation, and the decoder can keep strings that point
// into the buffer, so a loaded transcript costs about its file size. See
// jsonl_decode.go for why that matters.

// readWhole reads a file into a buffer of exactly its size.
func readWhole(p string) ([]byte, error) {
	return os.ReadFile(p)
}

// readAllFrom reads a stream (standard input) to the end.
func readAllFrom(r io.Reader) ([]byte, error) {
	return io.ReadAll(r)
}

// forEachLine calls fn for every line of buf that is not blank, with its
// 1-based line number. unterminated is true for a last line with no
// newline (a file cut off mid-write). Each line is capped (cap == len) so
// that nothing can append past it into the next line.
func forEachLine(buf []byte, fn func(n int, line []byte, unterminated bool)) {
	n := 0
	for len(buf) > 0 {
		n++
		var line []byte
		unterminated := false
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			line, buf = buf[:i:i], buf[i+1:]
		} else {
			line, buf = buf[:len(buf):len(buf)], nil
			unterminated = true
		}
		if isBlank(line) {
			continue
		}
		fn(n, line, unterminated)
	}
}

// isBlank reports whether a line holds only JSON whitespace.
func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
