package claudecode_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/claudecode"
	"github.com/calib-dev/calib/corpus/load"
)

// breakLog is a log (written from the documented record shapes) whose
// fifth request is a mid-turn cache break after four Reads: the keep-40k
// walk keeps d, c and b and clears a. write is that request's cache
// write: 0 makes its prompt fall (18,003 after 90,003), a cache that
// expired writes everything again.
func breakLog(version string, write int) *ccLog {
	big := strings.Repeat("x", 100000) // 25,000 chars4 tokens
	w := ccLog{version: version}
	w.user("review")
	w.read("toolu_a", "/Users/u/proj/a.md", big, 0)
	w.read("toolu_b", "/Users/u/proj/b.md", big, 70000)
	w.read("toolu_c", "/Users/u/proj/c.md", "small c", 80000)
	w.read("toolu_d", "/Users/u/proj/d.md", "small d", 90000)
	w.sayUsage("m5", "cache broke", write, 18000)
	w.say("m6", "done", 20000)
	return &w
}

// inferred loads the log, written as s-p.jsonl in a new folder (with an
// empty tool-results folder when folder is true), and lists its persisted
// results.
func inferred(t *testing.T, w *ccLog, folder bool) []corpus.Persisted {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "s-p.jsonl")
	if err := os.WriteFile(log, []byte(w.sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if folder {
		if err := os.MkdirAll(filepath.Join(dir, "s-p", "tool-results"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ss, err := load.Load([]string{log}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ss[0].Recorded.Persisted
}

// A 2.0.60-2.1.6 log without its tool-results folder: the results its
// mid-turn cache breaks cleared are inferred, with no file, only where the
// recorded prompt fell, only in the versions that cleared without a
// boundary line, and never when the folder is there (its files say what
// was persisted, even when it holds none).
func TestInferredPersisted(t *testing.T) {
	want := []corpus.Persisted{{ToolCallID: "toolu_a", Bytes: 100000, Boundary: -1, AtMessage: 9, Placed: corpus.PlacedInferred,
		Marker: claudecode.PersistedMarker("/Users/u/.claude/projects/-Users-u-proj/s-p/tool-results/toolu_a.txt"), Chars: 100000}}
	for _, tt := range []struct {
		name    string
		version string
		write   int
		folder  bool
		want    []corpus.Persisted
	}{
		{"2.1.6, prompt fell", "2.1.6", 0, false, want},
		{"2.0.60, prompt fell", "2.0.60", 0, false, want},
		{"2.1.6, cache expired", "2.1.6", 72001, false, nil},
		{"2.1.6, empty folder", "2.1.6", 0, true, nil},
		{"2.1.9, boundaries written", "2.1.9", 0, false, nil},
		{"2.0.59, before persisted outputs", "2.0.59", 0, false, nil},
		{"1.0.53", "1.0.53", 0, false, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := inferred(t, breakLog(tt.version, tt.write), tt.folder); !slices.Equal(got, tt.want) {
				t.Errorf("persisted =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
	// A version in the range that writes a boundary after all (2.1.7 and
	// 2.1.8 are unseen): the boundary is the record, nothing is inferred.
	w := breakLog("2.1.8", 0)
	w.microcompact("toolu_a")
	w.say("m8", "after", 21000)
	if got := inferred(t, w, false); got != nil {
		t.Errorf("with a boundary: persisted = %+v, want none", got)
	}
	// A log read from standard input has no folder to look for.
	ss, err := claudecode.Read("-", strings.NewReader(breakLog("2.1.6", 0).sb.String()), corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ss[0].Recorded.Persisted; !slices.Equal(got, want) {
		t.Errorf("from standard input: persisted =\n%+v\nwant\n%+v", got, want)
	}
}

// The real 1.0.53 logs have mid-turn cache breaks at which the keep-40k
// walk would clear results (14 in 9034225e), from before persisted outputs
// existed; at every one the recorded prompt grew. Read as if written by
// 2.1.6, without a folder, they infer nothing: the fall is what tells a
// clear from a cache that expired. (The 2.0.60-2.1.6 logs without their
// folders: TestRecordedPolicyTarget in replay/loss.)
func TestInferredPersistedNeedsAFall(t *testing.T) {
	for _, name := range []string{"0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl", "9034225e-c367-4ab6-b1eb-1f478a7ae27a.jsonl"} {
		data, err := os.ReadFile(realFile(t, filepath.Join("claude-code", name)))
		if err != nil {
			t.Fatal(err)
		}
		relabelled := strings.ReplaceAll(string(data), `"version":"1.0.53"`, `"version":"2.1.6"`)
		if relabelled == string(data) {
			t.Fatalf("%s: no 1.0.53 version to relabel", name)
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(relabelled), 0o644); err != nil {
			t.Fatal(err)
		}
		ss, err := load.Load([]string{p}, corpus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			if s.Meta.AgentVersion != "2.1.6" {
				t.Fatalf("%s: version %q after relabelling", s.ID, s.Meta.AgentVersion)
			}
			if n := len(s.Recorded.Persisted); n != 0 {
				t.Errorf("%s: %d persisted results inferred, want none (every break's prompt grew)", s.ID, n)
			}
		}
	}
}

// A full compaction makes the prompt fall and the cache break too: its own
// request infers nothing, and a later break does not infer the results
// from before it, which were summarized away (written from the documented
// record shapes: no real 2.x log compacts).
func TestInferredPersistedNotAtACompaction(t *testing.T) {
	big := strings.Repeat("x", 100000)
	// A boundary without its summary line (a log cut there, say): the
	// request after it follows the tool results, as a clear's does.
	compact := func(w *ccLog) {
		w.line(`"type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":100000}`)
	}
	// breakLog's reads, then a compaction and its request.
	w := &ccLog{version: "2.1.6"}
	w.user("review")
	w.read("toolu_a", "/Users/u/proj/a.md", big, 0)
	w.read("toolu_b", "/Users/u/proj/b.md", big, 70000)
	w.read("toolu_c", "/Users/u/proj/c.md", "small c", 80000)
	w.read("toolu_d", "/Users/u/proj/d.md", "small d", 90000)
	compact(w)
	w.say("m5", "after the summary", 18000)
	if got := inferred(t, w, false); got != nil {
		t.Errorf("at the compaction's request: persisted = %+v, want none", got)
	}
	// Four more reads and a break that clears e: a to d, from before the
	// compaction, are not inferred.
	w.read("toolu_e", "/Users/u/proj/e.md", big, 20000)
	w.read("toolu_f", "/Users/u/proj/f.md", big, 70000)
	w.read("toolu_g", "/Users/u/proj/g.md", "small g", 80000)
	w.read("toolu_h", "/Users/u/proj/h.md", "small h", 90000)
	w.say("m10", "cache broke", 18000)
	got := inferred(t, w, false)
	var ids []string
	for _, p := range got {
		ids = append(ids, p.ToolCallID)
	}
	if !slices.Equal(ids, []string{"toolu_e"}) {
		t.Errorf("after the compaction: inferred %v, want [toolu_e]", ids)
	}
}
