package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestHelpExamples: every command's --help shows examples, and each
// example that needs no files of the user's (it runs on --demo, or the
// command reads no corpus) runs without a usage error. A gate example may
// exit 1: failing the gate is what it shows.
func TestHelpExamples(t *testing.T) {
	t.Chdir(t.TempDir())
	a := &app{IO: &IO{}}
	for _, c := range commands() {
		cmd := c.build(a)
		name := cmd.Name()
		if strings.TrimSpace(cmd.Example) == "" {
			t.Errorf("calib %s --help shows no examples", name)
			continue
		}
		for _, line := range strings.Split(cmd.Example, "\n") {
			args := strings.Fields(line)
			if len(args) < 2 || args[0] != "calib" {
				t.Errorf("calib %s: example %q does not start with calib", name, line)
				continue
			}
			args = args[1:]
			noPaths := args[0] == "policies" || args[0] == "metrics"
			if !noPaths && !slices.Contains(args, "--demo") {
				continue
			}
			code, _, errOut := runCalib(t, args...)
			if code != 0 && code != 1 {
				t.Errorf("example %q: exit %d, stderr:\n%s", line, code, errOut)
			}
		}
	}
}

// TestReadmeCommandList: README's Commands block lists exactly the
// commands calib has (help and completion aside), no more and no fewer.
func TestReadmeCommandList(t *testing.T) {
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(md), "## Commands\n\n```\n")
	if !ok {
		t.Fatal("README has no Commands code block")
	}
	block, _, _ = strings.Cut(block, "```")
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^calib (\S+)`).FindAllStringSubmatch(block, -1) {
		listed = append(listed, m[1])
	}
	a := &app{IO: &IO{}}
	var have []string
	for _, c := range commands() {
		have = append(have, c.build(a).Name())
	}
	slices.Sort(listed)
	slices.Sort(have)
	if !slices.Equal(listed, have) {
		t.Errorf("README Commands lists %v; calib has %v", listed, have)
	}
}
