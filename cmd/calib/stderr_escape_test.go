package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileNameControlsEscaped: a file name is the user's (or whoever
// gathered the logs'): one holding a newline is printed with it escaped,
// so a warning about it stays one line and cannot start a line GitHub
// Actions reads as a workflow command.
func TestFileNameControlsEscaped(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCalib(t, "demo", "-q", filepath.Join(dir, "demo")); code != 0 {
		t.Fatalf("calib demo: exit %d: %s", code, errOut)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "demo", "smith", "sessions", "session-1786205678-d4e5f6", "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	gh := filepath.Join(dir, "gh")
	if err := os.Mkdir(gh, 0o755); err != nil {
		t.Fatal(err)
	}
	// The transcript cut mid-line: a warning naming the file and its line.
	name := filepath.Join(gh, "nl\n::error::pwned.jsonl")
	if err := os.WriteFile(name, raw[:len(raw)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCalib(t, "replay", gh, "--format", "github")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, line := range strings.Split(strings.TrimSuffix(errOut, "\n"), "\n") {
		if !strings.HasPrefix(line, "calib: ") {
			t.Errorf("a line of standard error does not start with calib: %q", line)
		}
	}
	if want := `nl\n::error::pwned.jsonl:`; !strings.Contains(errOut, want) {
		t.Errorf("standard error %q; want the file named as %s", errOut, want)
	}
}
