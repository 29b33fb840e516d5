package load_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

// Load across paths: what each kind of bad path costs, and that it costs
// nothing else.
func TestLoadBadPaths(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.jsonl", `{"role":"user","content":[{"type":"text","text":"hi"}]}`+"\n")
	empty := writeFile(t, dir, "empty.jsonl", "")
	blank := writeFile(t, dir, "blank.jsonl", "\n\n  \n")
	binary := writeFile(t, dir, "transcript.bin", "\x00\x01\x02ELF\xff\xfe garbage")
	noSessions := filepath.Join(dir, "nothing")
	writeFile(t, noSessions, "notes.txt", "just notes\n")
	missing := filepath.Join(dir, "no-such-file.jsonl")
	tests := []struct {
		path string
		want string
	}{
		{missing, missing + ": no such file or directory; expected a session file, a session folder or a clai workspace"},
		{empty, empty + ": empty file; expected at least one JSON line or a SQLite database"},
		{blank, blank + ": empty file; expected at least one JSON line or a SQLite database"},
		{binary, binary + ": binary content (NUL bytes or invalid UTF-8 near the start); expected a JSONL transcript, a session.json or a clai data.sqlite"},
		{noSessions, noSessions + ": no sessions found (its one file, " + filepath.Join(noSessions, "notes.txt") + ", is not a session calib reads): expected a smith session folder (transcript.jsonl, session.json), a sessions root (index.json), a clai workspace (.clai/data.sqlite), an opencode storage folder or the session logs of Claude Code, Codex or Gemini CLI"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			ss, err := load.Load([]string{good, tt.path, good}, corpus.Options{})
			if len(ss) != 2 {
				t.Errorf("%d sessions loaded, want the 2 good ones", len(ss))
			}
			var fe *corpus.FileError
			if !errors.As(err, &fe) || fe.Path != tt.path {
				t.Fatalf("error %v, want a *FileError for %s", err, tt.path)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
	_, err := load.Load([]string{noSessions}, corpus.Options{})
	if !errors.Is(err, corpus.ErrNoSessions) {
		t.Errorf("a folder with no sessions: %v does not wrap ErrNoSessions", err)
	}
}

// A folder with no session says what it looked at, so that logs calib did
// not recognise are named.
func TestNoSessionsNamesTheFiles(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	many := filepath.Join(dir, "many")
	for _, name := range []string{"e.txt", "a.jsonl", "d.md", "c.json", "b/x.txt"} {
		writeFile(t, many, name, `{"not":"a session"}`+"\n")
	}
	for _, tt := range []struct{ path, want string }{
		{empty, "it holds no file to read"},
		{many, "none of its 5 files is a session calib reads: " + filepath.Join(many, "a.jsonl") + ", " +
			filepath.Join(many, "b", "x.txt") + ", " + filepath.Join(many, "c.json") + " and 2 more"},
	} {
		_, err := load.Load([]string{tt.path}, corpus.Options{})
		// The last line: a.jsonl's warning (TestWalkNamesJSONLItSkips)
		// comes before it.
		lines := strings.Split(err.Error(), "\n")
		want := tt.path + ": no sessions found (" + tt.want + "): expected"
		if !errors.Is(err, corpus.ErrNoSessions) || !strings.HasPrefix(lines[len(lines)-1], want) {
			t.Errorf("%s:\n got %v\nwant %s...", filepath.Base(tt.path), err, want)
		}
	}
}

// A folder walk skips in silence the files that are no session (notes,
// configuration, an agent's prompt history), but names each .jsonl file it
// cannot read, with why: a
// compressed, empty or foreign log was missing from the report with
// nothing said. The rest of the folder loads; --strict makes them fatal.
func TestWalkNamesJSONLItSkips(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "t.jsonl", `{"role":"user","content":[{"type":"text","text":"hi"}]}`+"\n")
	writeFile(t, dir, "empty.jsonl", "")
	writeFile(t, dir, "packed.jsonl", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03")
	// Archived logs are named by their name before the compression's;
	// other archives in the folder are not logs.
	writeFile(t, dir, "old.jsonl.zst", "\x28\xb5\x2f\xfd\x04\x00\x51\x00\x00\xff")
	writeFile(t, dir, "backup.tar.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03")
	writeFile(t, dir, "other.JSONL", `{"not":"a session"}`+"\n")
	writeFile(t, dir, "notes.txt", "hello\n")
	writeFile(t, dir, "package.json", `{"name":"x"}`+"\n")
	// A .json file named as Gemini CLI names its chats holds one: cut
	// before it can be recognised, it is named; a name near it is not one.
	writeFile(t, dir, "session-2025-09-02T10-00-22222222.json", "{\n  \"sessionId\": \"22222222-2222-4333-844")
	writeFile(t, dir, "session-2025-09-02-10-00-22222222.json", `{"x": 1}`)
	// The agents' prompt histories (the form here is Codex's), never a
	// session.
	writeFile(t, dir, "history.jsonl", `{"session_id":"019b","ts":1766900000,"text":"fix the test"}`+"\n")
	ss, err := load.Load([]string{dir}, corpus.Options{})
	if len(ss) != 1 || ss[0].Path != filepath.Join(dir, "t.jsonl") {
		t.Fatalf("sessions %v, want the one of t.jsonl", ss)
	}
	want := []string{
		filepath.Join(dir, "empty.jsonl") + ": warning: empty file; expected at least one JSON line or a SQLite database; file skipped",
		filepath.Join(dir, "old.jsonl.zst") + ": warning: zstd-compressed; calib reads logs uncompressed: decompress it first (zstd -d FILE, or zstd -dc FILE | calib ... -); file skipped",
		filepath.Join(dir, "other.JSONL") + ": warning: unrecognised content; expected a session log (a smith transcript, or a Claude Code, Codex or Gemini CLI log); file skipped",
		filepath.Join(dir, "packed.jsonl") + ": warning: gzip-compressed; calib reads logs uncompressed: decompress it first (gunzip -k FILE, or gunzip -c FILE | calib ... -); file skipped",
		filepath.Join(dir, "session-2025-09-02T10-00-22222222.json") + ": warning: unrecognised content; expected a session log (a smith transcript, or a Claude Code, Codex or Gemini CLI log); file skipped",
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("error:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	if _, err := load.Load([]string{dir}, corpus.Options{Strict: true}); err == nil || !strings.Contains(err.Error(), "packed.jsonl: gzip-compressed") {
		t.Errorf("--strict: %v, want packed.jsonl's warning as an error", err)
	}
}

func TestStrictMakesWarningsFatal(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "t.jsonl", `{"role":"user","content":[{"type":"text","text":"hi"}]}`+"\nnot json\n"+
		`{"role":"tool","content":[{"type":"tool_result","text":"x","tool_call_id":"c","is_error":false}]}`+"\n")
	ss, err := load.Load([]string{p}, corpus.Options{})
	if err != nil || len(ss) != 1 || len(ss[0].Warnings) != 2 {
		t.Fatalf("lenient: %v, %d sessions", err, len(ss))
	}
	_, err = load.Load([]string{p}, corpus.Options{Strict: true})
	want := p + `:2: not valid JSON (invalid character 'o' in literal null (expecting 'u') at byte 2); expected one JSON object per line (a smith message: {"role":…,"content":[…]}); skipped (a warning, fatal in strict mode; 2 warning(s) in this session)`
	if err == nil || err.Error() != want {
		t.Errorf("strict:\n got %v\nwant %s", err, want)
	}
	// The command line words the option as its flag: it finds the
	// warning's parts in the error, not in its text.
	var fw *corpus.FatalWarning
	if !errors.As(err, &fw) || fw.Count != 2 || !strings.HasPrefix(fw.Message, "not valid JSON") {
		t.Errorf("strict: %#v, want a *corpus.FatalWarning with Count 2", fw)
	}
}

func TestLoadDirectoryOfTranscripts(t *testing.T) {
	dir := t.TempDir()
	line := `{"role":"user","content":[{"type":"text","text":"hi"}]}` + "\n"
	writeFile(t, dir, "b.jsonl", line)
	writeFile(t, dir, "a.jsonl", line+line)
	writeFile(t, dir, "README.md", "# not a session\n")
	writeFile(t, dir, "sub/transcript.jsonl", line)
	// An empty JSON array starts as a smith index.json does, but only
	// index.json is one: "data/x/index.json: no such file" failed the
	// whole folder.
	other := writeFile(t, dir, "data/manual.json", "[]\n")
	// Another tool's index.json is not smith's: the logs beside it are
	// still walked one by one.
	writeFile(t, dir, "docs/index.json", `{"pages":["a","b"]}`+"\n")
	writeFile(t, dir, "docs/c.jsonl", line)
	ss, err := load.Load([]string{dir}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := load.Load([]string{other}, corpus.Options{}); err == nil || !strings.Contains(err.Error(), "manual.json: unrecognised content") {
		t.Errorf("a JSON array given as a PATH: %v, want unrecognised content named", err)
	}
	var got []string
	for _, s := range ss {
		got = append(got, s.ID)
	}
	if strings.Join(got, ",") != "a,b,c,sub" {
		t.Errorf("sessions %v, want a,b,c,sub in name order", got)
	}
}

// writeFile writes content to dir/name, creating folders, and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWarningsInLineOrder: a reader's later pass (a smith transcript's tool
// pairing) warns after its lines did; a session's warnings come in line
// order all the same, as the 20 shown and the github annotations assume.
func TestWarningsInLineOrder(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "t.jsonl", `{"role":"user","content":[{"type":"text","text":"hi"}]}`+"\n"+
		`{"role":"assistant","content":[{"type":"tool_use","tool_call_id":"c1","tool_name":"bash","tool_args":{}}]}`+"\n"+
		`{"role":"tool","content":[{"type":"tool_result","tool_call_id":"c1","text":"ok","is_error":false}]}`+"\n"+
		`{"role":"assistant","content":[{"type":"tool_use","tool_call_id":"c2","tool_name":"bash","tool_args":{}}]}`+"\n"+
		"not json\n"+
		`{"role":"user","content":[{"type":"text","text":"next"}]}`+"\n")
	ss, err := load.Load([]string{p}, corpus.Options{})
	if err != nil || len(ss) != 1 {
		t.Fatalf("%v, %d sessions", err, len(ss))
	}
	var lines []int
	for _, w := range ss[0].Warnings {
		lines = append(lines, w.Line)
	}
	if !slices.IsSorted(lines) || len(lines) < 2 {
		t.Errorf("warnings at lines %v; want two or more, in line order: %v", lines, ss[0].Warnings)
	}
}

// TestSmithFolderByContent: a folder is a smith session folder by what
// its transcript.jsonl or session.json holds, not by their names. Another
// tool's session.json made a folder of logs one smith session of 0
// messages, the logs beside it read by no one; a real smith folder still
// reads only its own two files, and now names the logs beside them. The
// Codex lines are hand-written from the documented rollout shape.
func TestSmithFolderByContent(t *testing.T) {
	dir := t.TempDir()
	rollout := `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"cx1","cwd":"/w","cli_version":"0.77.0","model_provider":"openai"}}` + "\n" +
		`{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}` + "\n"
	writeFile(t, dir, "mixed/session.json", `{"user":"me","theme":"dark"}`+"\n")
	writeFile(t, dir, "mixed/rollout.jsonl", rollout)
	ss, err := load.Load([]string{filepath.Join(dir, "mixed")}, corpus.Options{})
	if err != nil || len(ss) != 1 || ss[0].ID != "cx1" || len(ss[0].Messages) != 1 {
		t.Fatalf("a folder with another tool's session.json: %d sessions (%v), %v; want the rollout's cx1", len(ss), ids(ss), err)
	}

	smithDir := filepath.Join(dir, "s1")
	writeFile(t, dir, "s1/transcript.jsonl", `{"role":"user","content":[{"type":"text","text":"hi"}]}`+"\n")
	writeFile(t, dir, "s1/rollout.jsonl", rollout)
	writeFile(t, dir, "s1/checkpoints/c1.json", "{}\n") // smith's own, not named
	ss, err = load.Load([]string{smithDir}, corpus.Options{})
	if err != nil || len(ss) != 1 || ss[0].ID != "s1" {
		t.Fatalf("a smith folder: %d sessions (%v), %v; want s1 alone", len(ss), ids(ss), err)
	}
	want := "read as a smith session folder (its transcript.jsonl and session.json); 1 other file(s) in it that may hold logs are not read: rollout.jsonl; give them as PATHs, or move them out of the folder"
	if ws := ss[0].Warnings; len(ws) != 1 || ws[0].File != smithDir || ws[0].Message != want {
		t.Errorf("warnings %+v; want %s: %s", ws, smithDir, want)
	}
}

func ids(ss []*corpus.Session) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}
