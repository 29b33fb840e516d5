package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

// goRun runs `go run scripts/NAME args...` from the module root, as the
// README shows it, and returns its standard output.
func goRun(t *testing.T, name string, args ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a script")
	}
	gobin, err := exec.LookPath("go") // the go that runs this test is on PATH
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(gobin, append([]string{"run", "scripts/" + name}, args...)...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go run scripts/%s: %v\n%s", name, err, stderr)
	}
	return string(out)
}

// The README's `go run scripts/gen_sessions.go DIR N M` writes N smith
// transcripts of M messages each, which load as N sessions of M messages
// (with a warning when M cuts a turn after a tool call, as it may: the
// script says so, and smith's own log can stop there too).
func TestGenSessionsScript(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	goRun(t, "gen_sessions.go", dir, "2", "30")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Name() != "s001.jsonl" || entries[1].Name() != "s002.jsonl" {
		t.Fatalf("files %v, want s001.jsonl and s002.jsonl", entries)
	}
	ss, err := load.Load([]string{dir}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 || len(ss[0].Messages) != 30 || len(ss[1].Messages) != 30 {
		t.Fatalf("%d sessions, want 2 of 30 messages", len(ss))
	}
}

// The README's `go run scripts/parallel_ceiling.go 5`, with one round:
// it prints both medians and their ratio.
func TestParallelCeilingScript(t *testing.T) {
	out := goRun(t, "parallel_ceiling.go", "1")
	if !regexp.MustCompile(`^1 worker \d+\.\d{3} s, 2 workers \d+\.\d{3} s \(medians of 1 rounds\): 2 workers are \d+\.\d{2}x as fast\n$`).MatchString(out) {
		t.Errorf("output %q", out)
	}
}
