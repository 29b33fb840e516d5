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

// lineReaders keeps the read buffers of finished loads for the next ones.
// A corpus folder is many logs, loaded one after another or by several
// goroutines: a new 256 KB buffer for each was a sixth of the bytes a
// load of the real logs allocated (1.25 of 8.1 MB), each zeroed and then
// collected. A sync.Pool is safe for the concurrent loads and lets the
// collector drop the buffers when no load wants them.
var lineReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, lineReaderSize) }}

// streamLines is jsonscan.StreamLines over r with a pooled read buffer.
func streamLines(r io.Reader, fn func(lineNo int, line []byte, final bool) error) error {
	br := lineReaders.Get().(*bufio.Reader)
	br.Reset(r)
	err := jsonscan.StreamLines(br, fn)
	br.Reset(nil) // keep no reference to r in the pool
	lineReaders.Put(br)
	return err
}
