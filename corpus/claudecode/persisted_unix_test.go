//go:build unix

package claudecode_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

// A persisted output that is a named pipe or a device is a warning, not a
// read: opening a pipe no one writes to waited forever (and held up the
// whole corpus), and a device such as /dev/zero never ends.
func TestPersistedOutputThatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	var w ccLog
	w.user("review")
	w.read("toolu_p", "/Users/u/proj/p.md", "p body", 0)
	w.read("toolu_q", "/Users/u/proj/q.md", "q body", 100)
	w.say("m3", "done", 200)
	log := filepath.Join(dir, "s-p.jsonl")
	if err := os.WriteFile(log, []byte(w.sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(dir, "s-p", "tool-results")
	if err := os.MkdirAll(tr, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(tr, "toolu_p.txt"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := os.Symlink("/dev/null", filepath.Join(tr, "toolu_q.txt")); err != nil {
		t.Fatal(err)
	}
	done := make(chan []*corpus.Session, 1)
	go func() {
		ss, err := load.Load([]string{log}, corpus.Options{})
		if err != nil {
			t.Error(err)
		}
		done <- ss
	}()
	var ss []*corpus.Session
	select {
	case ss = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the load is still waiting after 20 s: it opened the named pipe")
	}
	if len(ss) != 1 {
		t.Fatalf("%d sessions, want 1", len(ss))
	}
	var warns []string
	for _, x := range ss[0].Warnings {
		if strings.HasPrefix(x.File, tr) {
			warns = append(warns, filepath.Base(x.File)+": "+x.Message)
		}
	}
	want := []string{
		"toolu_p.txt: persisted output unreadable (a named pipe, not a regular file); file ignored",
		"toolu_q.txt: persisted output unreadable (a device, not a regular file); file ignored",
	}
	if !slices.Equal(warns, want) {
		t.Errorf("warnings =\n%s\nwant\n%s", strings.Join(warns, "\n"), strings.Join(want, "\n"))
	}
	if len(ss[0].Recorded.Persisted) != 0 || len(ss[0].Messages) != 6 {
		t.Errorf("%d persisted, %d messages; want 0 and 6", len(ss[0].Recorded.Persisted), len(ss[0].Messages))
	}
}
