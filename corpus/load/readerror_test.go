package load_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/claudecode"
	"github.com/calib-dev/calib/corpus/codex"
	"github.com/calib-dev/calib/corpus/gemini"
)

// A streaming reader that cannot read its input fails with one error: a
// *corpus.FileError naming the file, "reading:" and the cause (wrapped).
func TestStreamingReadersReadError(t *testing.T) {
	cause := errors.New("disk on fire")
	for _, tc := range []struct {
		name string
		read func(p string, r io.Reader, opts corpus.Options) ([]*corpus.Session, error)
		r    io.Reader
	}{
		{"claudecode", claudecode.Read, iotest.ErrReader(cause)},
		{"codex", codex.Read, iotest.ErrReader(cause)},
		{"gemini first line", gemini.Read, iotest.ErrReader(cause)},
		{"gemini legacy", gemini.Read, io.MultiReader(strings.NewReader("{\n"), iotest.ErrReader(cause))},
		{"gemini lines", gemini.Read, io.MultiReader(strings.NewReader("{\"sessionId\":\"s\",\"projectHash\":\"h\"}\n"), iotest.ErrReader(cause))},
	} {
		_, err := tc.read("x.jsonl", tc.r, corpus.Options{})
		var fe *corpus.FileError
		if !errors.As(err, &fe) || fe.Path != "x.jsonl" || !errors.Is(err, cause) || err.Error() != "x.jsonl: reading: disk on fire" {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
