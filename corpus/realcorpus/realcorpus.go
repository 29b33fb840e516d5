// Package realcorpus finds shared/corpus-real, the real agent logs that
// sit beside a checkout (shared/ next to the module folder, as CI lays it
// out), for tests and benchmarks. It is the one place that knows where
// they are and what to do when they are not there.
//
// A fresh clone has no shared/, and `go test ./...` must pass there, so a
// test that needs the logs skips. CI has them and sets
// CALIB_REQUIRE_REAL_CORPUS=1 (.ci/run), which turns that skip into a
// failure: CI can never pass without having read the real logs.
package realcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvRequire is the environment variable that makes a missing real corpus
// a test failure instead of a skip.
const EnvRequire = "CALIB_REQUIRE_REAL_CORPUS"

// Required reports whether EnvRequire asks for the real corpus.
func Required() bool { return os.Getenv(EnvRequire) == "1" }

// Root is shared/corpus-real beside the module folder that holds the
// working directory (a test runs in its package's folder), whether or not
// it exists; "" when no go.mod is found above the working directory.
func Root() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared", "corpus-real")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Dir is the path elem... under the real corpus. When it does not exist,
// tb skips, or fails if Required().
func Dir(tb testing.TB, elem ...string) string {
	tb.Helper()
	root := Root()
	p := filepath.Join(append([]string{root}, elem...)...)
	if _, err := os.Stat(p); root == "" || err != nil {
		if Required() {
			tb.Fatalf("real corpus not found at %s, and %s=1 requires it (shared/ must sit beside the checkout)", p, EnvRequire)
		}
		tb.Skipf("real corpus not found at %s (shared/corpus-real beside the checkout; set %s=1 to fail instead)", p, EnvRequire)
	}
	return p
}
