package claudecode_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/claudecode"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/realcorpus"
)

// ccLog writes a Claude Code log line by line, in the documented record
// shapes (the same as testdata/*.jsonl): no real log is copied.
type ccLog struct {
	sb      strings.Builder
	n       int
	prev    string
	version string // "2.1.6" when empty
}

func (w *ccLog) line(format string, args ...any) {
	w.n++
	uuid := fmt.Sprintf("u%d", w.n)
	parent := "null"
	if w.prev != "" {
		parent = `"` + w.prev + `"`
	}
	version := w.version
	if version == "" {
		version = "2.1.6"
	}
	fmt.Fprintf(&w.sb, `{"parentUuid":%s,"isSidechain":false,"cwd":"/Users/u/proj","sessionId":"s-p","version":%q,"uuid":"%s",`, parent, version, uuid)
	fmt.Fprintf(&w.sb, format, args...)
	w.sb.WriteString("}\n")
	w.prev = uuid
}

func (w *ccLog) user(text string) {
	w.line(`"type":"user","message":{"role":"user","content":%q}`, text)
}

// read writes one assistant request calling Read (with its usage) and the
// tool result.
func (w *ccLog) read(id, path, result string, cacheRead int) {
	w.line(`"type":"assistant","message":{"id":"msg_%s","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"%s","name":"Read","input":{"file_path":%q}}],"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":%d,"output_tokens":5}}`, id, id, path, cacheRead)
	w.line(`"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"%s","content":%q}]}`, id, result)
}

func (w *ccLog) say(id, text string, cacheRead int) {
	w.sayUsage(id, text, 0, cacheRead)
}

// sayUsage is say with a cache write too.
func (w *ccLog) sayUsage(id, text string, cacheWrite, cacheRead int) {
	w.line(`"type":"assistant","message":{"id":"msg_%s","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":%q}],"usage":{"input_tokens":3,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":5}}`, id, text, cacheWrite, cacheRead)
}

func (w *ccLog) microcompact(ids ...string) {
	w.line(`"type":"system","subtype":"microcompact_boundary","microcompactMetadata":{"trigger":"auto","preTokens":1,"tokensSaved":1,"compactedToolIds":["%s"]}`, strings.Join(ids, `","`))
}

// readOnce is a main log that reads one file (toolu_m) and answers.
func readOnce() *ccLog {
	var w ccLog
	w.user("review")
	w.read("toolu_m", "/Users/u/proj/m.md", "main's file", 0)
	w.say("m2", "done", 100)
	return &w
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Each way of placing a persisted output, and each bad file: the session
// loads, good files become events, bad ones warnings that name the file.
func TestPersistedOutputs(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", 100000) // 25,000 chars4 tokens
	var w ccLog
	w.user("review")
	w.read("toolu_a", "/Users/u/proj/a.md", big, 0)
	w.read("toolu_b", "/Users/u/proj/b.md", big, 70000)
	w.read("toolu_c", "/Users/u/proj/c.md", "small c", 80000)
	w.read("toolu_d", "/Users/u/proj/d.md", "small d", 90000)
	w.say("m5", "cache broke", 18000) // mid-turn break: keep d, c, b (25,004 tokens); a is cleared
	w.microcompact("toolu_c")
	w.say("m6", "after the boundary", 20000)
	w.read("toolu_e", "/Users/u/proj/e.md", "e body", 21000)
	w.read("toolu_f", "/Users/u/proj/f.md", "f body", 22000)
	w.say("m9", "done", 23000)
	log := filepath.Join(dir, "s-p.jsonl")
	if err := os.WriteFile(log, []byte(w.sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(dir, "s-p", "tool-results")
	writeFiles(t, tr, map[string]string{
		"toolu_a.txt":  big,
		"toolu_b.txt":  big,             // never cleared by the rule: placed at arrival
		"toolu_c.txt":  "small c",       // cleared by the boundary
		"toolu_d.txt":  "not d's text",  // recorded, with a warning
		"toolu_e.txt":  "",              // empty
		"toolu_zz.txt": "who called me", // no tool call
		".txt":         "no id",         // no tool call id at all
		"notes.md":     "not a .txt: not looked at",
	})
	if err := os.Symlink(filepath.Join(dir, "missing"), filepath.Join(tr, "toolu_f.txt")); err != nil {
		t.Fatal(err)
	}
	ss, err := load.Load([]string{log}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	type placed struct {
		ID       string
		Bytes    int64
		Boundary int
		At       int
		Placed   string
	}
	var got []placed
	for _, p := range s.Recorded.Persisted {
		got = append(got, placed{p.ToolCallID, p.Bytes, p.Boundary, p.AtMessage, p.Placed})
		if p.File != filepath.Join(tr, p.ToolCallID+".txt") {
			t.Errorf("%s: file %q", p.ToolCallID, p.File)
		}
	}
	// Messages: 0 user, 1 a, 2 result, 3 b, 4 result, 5 c, 6 result, 7 d,
	// 8 result, 9 "cache broke", 10 "after the boundary", 11 e, ...
	want := []placed{
		{"toolu_a", 100000, -1, 9, corpus.PlacedCacheBreak},
		{"toolu_b", 100000, -1, 5, corpus.PlacedArrival},
		{"toolu_c", 7, 0, 10, corpus.PlacedBoundary},
		{"toolu_d", 12, -1, 9, corpus.PlacedArrival},
	}
	if !slices.Equal(got, want) {
		t.Errorf("persisted =\n%+v\nwant\n%+v", got, want)
	}
	if m := s.Recorded.Persisted[0].Marker; m != claudecode.PersistedMarker("/Users/u/.claude/projects/-Users-u-proj/s-p/tool-results/toolu_a.txt") {
		t.Errorf("marker %q", m)
	}
	var warns []string
	for _, x := range s.Warnings {
		if strings.HasPrefix(x.File, tr) {
			warns = append(warns, filepath.Base(x.File)+": "+x.Message)
		}
	}
	wantWarns := []string{
		".txt: persisted output with no tool call id in its name (expected <tool_use_id>.txt); file ignored",
		"toolu_d.txt: persisted output differs from the transcript's result for toolu_d (the transcript's text is replayed)",
		"toolu_e.txt: persisted output is empty (expected the full text of tool result toolu_e); file ignored",
		"toolu_f.txt: persisted output unreadable (open " + filepath.Join(tr, "toolu_f.txt") + ": no such file or directory); file ignored",
		"toolu_zz.txt: persisted output for tool call toolu_zz, which the transcript does not have; file ignored",
	}
	if !slices.Equal(warns, wantWarns) {
		t.Errorf("warnings =\n%s\nwant\n%s", strings.Join(warns, "\n"), strings.Join(wantWarns, "\n"))
	}
	if len(s.Messages) != 16 {
		t.Errorf("%d messages, want 16 (bad files cost nothing else)", len(s.Messages))
	}
}

func TestPersistedWithoutToolResults(t *testing.T) {
	dir := t.TempDir()
	var w ccLog
	w.user("hello")
	w.say("m1", "hi", 0)
	log := filepath.Join(dir, "s-p.jsonl")
	if err := os.WriteFile(log, []byte(w.sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, filepath.Join(dir, "s-p", "tool-results"), map[string]string{"toolu_x.txt": "x"})
	ss, err := load.Load([]string{log}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	if len(s.Messages) != 2 || len(s.Recorded.Persisted) != 0 {
		t.Errorf("%d messages, %d persisted; want 2 and 0", len(s.Messages), len(s.Recorded.Persisted))
	}
	if len(s.Warnings) != 1 || !strings.HasSuffix(s.Warnings[0].File, "toolu_x.txt") ||
		s.Warnings[0].Message != "persisted output, but the transcript has no tool results at all; file ignored" {
		t.Errorf("warnings = %+v", s.Warnings)
	}
}

// A persisted output can itself be a log (the agent ran cat on one). Walking
// the folder must read it as the output it is, not as one more session: it
// was loaded as a 2-message session of its own, and that session looked
// for <file>.txt/tool-results and warned "not a directory".
func TestPersistedOutputThatIsALog(t *testing.T) {
	dir := t.TempDir()
	var inner ccLog
	inner.user("an old session")
	inner.say("m0", "its answer", 0)
	var w ccLog
	w.user("show me the old log")
	w.line(`"type":"assistant","message":{"id":"msg_c","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_cat","name":"Bash","input":{"command":"cat old.jsonl"}}],"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}}`)
	w.line(`"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_cat","content":%q}]}`, inner.sb.String())
	w.say("m2", "done", 100)
	log := filepath.Join(dir, "s-p.jsonl")
	writeFiles(t, dir, map[string]string{"s-p.jsonl": w.sb.String()})
	writeFiles(t, filepath.Join(dir, "s-p", "tool-results"), map[string]string{"toolu_cat.txt": inner.sb.String()})
	ss, err := load.Load([]string{dir}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 || ss[0].Path != log || len(ss[0].Recorded.Persisted) != 1 || len(ss[0].Warnings) != 0 {
		for _, s := range ss {
			t.Logf("session %s from %s: %d persisted, warnings %+v", s.ID, s.Path, len(s.Recorded.Persisted), s.Warnings)
		}
		t.Errorf("%d sessions, want only %s with its 1 persisted output and no warning", len(ss), log)
	}
	// The session's own folder holds its outputs and (2.1.x) its
	// subagents' logs; here none of the latter.
	if _, err := load.Load([]string{filepath.Join(dir, "s-p")}, corpus.Options{}); !errors.Is(err, corpus.ErrNoSessions) {
		t.Errorf("walking s-p: %v, want no sessions found", err)
	}
	// Given by its name, the file is read for what it holds; a log not
	// named .jsonl has no tool-results folder to look for.
	ss, err = load.Load([]string{filepath.Join(dir, "s-p", "tool-results", "toolu_cat.txt")}, corpus.Options{})
	if err != nil || len(ss) != 1 || len(ss[0].Messages) != 2 || len(ss[0].Warnings) != 0 {
		t.Errorf("the output given as a PATH: %v; want one session of 2 messages, no warning", err)
	}
}

// A subagent shares its main session's tool-results folder (the marker's
// path names the main session). No real log here has a subagent's output
// persisted: this layout is written from the documented one (SOURCES.md:
// <id>/subagents/agent-*.jsonl beside <id>/tool-results/), and the subagent
// log's lines from the record shapes of testdata/subagent_compact.jsonl.
// Each log takes the outputs of its own calls; neither warns about the
// other's (the main log said "which the transcript does not have", fatal
// under --strict); a file nobody's call is still warned about.
func TestPersistedOutputOfASubagent(t *testing.T) {
	dir := t.TempDir()
	w := readOnce()
	var sub strings.Builder
	for i, l := range []string{
		`"type":"user","message":{"role":"user","content":"explore"}`,
		`"type":"assistant","message":{"id":"msg_s1","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"tool_use","id":"toolu_s","name":"Read","input":{"file_path":"/Users/u/proj/s.md"}}],"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}}`,
		`"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s","content":"subagent's file"}]}`,
		`"type":"assistant","message":{"id":"msg_s2","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"found it"}],"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":10,"output_tokens":5}}`,
	} {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf(`"s%d"`, i-1)
		}
		fmt.Fprintf(&sub, `{"parentUuid":%s,"isSidechain":true,"agentId":"a1","gitBranch":"","cwd":"/Users/u/proj","sessionId":"s-p","version":"2.1.6","uuid":"s%d",%s}`+"\n", parent, i, l)
	}
	// 2.1.x keeps subagent logs in <id>/subagents/, 2.0.x beside <id>.jsonl.
	for version, subDir := range map[string]string{"2.1": filepath.Join("s-p", "subagents"), "2.0": "."} {
		dir := filepath.Join(dir, version)
		writeFiles(t, dir, map[string]string{"s-p.jsonl": w.sb.String()})
		writeFiles(t, filepath.Join(dir, subDir), map[string]string{"agent-a1.jsonl": sub.String()})
		tr := filepath.Join(dir, "s-p", "tool-results")
		writeFiles(t, tr, map[string]string{"toolu_m.txt": "main's file", "toolu_s.txt": "subagent's file", "toolu_zz.txt": "nobody's", ".txt": "no id"})
		checkSubagentPersisted(t, dir)
	}
}

func checkSubagentPersisted(t *testing.T, dir string) {
	t.Helper()
	ss, err := load.Load([]string{dir}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range ss {
		var ids, warns []string
		for _, p := range s.Recorded.Persisted {
			ids = append(ids, p.ToolCallID)
		}
		for _, w := range s.Warnings {
			warns = append(warns, filepath.Base(w.File)+": "+w.Message)
		}
		got = append(got, fmt.Sprintf("%s persisted %v warnings %q", s.ID, ids, warns))
	}
	want := []string{
		`s-p persisted [toolu_m] warnings [".txt: persisted output with no tool call id in its name (expected <tool_use_id>.txt); file ignored" "toolu_zz.txt: persisted output for tool call toolu_zz, which the transcript does not have; file ignored"]`,
		`s-p/agent-a1 persisted [toolu_s] warnings []`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: sessions:\n%s\nwant\n%s", dir, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPersistedMarkerForm checks the marker against the form SOURCES.md
// quotes (from the phantom-reads repository's REPRODUCTION.md), with the
// quote's \n read as a newline and its placeholder as the path.
func TestPersistedMarkerForm(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(realcorpus.Dir(t), "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	const placeholder = "<absolute path of that .txt file>"
	_, rest, ok := strings.Cut(string(data), "`<persisted-output>")
	quoted, _, ok2 := strings.Cut(rest, "`")
	if !ok || !ok2 || !strings.Contains(quoted, placeholder) {
		t.Fatalf("SOURCES.md no longer quotes the marker as `<persisted-output>...%s...`", placeholder)
	}
	p := claudecode.PersistedPath("/Users/gray/Projects/barebones-phantom-reads", "s-1", "toolu_1")
	want := strings.ReplaceAll(strings.Replace("<persisted-output>"+quoted, placeholder, p, 1), `\n`, "\n")
	if got := claudecode.PersistedMarker(p); got != want {
		t.Errorf("marker\n%q\nwant (SOURCES.md)\n%q", got, want)
	}
}

func TestPersistedPath(t *testing.T) {
	for _, c := range []struct{ cwd, session, want string }{
		// The folder the real logs' read-backs name.
		{"/Users/gray/Projects/barebones-phantom-reads", "s", "/Users/gray/.claude/projects/-Users-gray-Projects-barebones-phantom-reads/s/tool-results/t.txt"},
		{"/home/ann/my_proj.v2", "main", "/home/ann/.claude/projects/-home-ann-my-proj-v2/main/tool-results/t.txt"},
		{"/home/ann", "main", "/home/ann/.claude/projects/-home-ann/main/tool-results/t.txt"},
		// No home in the cwd: the right shape, not the real length.
		{"/srv/x", "s", "~/.claude/projects/-srv-x/s/tool-results/t.txt"},
		{"", "s", "~/.claude/projects//s/tool-results/t.txt"},
		// Windows: home and backslashes (the shape, not a real marker).
		{`C:\Users\ann\proj`, "s", `C:\Users\ann\.claude\projects\C--Users-ann-proj\s\tool-results\t.txt`},
		{`D:\work\proj`, "s", `~\.claude\projects\D--work-proj\s\tool-results\t.txt`},
	} {
		if got := claudecode.PersistedPath(c.cwd, c.session, "t"); got != c.want {
			t.Errorf("PersistedPath(%q, %q) = %s, want %s", c.cwd, c.session, got, c.want)
		}
	}
}

// Loading a log again reads its persisted output into the buffer an
// earlier load used (loadPool): a load allocates about the result text it
// keeps, not that and a buffer of the file's size as well.
func TestPersistedReadReusesBuffer(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("x", 100000) // one line, shorter than the line buffer
	var w ccLog
	w.user("review")
	w.read("toolu_a", "/Users/u/proj/a.md", text, 0)
	w.say("m2", "done", 0)
	log := filepath.Join(dir, "s-p.jsonl")
	if err := os.WriteFile(log, []byte(w.sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, filepath.Join(dir, "s-p", "tool-results"), map[string]string{"toolu_a.txt": text})
	loadIt := func() {
		ss, err := claudecode.Load(log, corpus.Options{})
		if err != nil || len(ss) != 1 || len(ss[0].Recorded.Persisted) != 1 {
			t.Fatalf("load: %v", err)
		}
	}
	if per := claudecode.AllocatedPerRun(t, 5, loadIt); per > uint64(len(text))*3/2 {
		t.Errorf("a load allocated %d bytes for a %d-byte result and its persisted file", per, len(text))
	}
}
