package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus/synth"
)

// heapProbe is standard input that measures the live heap when the
// loader first reads it: at that moment every file given before "-" has
// been read, and nothing else runs (GOMAXPROCS 1 loads one input at a
// time), so what is live is what the command keeps of those files.
type heapProbe struct {
	r    io.Reader
	base uint64
	live uint64 // live heap above base at the first Read
	read bool
}

func (p *heapProbe) Read(b []byte) (int, error) {
	if !p.read {
		p.read = true
		p.live = liveHeap() - min(p.base, liveHeap())
	}
	return p.r.Read(b)
}

// liveHeap is the heap left after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestReleasesSessions: replay and inspect let go of a session once its
// result is computed, so what a large corpus keeps live while it loads is
// the sessions in flight, not all of them (before, they loaded the whole
// corpus first: five 4 MB transcripts kept 22 MB live). The
// results must not pin a file's buffer either: the smith reader's strings
// point into one buffer per file, so one kept substring (a loss subject, a
// tool name, an id) keeps the whole file.
func TestReleasesSessions(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	dir := t.TempDir()
	const files, size = 5, 4 << 20
	paths, err := synth.WriteSmithSet(filepath.Join(dir, "big"), synth.ToolHeavy, 1, files*size, size)
	if err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small.jsonl")
	if err := synth.WriteSmithTranscript(small, synth.Smith(synth.Rereads, 9)); err != nil {
		t.Fatal(err)
	}
	stdin, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"replay"},
		{"replay", "--loss-detail", "--compare-recorded", "-p", "clear-tool-results"},
		{"replay", "-j", "3", "--plot", filepath.Join(dir, "plots")}, // the plots keep each trace
		{"inspect"},
	} {
		probe := &heapProbe{r: bytes.NewReader(stdin)}
		var out, errOut bytes.Buffer
		args := append(append(args, "-q", "--format", "json"), append(paths, "-")...)
		probe.base = liveHeap()
		if code := run(context.Background(), args, &IO{In: probe, Out: &out, ErrOut: &errOut}); code != 0 {
			t.Fatalf("calib %v: exit %d: %s", args[:len(args)-len(paths)-1], code, errOut.String())
		}
		t.Logf("calib %v: %d KB live after %d files of %d KB", args[:len(args)-len(paths)-1], probe.live>>10, files, size>>10)
		if !probe.read {
			t.Fatal("standard input was not read")
		}
		if probe.live > size {
			t.Errorf("calib %v: %d KB live after loading %d files of %d KB, want at most one file's size: the replayed sessions are kept",
				args[:len(args)-len(paths)-1], probe.live>>10, files, size>>10)
		}
	}
}

// TestCorpusOrder: replay and inspect report the sessions in corpus
// order, though they work on each as it loads: a Claude Code subagent file
// beside its main file (agent-<id>.jsonl sorts first) after its parent, a
// file given twice once. The loader orders a folder's
// sessions after handing them over, by their Meta.Parent: releasing a
// replayed session must keep it.
func TestCorpusOrder(t *testing.T) {
	src := filepath.Join("..", "..", "corpus", "claudecode", "testdata", "project")
	dir := t.TempDir()
	for _, f := range [][2]string{{"s-main.jsonl", "s-main.jsonl"}, {"s-main/subagents/agent-a1b2c3.jsonl", "agent-a1b2c3.jsonl"}} {
		b, err := os.ReadFile(filepath.Join(src, f[0]))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f[1]), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(cmd string) []string {
		var out, errOut bytes.Buffer
		args := []string{cmd, "-q", "--format", "json", dir, filepath.Join(dir, "s-main.jsonl")}
		if code := run(context.Background(), args, &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}); code != 0 {
			t.Fatalf("calib %s: exit %d: %s", cmd, code, errOut.String())
		}
		var doc struct {
			Sessions []struct {
				ID string `json:"id"`
			} `json:"sessions"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("calib %s: %v", cmd, err)
		}
		var ids []string
		for _, s := range doc.Sessions {
			ids = append(ids, s.ID)
		}
		return ids
	}
	want := []string{"s-main", "s-main/agent-a1b2c3"}
	for _, cmd := range []string{"inspect", "replay"} {
		for _, procs := range []int{1, 2} {
			func() {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				if got := ids(cmd); !slices.Equal(got, want) {
					t.Errorf("%s, GOMAXPROCS %d: sessions %q, want %q", cmd, procs, got, want)
				}
			}()
		}
	}
}
