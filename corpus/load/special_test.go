//go:build unix

package load_test

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

// TestLoadSpecialFiles: a path that is a named pipe, a socket or a device
// is refused with an error naming it, at once (a pipe used to block Load
// forever, since a file is opened twice), and the other paths still load.
func TestLoadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.jsonl", `{"role":"user","content":[{"type":"text","text":"hi"}]}`+"\n")
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A socket path must be short (108 bytes on Linux); TempDir's may not be.
	sdir, err := os.MkdirTemp("", "sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sdir) })
	sock := filepath.Join(sdir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	tests := []struct{ path, want string }{
		{fifo, fifo + ": a named pipe, not a file or folder; to read a pipe, redirect it to standard input and give - as the path"},
		{sock, sock + ": a socket; expected a session file, a session folder or a clai workspace"},
		{"/dev/null", "/dev/null: a device; expected a session file, a session folder or a clai workspace"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			if _, err := os.Stat(tt.path); err != nil {
				t.Skip(err)
			}
			type result struct {
				n   int
				err error
			}
			done := make(chan result, 1)
			go func() {
				ss, err := load.Load([]string{good, tt.path}, corpus.Options{})
				done <- result{len(ss), err}
			}()
			select {
			case r := <-done:
				if r.n != 1 {
					t.Errorf("%d sessions loaded, want the good one", r.n)
				}
				if r.err == nil || r.err.Error() != tt.want {
					t.Errorf("error:\n got %v\nwant %s", r.err, tt.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("Load(%s) did not return within 10 s", tt.path)
			}
		})
	}
}

// TestWalkNamesSpecialJSONL: a folder walk names what it cannot read that
// looks like a log (a named pipe or a link to nothing called .jsonl), as
// it names a compressed one, and passes the others over in silence; it
// never opens a pipe (which would wait for a writer forever).
func TestWalkNamesSpecialJSONL(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "good.jsonl", `{"role":"user","content":[{"type":"text","text":"hi"}]}`+"\n")
	for _, name := range []string{"pipe.jsonl", "pipe.fifo"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"gone.jsonl", "gone.txt"} {
		if err := os.Symlink(filepath.Join(dir, "nothing"), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/dev/null", filepath.Join(dir, "null.jsonl")); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var ss []*corpus.Session
	var err error
	go func() {
		ss, err = load.Load([]string{dir}, corpus.Options{})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the walk did not return within 10 s")
	}
	if len(ss) != 1 {
		t.Errorf("%d sessions, want good.jsonl's", len(ss))
	}
	want := filepath.Join(dir, "gone.jsonl") + ": warning: a link to nothing (its target is gone); file skipped\n" +
		filepath.Join(dir, "null.jsonl") + ": warning: a device; expected a session file, a session folder or a clai workspace; file skipped\n" +
		filepath.Join(dir, "pipe.jsonl") + ": warning: a named pipe, not a file or folder; to read a pipe, redirect it to standard input and give - as the path; file skipped"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}
