package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus/synth"
	"github.com/tiktoken-go/tokenizer"
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

// TestReleasesSessions: replay, inspect, compare and digest-growth let go of a session once its
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
	// The o200k codec's tables are loaded once, on first use, and kept:
	// loaded here, they are in the base.
	if c, err := tokenizer.Get(tokenizer.O200kBase); err != nil {
		t.Fatal(err)
	} else if _, err := c.Count("warm up"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"replay"},
		{"replay", "--loss-detail", "--compare-recorded", "-p", "clear-tool-results"},
		{"replay", "-j", "3", "--plot", filepath.Join(dir, "plots")}, // the plots keep each trace
		{"inspect"},
		{"compare", "--policies", "codex,opencode,claude-code"},
		{"compare", "--policies", "codex,opencode", "--per-session", "-j", "1"}, // claude-sonnet-5 is unpriced: its name is kept
		{"digest-growth"},
		{"digest-growth", "--variants", "legacy,fixed", "-j", "1"},
		// An o200k meter memoizes every string it counts: the run's one
		// policy kept them all (a policy per session now lets them go).
		{"replay", "-p", "smith-staged", "--set", "meter=o200k"},
		// The recorded policy kept each session's events, and the session
		// with them (TestRecordedKeepsNoSession; these synthetic sessions
		// record nothing, so here only the sessions' shells were kept).
		{"replay", "-p", "recorded"},
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
		limit := uint64(size)
		if slices.Contains(args, "meter=o200k") {
			// The tokenizer keeps buffers of its own between calls: 1.6 to
			// 4.9 MB live here, less after 10 files than after 5, so
			// bounded; the run's one policy kept 22.9 MB, every file.
			limit = 2 * size
		}
		if probe.live > limit {
			t.Errorf("calib %v: %d KB live after loading %d files of %d KB, want at most one file's size: the replayed sessions are kept",
				args[:len(args)-len(paths)-1], probe.live>>10, files, size>>10)
		}
	}
}

// TestCorpusOrder: replay, inspect, compare and digest-growth report the sessions in corpus
// order, though they work on each as it loads: a Claude Code subagent file
// beside its main file (agent-<id>.jsonl sorts first) after its parent, a
// file given twice once. The loader orders a folder's
// sessions after handing them over, by their Meta.Parent: releasing a
// replayed session must keep it.
func TestCorpusOrder(t *testing.T) {
	dir := subagentBeside(t, nil)
	ids := func(cmd []string) []string {
		var out, errOut bytes.Buffer
		args := append(slices.Clone(cmd), "-q", "--format", "json", dir, filepath.Join(dir, "s-main.jsonl"))
		if code := run(context.Background(), args, &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}); code != 0 {
			t.Fatalf("calib %s: exit %d: %s", cmd, code, errOut.String())
		}
		// compare's rows name the session "session", the others "id".
		var doc struct {
			Sessions []struct {
				ID      string `json:"id"`
				Session string `json:"session"`
			} `json:"sessions"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("calib %s: %v", cmd, err)
		}
		var ids []string
		for _, s := range doc.Sessions {
			ids = append(ids, s.ID+s.Session)
		}
		return ids
	}
	want := []string{"s-main", "s-main/agent-a1b2c3"}
	for _, cmd := range [][]string{{"inspect"}, {"replay"}, {"compare", "--per-session", "--policies", "codex"}, {"digest-growth"}} {
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

// subagentBeside writes a Claude Code log and its subagent's side by side
// in a new folder (agent-a1b2c3.jsonl sorts, and loads, first), each
// through edit when it is not nil.
func subagentBeside(t *testing.T, edit func(name string, b []byte) []byte) string {
	src := filepath.Join("..", "..", "corpus", "claudecode", "testdata", "project")
	dir := t.TempDir()
	for _, f := range [][2]string{{"s-main.jsonl", "s-main.jsonl"}, {"s-main/subagents/agent-a1b2c3.jsonl", "agent-a1b2c3.jsonl"}} {
		b, err := os.ReadFile(filepath.Join(src, f[0]))
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			b = edit(f[1], b)
		}
		if err := os.WriteFile(filepath.Join(dir, f[1]), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCompareRefusesInCorpusOrder: compare --prices refuses the first
// session in corpus order whose model has no price (exit 2), as when it
// checked the loaded corpus, though it checks each session as it loads:
// the subagent, read first, is not the one named.
func TestCompareRefusesInCorpusOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	dir := subagentBeside(t, func(name string, b []byte) []byte {
		model := "model-of-the-parent"
		if strings.HasPrefix(name, "agent-") {
			model = "model-of-the-subagent"
		}
		return regexp.MustCompile(`"model":"[^"]*"`).ReplaceAll(b, []byte(`"model":"`+model+`"`))
	})
	prices := filepath.Join(dir, "prices.csv")
	if err := os.WriteFile(prices, []byte("model,provider,input,cache_write_5m,cache_write_1h,cache_read,output\nother,anthropic,1,1,1,1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	args := []string{"compare", "--policies", "codex", "--prices", prices, dir}
	code := run(context.Background(), args, &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	if code != 2 || out.Len() > 0 || !strings.Contains(errOut.String(), "model-of-the-parent") {
		t.Errorf("calib compare --prices: exit %d, stdout %q, stderr %q; want exit 2, no output, the parent's model named", code, out.String(), errOut.String())
	}
}

// TestGrowthErrorInCorpusOrder: a chain that cannot be made (the policy
// never rotates) is reported for the first session in corpus order, as
// one worker over the loaded corpus reported it, though digest-growth
// chains each session as it loads: the subagent, read first, is not the
// one named.
func TestGrowthErrorInCorpusOrder(t *testing.T) {
	dir := subagentBeside(t, nil)
	for _, procs := range []int{1, 2} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			var out, errOut bytes.Buffer
			args := []string{"digest-growth", "-q", "--rotations", "2", "--set", "trigger_chars=1000000000000,min_messages=1000000", dir}
			code := run(context.Background(), args, &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
			if code != 1 || out.Len() > 0 || !strings.HasPrefix(errOut.String(), "calib: session s-main: only 0 of 2 rotations") {
				t.Errorf("GOMAXPROCS %d: exit %d, stdout %q, stderr %q; want exit 1, no output, s-main named", procs, code, out.String(), errOut.String())
			}
		}()
	}
}
