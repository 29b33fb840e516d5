package opencode_test

import (
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/opencode"
	_ "modernc.org/sqlite"
)

// No real opencode session is available to this project (see
// shared/corpus-real/SOURCES.md). testdata/storage was written by hand from
// the documented shapes: anomalyco/opencode
// packages/opencode/src/session/message-v2.ts at commit
// 007a9409bafea06d6b9084ff1f6d1fe9f5e3a803 (messages, parts, tool states,
// step-finish tokens, toModelMessages), session/session.sql.ts at commit
// 063e8306d9895af9bdd175306cfa4fa3291fd83a (the session, message and part
// tables) and session/compaction.ts (summary messages, pruned tool parts).
// The databases the tests use are built from those files. They contain no
// user's session.

const storage = "testdata/storage"

// shape renders messages as role@id[kinds], * for synthetic, S for summary.
func shape(s *corpus.Session) []string {
	var out []string
	for _, m := range s.Messages {
		var kinds []string
		for _, b := range m.Blocks {
			kinds = append(kinds, string(b.Kind))
		}
		flag := ""
		if m.Synthetic {
			flag += "*"
		}
		if m.Summary {
			flag += "S"
		}
		out = append(out, fmt.Sprintf("%s%s@%s[%s]", m.Role, flag, m.ID, strings.Join(kinds, ",")))
	}
	return out
}

var wantShape = []string{
	"user@msg_0001[text,text]",
	"assistant@msg_0002[thinking,text,tool_use]", "tool@msg_0002/results[tool_result]",
	"assistant@msg_0002/step2[tool_use]", "tool@msg_0002/step2/results[tool_result]",
	"assistant@msg_0002/step3[text]",
	"user*@msg_0003[text]", "assistantS@msg_0004[text]",
	"user@msg_0005[text,image]",
	"assistant@msg_0007[text]",
}

func compactions(s *corpus.Session) []string {
	var out []string
	for _, c := range s.Recorded.Compactions {
		out = append(out, fmt.Sprintf("%d %s %s/%s at %d summary=%s %q cleared=%v", c.Index, c.Strategy, c.Trigger, c.Status, c.AtMessage, c.SummaryID,
			c.Summary, c.ClearedIDs))
	}
	return out
}

var wantCompactions = []string{
	`0 compaction auto/completed at 6 summary=msg_0004 "## Goal\nFix the failing demo test.\n## Accomplished\nFound that Demo() returns 1." cleared=[]`,
	`1 prune auto/completed at 8 summary= "" cleared=[toolu_01]`,
}

func usage(s *corpus.Session) []string {
	var out []string
	for _, u := range s.Recorded.Usage {
		out = append(out, fmt.Sprintf("@%d in=%d read=%d write=%d out=%d reason=%d cost=%.4f", u.AtMessage, u.InputTokens, u.CacheReadTokens,
			u.CacheWriteTokens, u.OutputTokens, u.ReasoningTokens, u.Cost))
	}
	return out
}

var wantUsage = []string{
	"@1 in=1200 read=9000 write=300 out=80 reason=20 cost=0.0121",
	"@3 in=150 read=10300 write=0 out=40 reason=0 cost=0.0040",
	"@5 in=100 read=10500 write=0 out=30 reason=0 cost=0.0030",
	"@7 in=11000 read=0 write=11000 out=60 reason=0 cost=0.0200",
	"@9 in=900 read=1200 write=0 out=25 reason=0 cost=0.0050",
}

// checkSession checks everything both layouts must give for the fixture.
func checkSession(t *testing.T, s *corpus.Session) {
	t.Helper()
	if s.ID != "ses_01jgdemo0000000000000000" || s.Format != corpus.FormatOpencode || s.Meta.Title != "Fix the demo test" ||
		s.Meta.AgentVersion != "1.0.200" || s.Meta.Cwd != "/work/demo" || s.Meta.Model != "claude-sonnet-4-5" || s.Meta.Provider != "anthropic" ||
		s.Meta.CreatedAt.UnixMilli() != 1767600000000 {
		t.Errorf("session %s meta %+v", s.ID, s.Meta)
	}
	if got := shape(s); !slices.Equal(got, wantShape) {
		t.Errorf("messages:\n got %v\nwant %v", got, wantShape)
	}
	if got := compactions(s); !slices.Equal(got, wantCompactions) {
		t.Errorf("compactions:\n got %q\nwant %q", got, wantCompactions)
	}
	if got := usage(s); !slices.Equal(got, wantUsage) {
		t.Errorf("usage:\n got %q\nwant %q", got, wantUsage)
	}
	if c := s.Recorded.Compactions[0]; c.SourceFrom != "msg_0001" || c.SourceTo != "msg_0002/step3" || c.InputMessages != 6 {
		t.Errorf("summarized window %s..%s (%d messages), want msg_0001..msg_0002/step3 (6)", c.SourceFrom, c.SourceTo, c.InputMessages)
	}
	a := s.Messages[1].Blocks[2]
	// The storage files (and this test's database, built from them) are
	// indented; the args are kept as the model was sent them, compact.
	if a.ToolCallID != "toolu_01" || a.ToolName != "bash" || string(a.Args) != `{"command":"go test ./pkg/demo","description":"Run tests"}` {
		t.Errorf("tool_use %+v (args %s)", a, a.Args)
	}
	// The pruned output keeps its text: opencode does not rewrite it.
	if r := s.Messages[2].Blocks[0]; r.Text != "--- FAIL: TestDemo\nFAIL demo" || r.IsError {
		t.Errorf("result %+v", r)
	}
	if r := s.Messages[4].Blocks[0]; r.ToolCallID != "toolu_02" || !r.IsError || r.Text != "File not found: /work/demo/pkg/demo/demo_test.go" {
		t.Errorf("error result %+v", r)
	}
	if img := s.Messages[8].Blocks[1]; img.MediaType != "image/png" || img.Source != "base64" || img.MediaRef != corpus.MediaHash("iVBORw0KGgo=") {
		t.Errorf("image %+v", img)
	}
}

// TestStorage: the storage folder, a session file and the folder above
// storage all load the fixture session, with no warnings.
func TestStorage(t *testing.T) {
	sessionFile := filepath.Join(storage, "session", "4b825dc642cb6eb9a060e54bf8d69288fbee4904", "ses_01jgdemo0000000000000000.json")
	for _, p := range []string{storage, sessionFile, "testdata"} {
		ss, err := load.Load([]string{p}, corpus.Options{Strict: true})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(ss) != 1 {
			t.Fatalf("%s: %d sessions", p, len(ss))
		}
		checkSession(t, ss[0])
		if ss[0].Path != sessionFile {
			t.Errorf("%s: session path %s, want its session file", p, ss[0].Path)
		}
	}
}

// buildDB writes an opencode.db with the tables of session.sql.ts (the
// columns calib reads, plus their neighbours) holding the storage fixture:
// each row's data is the storage file's JSON (opencode leaves the ids out
// of data; calib takes them from the row).
func buildDB(t *testing.T, p string, extra ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{
		`PRAGMA journal_mode=WAL`,
		`CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL)`,
		`CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL,
			title text NOT NULL, version text NOT NULL, share_url text, cost real NOT NULL DEFAULT 0, time_created integer NOT NULL,
			time_updated integer NOT NULL, time_compacting integer, time_archived integer)`,
		`CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)`,
		`CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)`,
		`INSERT INTO session VALUES ('ses_01jgdemo0000000000000000', '4b825dc642cb6eb9a060e54bf8d69288fbee4904', NULL, 'brave-otter', '/work/demo',
			'Fix the demo test', '1.0.200', NULL, 0.0632, 1767600000000, 1767600009500, NULL, NULL)`,
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	msgs, _ := filepath.Glob(filepath.Join(storage, "message", "*", "*.json"))
	for i, mf := range msgs {
		id := strings.TrimSuffix(filepath.Base(mf), ".json")
		data, _ := os.ReadFile(mf)
		// Insert in reverse so rowid order is not history order: calib
		// orders by time_created then id, as opencode does.
		if _, err := db.Exec(`INSERT INTO message VALUES (?, 'ses_01jgdemo0000000000000000', ?, ?, ?)`, id, 1767600001000+int64(i)*1000, 0, string(data)); err != nil {
			t.Fatal(err)
		}
		parts, _ := filepath.Glob(filepath.Join(storage, "part", id, "*.json"))
		for _, pf := range parts {
			pdata, _ := os.ReadFile(pf)
			if _, err := db.Exec(`INSERT INTO part VALUES (?, ?, 'ses_01jgdemo0000000000000000', 0, 0, ?)`, strings.TrimSuffix(filepath.Base(pf), ".json"), id, string(pdata)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, s := range extra {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func hashFiles(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = sha256.Sum256(b)
	}
	return out
}

// TestDatabase: the same session read from opencode.db gives the same
// history, compactions and usage as from storage; the database is
// recognised by its tables, and the folder it sits in is left
// byte-identical (no -wal or -shm is created).
func TestDatabase(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "opencode.db")
	buildDB(t, p)
	before := hashFiles(t, dir)
	ss, err := load.Load([]string{p}, corpus.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 {
		t.Fatalf("%d sessions", len(ss))
	}
	checkSession(t, ss[0])
	// Warnings and compactions point at rows: the summary message's rowid.
	if c := ss[0].Recorded.Compactions[0]; c.Line != 4 {
		t.Errorf("summary compaction at row %d, want 4 (msg_0004)", c.Line)
	}
	if after := hashFiles(t, dir); !maps(before, after) {
		t.Errorf("the folder changed: before %d files, after %d", len(before), len(after))
	}
}

// TestDatabaseStepLines: in the database, each message is a row, and the
// requests calib makes of one message's steps (with their results) all
// point at that row: lines are not unique, so a request is found by its
// line and id (policy's recordedUsageAt relies on both).
func TestDatabaseStepLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "opencode.db")
	buildDB(t, p)
	ss, err := load.Load([]string{p}, corpus.Options{Strict: true})
	if err != nil || len(ss) != 1 {
		t.Fatalf("load: %v, %d sessions", err, len(ss))
	}
	var got []string
	for _, m := range ss[0].Messages {
		got = append(got, fmt.Sprintf("%s@%d", m.ID, m.Line))
	}
	want := []string{"msg_0001@1", "msg_0002@2", "msg_0002/results@2", "msg_0002/step2@2", "msg_0002/step2/results@2",
		"msg_0002/step3@2", "msg_0003@3", "msg_0004@4", "msg_0005@5", "msg_0007@7"}
	if !slices.Equal(got, want) {
		t.Errorf("lines:\n got %q\nwant %q", got, want)
	}
}

// TestCompactionTail: a compaction request that keeps a tail verbatim
// (tail_start_id, newer builds) summarized only the messages before it.
func TestCompactionTail(t *testing.T) {
	p := filepath.Join(t.TempDir(), "opencode.db")
	buildDB(t, p, `UPDATE part SET data = json_set(data, '$.tail_start_id', 'msg_0002') WHERE id = 'prt_0003_00'`)
	ss, err := load.Load([]string{p}, corpus.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	c := ss[0].Recorded.Compactions[0]
	if c.Strategy != "compaction" || c.AtMessage != 6 || c.SourceFrom != "msg_0001" || c.SourceTo != "msg_0001" || c.InputMessages != 1 {
		t.Errorf("compaction %+v, want the window msg_0001 alone", c)
	}
}

func maps(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestDatabaseBadInput: damaged rows are skipped with a warning naming the
// table, the row and what was expected; everything else loads.
func TestDatabaseBadInput(t *testing.T) {
	p := filepath.Join(t.TempDir(), "opencode.db")
	buildDB(t, p,
		`INSERT INTO message VALUES ('msg_0008', 'ses_01jgdemo0000000000000000', 1767600020000, 0, '{"role":"assistant","time":{"created":1767600020000}')`,
		`INSERT INTO message VALUES ('msg_0009', 'ses_gone', 1767600020000, 0, '{"role":"user"}')`,
		`INSERT INTO message VALUES ('msg_0010', 'ses_01jgdemo0000000000000000', 1767600021000, 0, '{"role":"system","time":{"created":1}}')`,
		`INSERT INTO message VALUES ('msg_0011', 'ses_01jgdemo0000000000000000', 1767600022000, 0, '{"time":{"created":1}}')`,
		`INSERT INTO message VALUES ('msg_0012', 'ses_01jgdemo0000000000000000', 1767600023000, 0,
			'{"role":"assistant","time":{"created":1767600023000},"modelID":"m","providerID":"p","cost":0,"tokens":{"input":5,"output":1,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}')`,
		`INSERT INTO part VALUES ('prt_x1', 'msg_0012', 's', 0, 0, '{"type":"tool","tool":"bash","state":{"status":"completed","input":{},"output":"x"}}')`,
		`INSERT INTO part VALUES ('prt_x2', 'msg_0012', 's', 0, 0, '{"type":"tool","callID":"c9","tool":"skill","state":{"status":"running","input":{"name":"x"},"time":{"start":1}}}')`,
		`INSERT INTO part VALUES ('prt_x3', 'msg_0012', 's', 0, 0, '{"type":"hologram","text":"?"}')`,
		`INSERT INTO part VALUES ('prt_x4', 'msg_0012', 's', 0, 0, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":5,"output":-1,"reasoning":0,"cache":{"read":0,"write":0}}}')`,
		`INSERT INTO part VALUES ('prt_x5', 'msg_0012', 's', 0, 0, '{"type":"text","text":5}')`,
		`INSERT INTO part VALUES ('prt_x6', 'msg_missing', 's', 0, 0, '{"type":"text","text":"orphan"}')`,
		// A time or token count of another type costs the field, not the
		// message or the part (a message skipped took its parts with it).
		`INSERT INTO message VALUES ('msg_0013', 'ses_01jgdemo0000000000000000', 1767600024000, 0,
			'{"role":"assistant","time":"yesterday","modelID":"m","providerID":"p","cost":"free","tokens":{"input":"many","output":1,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}')`,
		`INSERT INTO part VALUES ('prt_x7', 'msg_0013', 's', 0, 0, '{"type":"text","text":"kept"}')`,
		`INSERT INTO part VALUES ('prt_x8', 'msg_0013', 's', 0, 0, '{"type":"tool","callID":"c10","tool":"bash","state":{"status":"completed","input":{"command":"ls"},"output":"a","time":{"start":"soon","end":2}}}')`,
		// An input that is not an object is kept, and said: no path or
		// command can be read from it for the loss signals.
		`INSERT INTO part VALUES ('prt_x9', 'msg_0013', 's', 0, 0, '{"type":"tool","callID":"c11","tool":"read","state":{"status":"completed","input":"a.go","output":"b"}}')`,
	)
	ss, err := load.Load([]string{p}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	want := append(slices.Clone(wantShape), "assistant@msg_0012[tool_use]", "tool@msg_0012/results[tool_result]",
		"assistant@msg_0013[text,tool_use,tool_use]", "tool@msg_0013/results[tool_result,tool_result]")
	if got := shape(s); !slices.Equal(got, want) {
		t.Errorf("messages:\n got %v\nwant %v", got, want)
	}
	var got []string
	for _, w := range s.Warnings {
		if w.File != p {
			t.Errorf("warning names %s, want %s", w.File, p)
		}
		got = append(got, fmt.Sprintf("%d: %s", w.Line, w.Message))
	}
	wantW := []string{
		"8: message msg_0008 (table message, row 8): data is not valid JSON (unexpected end of JSON input); message skipped",
		`9: message msg_0009 (table message, row 9) belongs to session "ses_gone", which is not in the session table; message skipped`,
		"10: unknown message role system (1 occurrence(s), first at this line) skipped; the log may come from a newer opencode",
		"11: message msg_0011 (table message, row 11) has no role (expected user or assistant); message skipped",
		"13: message msg_0013 (table message, row 13): time is a JSON string, not what opencode writes; read without it",
		"13: message msg_0013 (table message, row 13): cost is a JSON string, not what opencode writes; read without it",
		"13: message msg_0013 (table message, row 13): tokens.input is a JSON string, not what opencode writes; read without it",
		"13: message msg_0013 (table message, row 13) tokens has no input (expected a token count); the request's usage is ignored",
		"25: part prt_x1 (table part, row 25): tool part has no callID, so its result cannot be paired; part skipped",
		`26: part prt_x2 (table part, row 26): tool call c9 (skill) was still running when the session was saved; opencode sends "[Tool execution was interrupted]" as its error result`,
		"27: unknown part type hologram (1 occurrence(s), first at this line) skipped; the log may come from a newer opencode",
		"28: step-finish part prt_x4 (table part, row 28) tokens output is -1 (expected a count ≥ 0); the request's usage is ignored",
		"29: part prt_x5 (table part, row 29): text is a JSON number, not what opencode writes; part skipped",
		`30: part prt_x6 (table part, row 30) belongs to message "msg_missing", which is not in the message table (or was skipped); part skipped`,
		"32: part prt_x8 (table part, row 32): state.time.start is a JSON string, not what opencode writes; read without it",
		`33: part prt_x9 (table part, row 33): tool call c11 (read) input is "a.go", not an object; kept as recorded, but no path, command or URL is read from it`,
	}
	if !slices.Equal(got, wantW) {
		t.Errorf("warnings:\n got %q\nwant %q", got, wantW)
	}
}

// TestDatabaseSessionIDTwice: a session table rebuilt without its
// PRIMARY KEY (a hand repair, an export) can hold an id twice. The second
// row is named and skipped, and the session loads once; both were built
// from the id's rows, and the second was then reported as "reached by two
// of the PATHs given".
func TestDatabaseSessionIDTwice(t *testing.T) {
	p := filepath.Join(t.TempDir(), "opencode.db")
	buildDB(t, p,
		"CREATE TABLE s2 AS SELECT * FROM session", "INSERT INTO s2 SELECT * FROM session",
		"DROP TABLE session", "ALTER TABLE s2 RENAME TO session")
	ss, err := load.Load([]string{p}, corpus.Options{})
	if err != nil || len(ss) != 1 {
		t.Fatalf("%d sessions, %v; want 1", len(ss), err)
	}
	if got := shape(ss[0]); !slices.Equal(got, wantShape) {
		t.Errorf("messages:\n got %v\nwant %v", got, wantShape)
	}
	want := "session (table session, row 2): id ses_01jgdemo0000000000000000 is another row's too; expected unique session ids (opencode's PRIMARY KEY); row skipped, the session loads once"
	if len(ss[0].Warnings) != 1 || ss[0].Warnings[0].Message != want || ss[0].Warnings[0].Line != 2 {
		t.Errorf("warnings %+v; want row 2: %s", ss[0].Warnings, want)
	}
}

// TestNotOpencode: a SQLite file without opencode's tables is refused by
// the opencode reader with what it lacks, and is not taken for opencode by
// the loader (which hands it to the clai reader, that says what it lacks).
func TestNotOpencode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`CREATE TABLE session (id text, title text)`, `CREATE TABLE notes (body text)`, `INSERT INTO notes VALUES ('x')`} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if opencode.IsDatabase(p) {
		t.Error("IsDatabase = true for a database without message and part tables")
	}
	_, err = opencode.Load(p, corpus.Options{})
	want := p + ": not an opencode database: it has no session.directory, session.version, session.time_created, session.time_updated, table message, table part; expected opencode's opencode.db (tables session, message and part)"
	if err == nil || err.Error() != want {
		t.Errorf("opencode.Load error:\n got %v\nwant %s", err, want)
	}
	_, err = load.Load([]string{p}, corpus.Options{})
	if err == nil || !strings.Contains(err.Error(), "clai") {
		t.Errorf("load.Load error %v, want the clai reader's refusal", err)
	}
}

// TestStorageBadInput: a damaged message or part file is skipped with a
// warning naming the file and line; a damaged session file fails that
// session alone.
func TestStorageBadInput(t *testing.T) {
	root := filepath.Join(t.TempDir(), "storage")
	if err := os.CopyFS(root, os.DirFS(storage)); err != nil {
		t.Fatal(err)
	}
	write := func(rel, content string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badMsg := write("message/ses_01jgdemo0000000000000000/msg_0008.json", "{\n  \"id\": \"msg_0008\",\n  \"role\": \"assistant\",\n  \"time\": {\n")
	badPart := write("part/msg_0007/prt_0007_01.json", "{\n  \"type\": \"text\",\n  \"text\": \"a\" \"b\"\n}")
	badSession := write("session/p2/ses_02broken.json", "{\n  \"id\": \"ses_02broken\",\n  \"projectID\": \"p2\",\n  \"title\": 5,\n")
	// A time of another type: the message loads without it, and the
	// warning points at the line in the file.
	timeMsg := filepath.Join(root, "message/ses_01jgdemo0000000000000000/msg_0004.json")
	data, err := os.ReadFile(timeMsg)
	if err != nil {
		t.Fatal(err)
	}
	write("message/ses_01jgdemo0000000000000000/msg_0004.json", strings.Replace(string(data), `"created": 1767600007100`, `"created": "noon"`, 1))
	ss, err := load.Load([]string{root}, corpus.Options{})
	if err == nil || !strings.Contains(err.Error(), badSession+":4: expected an opencode session") {
		t.Errorf("error %v, want one naming %s line 5", err, badSession)
	}
	if len(ss) != 1 {
		t.Fatalf("%d sessions, want the intact one", len(ss))
	}
	if got := shape(ss[0]); !slices.Equal(got, wantShape) {
		t.Errorf("messages:\n got %v\nwant %v", got, wantShape)
	}
	var got []string
	for _, w := range ss[0].Warnings {
		got = append(got, fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Message))
	}
	wantW := []string{
		badPart + ":3: part prt_0007_01: data is not valid JSON (invalid character '\"' after object key:value pair); part skipped",
		badMsg + ":4: message msg_0008: data is not valid JSON (unexpected end of JSON input); message skipped",
		timeMsg + ":6: message msg_0004: time.created is a JSON string, not what opencode writes; read without it",
	}
	slices.Sort(got)
	slices.Sort(wantW)
	if !slices.Equal(got, wantW) {
		t.Errorf("warnings:\n got %q\nwant %q", got, wantW)
	}
}

// TestDatabaseOnStdin: a database cannot be read from standard input; the
// error asks for its path.
func TestDatabaseOnStdin(t *testing.T) {
	p := filepath.Join(t.TempDir(), "opencode.db")
	buildDB(t, p)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = load.Load([]string{"-"}, corpus.Options{Stdin: f})
	if err == nil || !strings.Contains(err.Error(), "which is read only from a path; pass its path instead of -") {
		t.Errorf("error %v", err)
	}
}

// TestStorageDamageIsNamed: what a damaged storage folder loses is named.
// Its first session file cut mid-write (the folder was once judged by that
// file alone, walked as a plain folder, and the file skipped in silence);
// messages whose session has no file; a folder where a message file was
// expected.
func TestStorageDamageIsNamed(t *testing.T) {
	root := filepath.Join(t.TempDir(), "storage")
	if err := os.CopyFS(root, os.DirFS(storage)); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(root, "session/4b825dc642cb6eb9a060e54bf8d69288fbee4904/ses_01jgdemo0000000000000000.json")
	data, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(root, "session/p9/ses_09second.json")
	for p, content := range map[string]string{
		first:  string(data[:60]),
		second: strings.Replace(string(data), "ses_01jgdemo0000000000000000", "ses_09second", 1),
		filepath.Join(root, "message/ses_gone/msg_0001.json"): `{"id": "msg_0001", "sessionID": "ses_gone", "role": "user"}`,
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dirMsg := filepath.Join(root, "message/ses_09second/msg_0009.json")
	if err := os.MkdirAll(dirMsg, 0o755); err != nil {
		t.Fatal(err)
	}
	ss, err := load.Load([]string{root}, corpus.Options{})
	if len(ss) != 1 || ss[0].ID != "ses_09second" {
		t.Fatalf("%d sessions; want ses_09second alone", len(ss))
	}
	var got []string
	for _, e := range strings.Split(err.Error(), "\n") {
		got = append(got, strings.TrimPrefix(e, root+"/"))
	}
	for _, w := range ss[0].Warnings {
		got = append(got, strings.TrimPrefix(w.File, root+"/")+": "+w.Message)
	}
	want := []string{
		"session/4b825dc642cb6eb9a060e54bf8d69288fbee4904/ses_01jgdemo0000000000000000.json:3: expected an opencode session (a JSON object with id, projectID, directory, title): unexpected end of JSON input",
		"message/ses_gone: warning: messages of session ses_gone, which has no session/<project>/ses_gone.json file; skipped",
		"message/ses_09second/msg_0009.json: a folder where a message or part file was expected; skipped",
		"session/p9/ses_09second.json: session ses_09second has no messages opencode would send",
	}
	if !slices.Equal(got, want) {
		t.Errorf("errors and warnings:\n got %q\nwant %q", got, want)
	}
}
