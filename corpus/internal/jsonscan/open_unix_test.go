//go:build unix

package jsonscan

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenRefusesSpecialFiles: Open and ReadFile refuse a named pipe and
// a device before opening them (a pipe with no writer blocks the open), and
// open a regular file and a folder as os.Open does.
func TestOpenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	pipe, file := filepath.Join(dir, "pipe"), filepath.Join(dir, "file")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{pipe: "a named pipe, not a regular file", "/dev/null": "a device, not a regular file"} {
		if _, err := Open(p); err == nil || err.Error() != want {
			t.Errorf("Open(%s): %v, want %q", p, err, want)
		}
		if _, err := ReadFile(p); err == nil || err.Error() != want {
			t.Errorf("ReadFile(%s): %v, want %q", p, err, want)
		}
	}
	if data, err := ReadFile(file); err != nil || string(data) != "x" {
		t.Errorf("ReadFile(file) = %q, %v", data, err)
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(folder): %v", err)
	}
	f.Close()
}
