package jsonscan

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadInto gives what os.ReadFile gives, bytes and error, for files read
// one after another into one buffer that grows and is reused: empty,
// small, large (past the buffer's room), smaller again, missing, a folder.
func TestReadIntoMatchesReadFile(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i, body := range []string{"", "small", strings.Repeat("large ", 50000), "x", strings.Repeat("y", 700)} {
		p := filepath.Join(dir, string(rune('a'+i))+".txt")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	paths = append(paths, filepath.Join(dir, "missing.txt"), dir)
	var buf []byte
	for _, p := range paths {
		got, err := ReadInto(p, buf)
		want, werr := os.ReadFile(p)
		if !bytes.Equal(got, want) || (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Errorf("%s: %d bytes (err %v), os.ReadFile %d bytes (err %v)", p, len(got), err, len(want), werr)
		}
		buf = got
	}
}
