package main

import (
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
)

// topLevel is the module's top level as the project brief fixes it: a new
// package goes under one of these folders, never beside them.
var topLevel = []string{"README.md", "cmd", "corpus", "go.mod", "go.sum", "metrics", "policy", "replay", "report", "scripts"}

// TestTopLevelLayout checks that every file git tracks outside the
// dot-folders (.ci, .gitignore) sits under the top level above. It asks
// git, so a binary built in the checkout does not count; outside a git
// checkout (a source tarball) there is nothing to ask and it skips.
func TestTopLevelLayout(t *testing.T) {
	out, err := exec.Command("git", "-C", "../..", "ls-files").Output()
	if err != nil {
		t.Skipf("not a git checkout (git ls-files: %v)", err)
	}
	var stray []string
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		top, _, _ := strings.Cut(path.Clean(f), "/")
		if strings.HasPrefix(top, ".") || slices.Contains(topLevel, top) {
			continue
		}
		if !slices.Contains(stray, top) {
			stray = append(stray, top)
		}
	}
	if len(stray) > 0 {
		t.Errorf("tracked files outside the module's top level (%s): %s; move them under one of those folders",
			strings.Join(topLevel, ", "), strings.Join(stray, ", "))
	}
}
