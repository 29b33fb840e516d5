//go:build unix

package load_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
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

// TestWalkNamesLinkedFolders: a link to a folder is not followed (a link
// back up would loop) but named, so a corpus gathered as links to project
// folders is not read as empty in silence; a link to a file is read.
func TestWalkNamesLinkedFolders(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	line := `{"role":"user","content":[{"type":"text","text":"hi"}]}` + "\n"
	writeFile(t, dir, "good.jsonl", line)
	writeFile(t, other, "elsewhere.jsonl", line)
	for name, target := range map[string]string{
		"project":    other,
		"up":         "..",
		"file.jsonl": filepath.Join(other, "elsewhere.jsonl"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	ss, err := load.Load([]string{dir}, corpus.Options{})
	if len(ss) != 2 {
		t.Errorf("%d sessions, want good.jsonl's and file.jsonl's", len(ss))
	}
	const why = ": warning: a link to a folder, not followed (a link back up would loop); give the folder as a PATH to read it"
	want := filepath.Join(dir, "project") + why + "\n" + filepath.Join(dir, "up") + why
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}

	// A folder holding only a link to one finds no session: the error
	// says so after the warning that names the link.
	only := t.TempDir()
	if err := os.Symlink(other, filepath.Join(only, "project")); err != nil {
		t.Fatal(err)
	}
	ss, err = load.Load([]string{only}, corpus.Options{})
	if len(ss) != 0 || err == nil {
		t.Fatalf("%d sessions, error %v; want none and an error", len(ss), err)
	}
	first, rest, _ := strings.Cut(err.Error(), "\n")
	if first != filepath.Join(only, "project")+why || !strings.HasPrefix(rest, only+": no sessions found (it holds no file to read)") {
		t.Errorf("error:\n%v", err)
	}
}

// TestFolderReadersSkipSpecialFiles: the files a folder's reader opens by
// name (a smith session folder's session.json, a clai workspace's
// .clai/data.sqlite) are not opened when they are named pipes: each
// waited forever for a writer. The error or warning names the file.
func TestFolderReadersSkipSpecialFiles(t *testing.T) {
	smithDir := t.TempDir()
	writeFile(t, smithDir, "transcript.jsonl", `{"role":"user","content":[{"type":"text","text":"hi"}],"id":"a000000000000001"}`+"\n")
	claiDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(claiDir, ".clai"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(smithDir, "session.json"), filepath.Join(claiDir, ".clai", "data.sqlite")} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	type result struct {
		ss  []*corpus.Session
		err error
	}
	for _, tt := range []struct {
		dir, want string
		sessions  int
	}{
		{smithDir, "", 1},
		{claiDir, filepath.Join(claiDir, ".clai", "data.sqlite") + ": a named pipe, not a regular file", 0},
	} {
		done := make(chan result, 1)
		go func() {
			ss, err := load.Load([]string{tt.dir}, corpus.Options{})
			done <- result{ss, err}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the load did not return within 10 s", tt.dir)
		}
		got := ""
		if r.err != nil {
			got = r.err.Error()
		}
		if len(r.ss) != tt.sessions || got != tt.want {
			t.Errorf("%s: %d sessions, error %q; want %d and %q", tt.dir, len(r.ss), got, tt.sessions, tt.want)
		}
		if tt.sessions == 1 {
			want := "a named pipe, not a regular file; loaded the transcript without it"
			if w := r.ss[0].Warnings; len(w) != 1 || w[0].Message != want {
				t.Errorf("smith folder warnings %+v, want one: %s", w, want)
			}
		}
	}
}
