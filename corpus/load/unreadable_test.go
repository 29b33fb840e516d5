//go:build unix

package load_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

// A file or folder a folder walk cannot read is an error naming it, and the
// rest of the folder loads: an unreadable file was skipped without a word,
// and an unreadable subfolder failed the whole walk, named as the folder
// given. Root reads everything, so as root the test runs itself again as
// nobody. Unix only: on Windows a mode of 0 leaves a file readable, and
// there is no user to switch to.
func TestWalkUnreadable(t *testing.T) {
	if dir, ok := os.LookupEnv("CALIB_UNREADABLE_DIR"); ok {
		checkUnreadable(t, dir)
		return
	}
	dir := unreadableTree(t)
	if os.Geteuid() == 0 {
		asNobody(t, dir)
		return
	}
	checkUnreadable(t, dir)
}

func checkUnreadable(t *testing.T, dir string) {
	ss, err := load.Load([]string{dir}, corpus.Options{})
	if len(ss) != 1 || ss[0].ID != "ok" {
		t.Errorf("%d sessions, want ok.jsonl's", len(ss))
	}
	var failed []string
	for _, e := range splitJoined(err) {
		var fe *corpus.FileError
		if errors.As(e, &fe) && errors.Is(fe, fs.ErrPermission) {
			failed = append(failed, strings.TrimPrefix(fe.Path, dir))
		}
	}
	if strings.Join(failed, " ") != "/secret.jsonl /sub" {
		t.Errorf("errors %v, want secret.jsonl and sub named as unreadable", err)
	}
}

func unreadableTree(t *testing.T) string {
	dir := t.TempDir()
	line := `{"role":"user","content":[{"type":"text","text":"hi"}]}` + "\n"
	writeFile(t, dir, "ok.jsonl", line)
	writeFile(t, dir, "secret.jsonl", line)
	writeFile(t, filepath.Join(dir, "sub"), "a.jsonl", line)
	for p, mode := range map[string]os.FileMode{filepath.Join(dir, "secret.jsonl"): 0, filepath.Join(dir, "sub"): 0} {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "sub"), 0o755) })
	return dir
}

// asNobody runs TestWalkUnreadable on dir as user nobody (65534), from a
// copy of the test binary that user can reach.
func asNobody(t *testing.T, dir string) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "load.test")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	// The test's temporary folders (0700), not what holds them.
	for _, p := range []string{filepath.Dir(bin), dir, filepath.Dir(dir)} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-test.run=^TestWalkUnreadable$")
	cmd.Env = append(os.Environ(), "CALIB_UNREADABLE_DIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}
