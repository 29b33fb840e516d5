package load_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/synth"
)

// A Claude Code 2.0.x subagent file beside its main file (agent-<id>.jsonl,
// which sorts before the main file's name) loads after its parent; other
// files keep their lexical order.
func TestSubagentBesideMainLoadsAfterParent(t *testing.T) {
	src := filepath.Join("..", "claudecode", "testdata", "project")
	main, err := os.ReadFile(filepath.Join(src, "s-main.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	agent, err := os.ReadFile(filepath.Join(src, "s-main", "subagents", "agent-a1b2c3.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, dir, "agent-a1b2c3.jsonl", string(agent))
	writeFile(t, dir, "s-main.jsonl", string(main))
	writeFile(t, dir, "0-first.jsonl", `{"role":"user","content":[{"type":"text","text":"hi"}]}`+"\n")
	writeFile(t, dir, "z-last.jsonl", `{"role":"user","content":[{"type":"text","text":"bye"}]}`+"\n")
	ss, err := load.Load([]string{dir}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range ss {
		ids = append(ids, s.ID)
	}
	want := []string{"0-first", "s-main", "s-main/agent-a1b2c3", "z-last"}
	if !slices.Equal(ids, want) {
		t.Errorf("sessions %q, want %q", ids, want)
	}
	if ss[2].Meta.Parent != "s-main" {
		t.Errorf("subagent parent %q, want s-main", ss[2].Meta.Parent)
	}
}

// Files load in parallel, but the sessions, their order and the errors are
// the same whatever GOMAXPROCS.
func TestLoadSameWhateverParallelism(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.WriteSmithSet(dir, synth.ToolHeavy, 7, 2<<20, 200<<10); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "zz-bad/transcript.bin", "\x00\x01binary")
	writeFile(t, dir, "zz-empty.jsonl", "")
	paths := []string{dir, filepath.Join("..", "claudecode", "testdata"), filepath.Join("..", "codex", "testdata"), filepath.Join(dir, "missing")}
	loadAt := func(procs int) ([]*corpus.Session, string) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		ss, err := load.Load(paths, corpus.Options{})
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		return ss, msg
	}
	one, oneErr := loadAt(1)
	if len(one) < 12 {
		t.Fatalf("only %d sessions loaded: the test needs a corpus", len(one))
	}
	for _, procs := range []int{2, 4, 16} {
		many, manyErr := loadAt(procs)
		if manyErr != oneErr {
			t.Errorf("GOMAXPROCS=%d: error\n%s\nwant\n%s", procs, manyErr, oneErr)
		}
		if !reflect.DeepEqual(many, one) {
			t.Errorf("GOMAXPROCS=%d: sessions differ from GOMAXPROCS=1", procs)
		}
	}
}

// LoadEach hands over every session Load returns, each once, as its file
// is read, and returns what Load returns, with one worker or several.
func TestLoadEachSeesEverySession(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.WriteSmithSet(dir, synth.ToolHeavy, 5, 1<<20, 100<<10); err != nil {
		t.Fatal(err)
	}
	paths := []string{dir, filepath.Join("..", "claudecode", "testdata"), filepath.Join(dir, "missing")}
	want, wantErr := load.Load(paths, corpus.Options{})
	for _, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		var mu sync.Mutex
		seen := map[*corpus.Session]int{}
		got, err := load.LoadEach(paths, corpus.Options{}, func(ss []*corpus.Session) {
			mu.Lock()
			defer mu.Unlock()
			for _, s := range ss {
				seen[s]++
			}
		})
		runtime.GOMAXPROCS(prev)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("GOMAXPROCS=%d: LoadEach returns other sessions or errors than Load", procs)
		}
		if len(seen) != len(got) {
			t.Errorf("GOMAXPROCS=%d: each saw %d sessions, Load returns %d", procs, len(seen), len(got))
		}
		for _, s := range got {
			if seen[s] != 1 {
				t.Errorf("GOMAXPROCS=%d: session %s handed over %d times", procs, s.ID, seen[s])
			}
		}
	}
}
