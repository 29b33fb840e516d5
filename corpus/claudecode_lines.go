package corpus

import (
	"bufio"
	"bytes"
	"io"
)

// ccEachLine calls fn for every non-empty line of r, with its 1-based line
// number. Lines have no length cap (a Claude Code line holding a 4 MB file
// read is common) and are read with ReadSlice, so a line is only valid until
// fn returns: fn copies what it keeps. final is true for a last line that
// has no terminating newline: a log cut mid-write ends like that.
//
// This is the Claude Code and Codex readers' own splitter; it follows
// go-style.md §6 and does the same job as the smith reader's.
func ccEachLine(r io.Reader, fn func(lineNo int, line []byte, final bool) error) error {
	br := bufio.NewReaderSize(r, 256<<10) // longer lines are assembled in long
	var long []byte
	lineNo := 0
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return err
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
