package opencode_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/cputime"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/opencode"
)

// writeSyntheticDB writes an opencode.db of at least minBytes of row data
// in the shapes opencode writes (no real database is available): sessions
// of 50 turns, each a user prompt and an assistant message of two steps,
// the first with reasoning, text and two read calls returning ~9 KB files,
// the second a closing text, each step ending in step-finish tokens. It
// returns the database's size.
func writeSyntheticDB(tb testing.TB, p string, minBytes int) int {
	tb.Helper()
	db := createDB(tb, p)
	defer db.Close()
	var src strings.Builder
	for i := 1; i <= 160; i++ {
		fmt.Fprintf(&src, "%5d\tfunc handler%d(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, \"ok %%d – ✓\", %d) }\n", i, i, i)
	}
	file, _ := json.Marshal(src.String())
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	size := 0
	t0 := int64(1767600000000)
	msg := func(id, sid string, at int64, data string) {
		size += len(data)
		if _, err := tx.Exec(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, id, sid, at, at, data); err != nil {
			tb.Fatal(err)
		}
	}
	part := func(id, mid, sid string, data string) {
		size += len(data)
		if _, err := tx.Exec(`INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)`, id, mid, sid, data); err != nil {
			tb.Fatal(err)
		}
	}
	tokens := `{"input":1200,"output":80,"reasoning":20,"cache":{"read":90000,"write":300}}`
	for k := 0; size < minBytes; k++ {
		sid := fmt.Sprintf("ses_%06d", k)
		if _, err := tx.Exec(`INSERT INTO session VALUES (?, 'p', NULL, 'slug', '/work/demo', 'Fix the demo', '1.0.200', ?, ?)`, sid, t0, t0); err != nil {
			tb.Fatal(err)
		}
		for turn := 0; turn < 50; turn++ {
			at := t0 + int64(turn)*10000
			u, a := fmt.Sprintf("msg_%06d_%03du", k, turn), fmt.Sprintf("msg_%06d_%03da", k, turn)
			msg(u, sid, at, `{"role":"user","time":{"created":`+fmt.Sprint(at)+`},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}`)
			part(u+"_0", u, sid, fmt.Sprintf(`{"type":"text","text":"Please review handler %d and the file next to it, then fix the failing test."}`, turn))
			msg(a, sid, at+1, `{"role":"assistant","time":{"created":`+fmt.Sprint(at+1)+`,"completed":`+fmt.Sprint(at+9000)+`},"parentID":"`+u+
				`","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/work/demo","root":"/work/demo"},"cost":0.02,"tokens":`+tokens+`,"finish":"stop"}`)
			part(a+"_00", a, sid, `{"type":"step-start","snapshot":"5d41402a"}`)
			part(a+"_01", a, sid, `{"type":"reasoning","text":"Read both files before changing anything.","time":{"start":1,"end":2}}`)
			part(a+"_02", a, sid, `{"type":"text","text":"I'll read the two files first.","time":{"start":2,"end":3}}`)
			for c := 0; c < 2; c++ {
				part(fmt.Sprintf("%s_0%d", a, 3+c), a, sid, fmt.Sprintf(`{"type":"tool","callID":"toolu_%s_%d","tool":"read","state":{"status":"completed","input":{"filePath":"/work/demo/handler%d_%d.go"},"output":%s,"title":"handler.go","metadata":{},"time":{"start":3,"end":4}}}`, a, c, turn, c, file))
			}
			part(a+"_05", a, sid, `{"type":"step-finish","reason":"tool-calls","cost":0.012,"tokens":`+tokens+`}`)
			part(a+"_06", a, sid, `{"type":"step-start"}`)
			part(a+"_07", a, sid, `{"type":"text","text":"The handler writes the status after the body; I moved WriteHeader first and the test passes now."}`)
			part(a+"_08", a, sid, `{"type":"step-finish","reason":"stop","cost":0.008,"tokens":`+tokens+`}`)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	db.Close()
	fi, err := os.Stat(p)
	if err != nil {
		tb.Fatal(err)
	}
	return int(fi.Size())
}

// createDB creates an opencode.db at p with opencode's session, message
// and part tables and their indexes.
func createDB(tb testing.TB, p string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite", p)
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range []string{
		`PRAGMA journal_mode=WAL`,
		`CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL)`,
		`CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)`,
		`CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id)`,
		`CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)`,
		`CREATE INDEX part_message_id_id_idx ON part (message_id, id)`,
	} {
		if _, err := db.Exec(s); err != nil {
			db.Close()
			tb.Fatal(err)
		}
	}
	return db
}

// The generator's output loads with no warnings.
func TestSyntheticDBLoadsClean(t *testing.T) {
	p := filepath.Join(t.TempDir(), "opencode.db")
	writeSyntheticDB(t, p, 1<<20)
	ss, err := load.Load([]string{p}, corpus.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		// Each turn: user, assistant (thinking, text, 2 tool_use), tool, assistant.
		if len(s.Messages) != 50*4 || len(s.Recorded.Usage) != 100 {
			t.Errorf("%s: %d messages, %d usage", s.ID, len(s.Messages), len(s.Recorded.Usage))
		}
	}
}

// BenchmarkLoadOpencode loads a synthetic opencode.db of about 64 MB and
// reports MB/s of database file.
func BenchmarkLoadOpencode(b *testing.B) {
	p := filepath.Join(b.TempDir(), "opencode.db")
	size := writeSyntheticDB(b, p, 64<<20)
	b.SetBytes(int64(size))
	b.ResetTimer()
	cpu0 := cputime.Now()
	for b.Loop() {
		ss, err := opencode.Load(p, corpus.Options{})
		if err != nil || len(ss) == 0 || len(ss[0].Warnings) != 0 {
			b.Fatalf("load: %v", err)
		}
	}
	// The machine is shared: CPU time per byte is the figure that does not
	// depend on what else runs.
	cputime.ReportMBPerCPUSecond(b, float64(size)*float64(b.N), cpu0)
}

// writeManyCompactionsDB writes an opencode.db of one session of n cycles
// 10 s apart, each a prompt, a reply whose one tool part a prune marked
// (5 s later: every prune its own), a compaction request and its summary:
// n prunes and n compactions, in the shapes of testdata/storage.
func writeManyCompactionsDB(tb testing.TB, p string, n int) {
	tb.Helper()
	db := createDB(tb, p)
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	exec := func(q string, args ...any) {
		if _, err := tx.Exec(q, args...); err != nil {
			tb.Fatal(err)
		}
	}
	const sid, t0 = "ses_many", int64(1767600000000)
	exec(`INSERT INTO session VALUES (?, 'p', NULL, 'slug', '/work/demo', 'Many compactions', '1.0.200', ?, ?)`, sid, t0, t0)
	msg := func(id string, at int64, data string) {
		exec(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, id, sid, at, at, data)
	}
	part := func(id, mid, data string) { exec(`INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)`, id, mid, sid, data) }
	tokens := `{"input":1200,"output":80,"reasoning":0,"cache":{"read":9000,"write":300}}`
	for i := range n {
		at := t0 + int64(i)*10000
		u, a, c, s := fmt.Sprintf("msg_%06du", i), fmt.Sprintf("msg_%06dv", i), fmt.Sprintf("msg_%06dw", i), fmt.Sprintf("msg_%06dx", i)
		msg(u, at, fmt.Sprintf(`{"role":"user","time":{"created":%d},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}`, at))
		part(u+"_0", u, fmt.Sprintf(`{"type":"text","text":"Run the tests, round %d."}`, i))
		msg(a, at+1, fmt.Sprintf(`{"role":"assistant","time":{"created":%d,"completed":%d},"parentID":"%s","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/work/demo","root":"/work/demo"},"cost":0.02,"tokens":%s,"finish":"stop"}`, at+1, at+900, u, tokens))
		part(a+"_0", a, `{"type":"step-start"}`)
		part(a+"_1", a, fmt.Sprintf(`{"type":"tool","callID":"toolu_%06d","tool":"bash","state":{"status":"completed","input":{"command":"go test ./..."},"output":"ok  demo %d","title":"go test","metadata":{},"time":{"start":%d,"end":%d,"compacted":%d}}}`, i, i, at+2, at+3, at+5000))
		part(a+"_2", a, `{"type":"step-finish","reason":"stop","tokens":`+tokens+`}`)
		msg(c, at+6000, fmt.Sprintf(`{"role":"user","time":{"created":%d},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}`, at+6000))
		part(c+"_0", c, `{"type":"compaction","auto":true}`)
		msg(s, at+7000, fmt.Sprintf(`{"role":"assistant","time":{"created":%d,"completed":%d},"parentID":"%s","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"compaction","agent":"compaction","path":{"cwd":"/work/demo","root":"/work/demo"},"cost":0.02,"tokens":%s,"finish":"stop","summary":true}`, at+7000, at+7900, c, tokens))
		part(s+"_0", s, fmt.Sprintf(`{"type":"text","text":"Summary %d: the tests pass."}`, i))
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkLoadOpencodeManyCompactions loads one session of n prunes and
// n compactions. Placing each prune read the messages from the start, and
// each compaction's window the compactions before it; ns per cycle stays
// flat when neither does.
//
//	go test ./corpus/opencode -run '^$' -bench BenchmarkLoadOpencodeManyCompactions -benchtime 3x
func BenchmarkLoadOpencodeManyCompactions(b *testing.B) {
	for _, n := range []int{2_000, 4_000, 8_000} {
		p := filepath.Join(b.TempDir(), "opencode.db")
		writeManyCompactionsDB(b, p, n)
		b.Run(fmt.Sprintf("cycles=%d", n), func(b *testing.B) {
			for b.Loop() {
				ss, err := opencode.Load(p, corpus.Options{})
				if err != nil || len(ss) != 1 || len(ss[0].Warnings) != 0 || len(ss[0].Recorded.Compactions) != 2*n {
					b.Fatalf("load: %v, %d sessions", err, len(ss))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/cycle")
		})
	}
}
