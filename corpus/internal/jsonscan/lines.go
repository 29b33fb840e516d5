package jsonscan

import (
	"bufio"
	"bytes"
	"io"
)

// JSONL input is split into lines two ways, with no line-length cap in
// either (a 64 MB tool result is one line):
//
//   - ForEachLine splits a whole file read into one buffer. The smith
//     decoder keeps strings that point into that buffer (it unescapes in
//     place), so a loaded transcript costs about its file size and nothing
//     is copied (see corpus/smith/decode.go).
//   - StreamLines reads a stream a line at a time. The Claude Code and
//     Codex readers copy the little they keep of each line (a Claude Code
//     file repeats every file read in toolUseResult, which is dropped), so
//     streaming keeps their peak memory below the file size.

// utf8BOM is the byte order mark some Windows editors write at the start
// of a UTF-8 file. JSON has no place for it, so both splitters drop it
// from the first line rather than lose that line as invalid JSON.
var utf8BOM = []byte("\xef\xbb\xbf")

// ReadAll reads a stream (standard input) to the end.
func ReadAll(r io.Reader) ([]byte, error) {
	return io.ReadAll(r)
}

// ForEachLine calls fn for every line of buf that is not blank, with its
// 1-based line number. unterminated is true for a last line with no
// newline (a file cut off mid-write). Each line is capped (cap == len) so
// that nothing can append past it into the next line.
func ForEachLine(buf []byte, fn func(n int, line []byte, unterminated bool)) {
	buf = bytes.TrimPrefix(buf, utf8BOM)
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

// StreamLines calls fn for every non-blank line of r, with its 1-based line
// number. A line is only valid until fn returns: fn copies what it keeps.
// final is true for a last line that has no terminating newline: a log cut
// mid-write ends like that.
func StreamLines(r io.Reader, fn func(lineNo int, line []byte, final bool) error) error {
	br := bufio.NewReaderSize(r, 256<<10) // longer lines are assembled in long
	var long []byte
	lineNo := 0
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// The pieces of a line longer than the reader's buffer are
			// joined in long, which doubles when it must grow: append
			// alone grows a large slice by a quarter, and a 126 MB line
			// was copied about five times over, each copy into fresh
			// memory, which took seconds.
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				if len(long)+len(line) > cap(long) {
					long = grow(long, max(len(line), cap(long)))
				}
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return err
		}
		if lineNo == 0 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if len(line) > 0 {
			lineNo++
			final := err == io.EOF && line[len(line)-1] != '\n'
			trimmed := bytes.TrimRight(line, "\r\n")
			if len(bytes.TrimSpace(trimmed)) > 0 {
				if e := fn(lineNo, trimmed, final); e != nil {
					return e
				}
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// grow is b with room for n more bytes, in a new buffer whose pages are
// mapped before the old bytes are copied in (populate).
func grow(b []byte, n int) []byte {
	nb := make([]byte, len(b), len(b)+n)
	populate(nb)
	copy(nb, b)
	return nb
}
