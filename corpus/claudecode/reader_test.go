package claudecode

import (
	"bytes"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// A load takes its read buffer from the pool: loading a small log again
// allocates far less than a new buffer (which it did when StreamLines
// made one per file, or would if the pooled reader were smaller than the
// size StreamLines asks for).
func TestReadReusesLineBuffer(t *testing.T) {
	log := []byte(`{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n")
	read := func() {
		if _, err := Read("x.jsonl", bytes.NewReader(log), corpus.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if per := AllocatedPerRun(t, 10, read); per >= lineReaderSize/2 {
		t.Errorf("a load of a one-line log allocated %d bytes; the read buffer alone is %d", per, lineReaderSize)
	}
}
