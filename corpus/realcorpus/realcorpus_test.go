package realcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Root walks up to the module folder: from this package's folder that is
// two levels up, so the corpus is three levels up beside it.
func TestRoot(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(wd))), "shared", "corpus-real")
	if got := Root(); got != want {
		t.Errorf("Root() = %q, want %q", got, want)
	}
}

// A missing path skips, or fails under CALIB_REQUIRE_REAL_CORPUS=1.
func TestDirMissing(t *testing.T) {
	for _, require := range []string{"", "1"} {
		t.Setenv(EnvRequire, require)
		ft := &fakeTB{TB: t}
		func() {
			defer func() { _ = recover() }()
			Dir(ft, "no-such-folder-here")
		}()
		if ft.skipped != (require == "") || ft.failed != (require == "1") {
			t.Errorf("%s=%q: skipped %v failed %v", EnvRequire, require, ft.skipped, ft.failed)
		}
	}
}

// fakeTB records Skipf and Fatalf and stops the call like testing does
// (by panicking here instead of runtime.Goexit).
type fakeTB struct {
	testing.TB
	skipped, failed bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Skipf(string, ...any)  { f.skipped = true; panic("skip") }
func (f *fakeTB) Fatalf(string, ...any) { f.failed = true; panic("fatal") }
