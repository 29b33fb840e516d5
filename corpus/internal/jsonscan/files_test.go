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

// ReadWhole gives what os.ReadFile gives, bytes and error: empty, small,
// one byte under and over the huge-page size (the advice covers only the
// buffer's aligned middle), several huge pages, missing, a folder, and a
// file whose size Stat does not know.
func TestReadWholeMatchesReadFile(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i, n := range []int{0, 5, 511, 512, hugePage - 1, hugePage + 1, 5*hugePage + 7} {
		body := make([]byte, n)
		for j := range body {
			body[j] = byte('a' + (j*7+i)%26)
		}
		p := filepath.Join(dir, string(rune('a'+i))+".txt")
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	paths = append(paths, filepath.Join(dir, "missing.txt"), dir)
	if _, err := os.Stat("/proc/self/status"); err == nil {
		paths = append(paths, "/proc/self/status") // size 0, content not
	}
	for _, p := range paths {
		got, err := ReadWhole(p)
		want, werr := os.ReadFile(p)
		if p == "/proc/self/status" {
			// Two reads of it differ in their counters: compare the
			// line that does not change.
			got, want = bytes.SplitN(got, []byte("\n"), 2)[0], bytes.SplitN(want, []byte("\n"), 2)[0]
		}
		if !bytes.Equal(got, want) || (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Errorf("%s: %d bytes (err %v), os.ReadFile %d bytes (err %v)", p, len(got), err, len(want), werr)
		}
	}
}
