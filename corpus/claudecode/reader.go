package claudecode

import (
	"bufio"
	"io"
	"sync"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// lineReaderSize is the read buffer of jsonscan.StreamLines, which uses a
// *bufio.Reader at least this large as it is instead of making its own
// (bufio.NewReaderSize returns such a reader unchanged).
const lineReaderSize = 256 << 10

// loadBuffers are the buffers a load uses only while it runs: the line
// reader's, the one persisted outputs are read into in turn, and the line
// scan's string scratch (ccRecent.scratch).
type loadBuffers struct {
	lines   *bufio.Reader
	file    []byte
	scratch []byte
}

// loadPool keeps the buffers of finished loads for the next ones. A
// corpus folder is many logs, loaded one after another or by several
// goroutines: a new 256 KB line buffer for each was a sixth of the bytes a
// load of the real logs allocated (1.25 of 8.1 MB), each zeroed and then
// collected, and reading a persisted output into fresh memory cost a page
// fault per 4 KB. A sync.Pool is safe for the concurrent loads and lets
// the collector drop the buffers when no load wants them.
var loadPool = sync.Pool{New: func() any { return &loadBuffers{lines: bufio.NewReaderSize(nil, lineReaderSize)} }}

// streamLines is jsonscan.StreamLines over r with the pooled line buffer.
func (b *loadBuffers) streamLines(r io.Reader, fn func(lineNo int, line []byte, final bool) error) error {
	b.lines.Reset(r)
	err := jsonscan.StreamLines(b.lines, fn)
	b.lines.Reset(nil) // keep no reference to r in the pool
	return err
}
