package claudecode_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/claudecode"
	"github.com/calib-dev/calib/corpus/internal/cputime"
	"github.com/calib-dev/calib/corpus/load"
)

// writeSyntheticClaudeCode writes a Claude Code 2.1.x log of at least
// minBytes made of the line shapes the real logs have: a user prompt, an
// API response split over a text line and parallel tool_use lines (same
// message.id), tool_result lines in completion order whose toolUseResult
// repeats the file content (as real Read results do), progress and
// file-history-snapshot lines, turn_duration and, now and then, a
// microcompact_boundary. It returns the size written.
func writeSyntheticClaudeCode(tb testing.TB, p string, minBytes int) int {
	tb.Helper()
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	head := `"isSidechain":false,"userType":"external","cwd":"/Users/dev/Projects/demo","sessionId":"5e55b0a1-0000-4000-8000-000000000001","version":"2.1.20","gitBranch":"main"`
	// A source file as Read shows it: numbered lines, tabs, quotes, a few
	// non-ASCII characters, about 9 KB.
	var src strings.Builder
	for i := 1; i <= 160; i++ {
		fmt.Fprintf(&src, "%6d→\tfunc handler%d(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, \"ok %%d – ✓\", %d) }\n", i, i, i)
	}
	file, _ := json.Marshal(src.String())
	size, n, turn := 0, 0, 0
	var cleared []string
	emit := func(format string, args ...any) {
		k, _ := fmt.Fprintf(w, format, args...)
		size += k
		w.WriteByte('\n')
		size++
	}
	parent := "null"
	next := func() string {
		n++
		u := fmt.Sprintf("%08x-1111-4222-8333-%012x", n, n)
		return u
	}
	for size < minBytes {
		turn++
		emit(`{"type":"file-history-snapshot","messageId":"m%d","snapshot":{"messageId":"m%d","trackedFileBackups":{},"timestamp":"2026-01-28T20:56:10.594Z"},"isSnapshotUpdate":false}`, turn, turn)
		u := next()
		emit(`{"parentUuid":%s,%s,"type":"user","message":{"role":"user","content":"Please review handler %d and the two files next to it, then fix the failing test."},"uuid":"%s","timestamp":"2026-01-28T20:56:15.150Z"}`, parent, head, turn, u)
		parent = `"` + u + `"`
		mid := fmt.Sprintf("msg_01SYNTH%08d", turn)
		a := next()
		emit(`{"parentUuid":%s,%s,"message":{"model":"claude-opus-4-5-20251101","id":"%s","type":"message","role":"assistant","content":[{"type":"text","text":"I'll read the three files in parallel to understand the handler before changing it."}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"cache_creation_input_tokens":2153,"cache_read_input_tokens":115355,"output_tokens":8,"service_tier":"standard"}},"requestId":"req_011CXaSk3LEmeg3T4CrT52r5","type":"assistant","uuid":"%s","timestamp":"2026-01-28T20:56:58.437Z"}`, parent, head, mid, a)
		parent = `"` + a + `"`
		var uses, owners []string
		for k := 0; k < 3; k++ {
			id := fmt.Sprintf("toolu_01SYN%06d%d", turn, k)
			a := next()
			emit(`{"parentUuid":%s,%s,"message":{"model":"claude-opus-4-5-20251101","id":"%s","type":"message","role":"assistant","content":[{"type":"tool_use","id":"%s","name":"Read","input":{"file_path":"/Users/dev/Projects/demo/handler%d_%d.go"}}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"cache_creation_input_tokens":2153,"cache_read_input_tokens":115355,"output_tokens":8,"service_tier":"standard"}},"requestId":"req_011CXaSk3LEmeg3T4CrT52r5","type":"assistant","uuid":"%s","timestamp":"2026-01-28T20:56:59.437Z"}`, parent, head, mid, id, turn, k, a)
			parent = `"` + a + `"`
			uses = append(uses, id)
			owners = append(owners, a)
		}
		for _, k := range []int{2, 0, 1} { // completion order
			r := next()
			emit(`{"parentUuid":"%s",%s,"type":"user","message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":%s}]},"uuid":"%s","timestamp":"2026-01-28T20:57:05.327Z","toolUseResult":{"type":"text","file":{"filePath":"/Users/dev/Projects/demo/handler%d_%d.go","content":%s,"numLines":160,"startLine":1,"totalLines":160}},"sourceToolAssistantUUID":"%s"}`, owners[k], head, uses[k], file, r, turn, k, file, owners[k])
			parent = `"` + r + `"`
			emit(`{"parentUuid":%s,%s,"type":"progress","data":{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Read"},"toolUseID":"%s","uuid":"%s","timestamp":"2026-01-28T20:57:05.400Z"}`, parent, head, uses[k], next())
		}
		cleared = append(cleared, uses...)
		if turn%20 == 0 {
			ids, _ := json.Marshal(cleared[:len(cleared)-15])
			b := next()
			emit(`{"parentUuid":%s,%s,"type":"system","subtype":"microcompact_boundary","content":"Context microcompacted","isMeta":false,"timestamp":"2026-01-28T20:57:33.878Z","uuid":"%s","level":"info","microcompactMetadata":{"trigger":"auto","preTokens":71221,"tokensSaved":40455,"compactedToolIds":%s,"clearedAttachmentUUIDs":[]}}`, parent, head, b, ids)
			parent = `"` + b + `"`
			cleared = cleared[len(cleared)-15:]
		}
		a = next()
		emit(`{"parentUuid":%s,%s,"message":{"model":"claude-opus-4-5-20251101","id":"msg_01SYNTHEND%06d","type":"message","role":"assistant","content":[{"type":"text","text":"The handler writes the status after the body; I moved WriteHeader first and the test passes now."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"cache_creation_input_tokens":9000,"cache_read_input_tokens":120000,"output_tokens":60,"service_tier":"standard"}},"requestId":"req_011CXaSmyA2DNYBJ7m3nfrCo","type":"assistant","uuid":"%s","timestamp":"2026-01-28T20:57:40.000Z"}`, parent, head, turn, a)
		parent = `"` + a + `"`
		emit(`{"parentUuid":%s,%s,"type":"system","subtype":"turn_duration","durationMs":39094,"timestamp":"2026-01-28T20:57:41.000Z","uuid":"%s","isMeta":false}`, parent, head, next())
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return size
}

// The generator's output loads with no warnings: every shape it writes is
// one the reader knows.
func TestSyntheticClaudeCodeLoadsClean(t *testing.T) {
	p := filepath.Join(t.TempDir(), "synthetic.jsonl")
	writeSyntheticClaudeCode(t, p, 200<<10)
	ss, err := load.Load([]string{p}, corpus.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	c := countSession(ss[0])
	// Each turn: user, assistant (text + 3 tool_use), tool (3 results), assistant.
	if c.Messages%4 != 0 || c.ToolUses != 3*c.Messages/4 || c.Results != c.ToolUses || c.Tool != c.Messages/4 {
		t.Errorf("counts %+v", c)
	}
}

// BenchmarkLoadClaudeCode loads a synthetic log of 64 MB and reports MB/s.
func BenchmarkLoadClaudeCode(b *testing.B) {
	p := filepath.Join(b.TempDir(), "synthetic.jsonl")
	size := writeSyntheticClaudeCode(b, p, 64<<20)
	b.SetBytes(int64(size))
	b.ResetTimer()
	for b.Loop() {
		ss, err := claudecode.Load(p, corpus.Options{})
		if err != nil || len(ss) != 1 || len(ss[0].Warnings) != 0 {
			b.Fatalf("load: %v (%d sessions)", err, len(ss))
		}
	}
}

// BenchmarkLoadClaudeCodeReal loads the five real logs of corpus-real
// (7.8 MB, versions 1.0.53 and 2.1.x) with what lies beside them: two
// have a tool-results folder (17 persisted outputs, 0.5 MB more to read,
// not counted in MB/s).
func BenchmarkLoadClaudeCodeReal(b *testing.B) {
	benchLoadReal(b, realLogs(b))
}

// BenchmarkLoadClaudeCodeRealAlone loads the same five logs copied alone
// into a folder: the bytes the reader before the corpus split read (it
// had no persisted outputs), so its MB/s compares like for like.
func BenchmarkLoadClaudeCodeRealAlone(b *testing.B) {
	dir := b.TempDir()
	var files []string
	for _, p := range realLogs(b) {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		q := filepath.Join(dir, filepath.Base(p))
		if err := os.WriteFile(q, data, 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, q)
	}
	benchLoadReal(b, files)
}

// realLogs are the Claude Code logs at the top of corpus-real.
func realLogs(b *testing.B) []string {
	files, _ := filepath.Glob(filepath.Join(realCorpus, "claude-code", "*.jsonl"))
	if len(files) == 0 {
		b.Skipf("real corpus not found at %s", realCorpus)
	}
	return files
}

// benchLoadReal loads files each iteration; MB/s and MB/cpu-s count
// their bytes.
func benchLoadReal(b *testing.B, files []string) {
	var size int64
	for _, p := range files {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		size += fi.Size()
	}
	b.SetBytes(size)
	cpu0 := cputime.Now()
	for b.Loop() {
		for _, p := range files {
			if _, err := claudecode.Load(p, corpus.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	cputime.ReportMBPerCPUSecond(b, float64(size)*float64(b.N), cpu0)
}

// BenchmarkLoadStrayOutputs loads a small log whose tool-results folder
// holds 200 outputs of calls it does not have, beside a 4 MB subagent log:
// each stray is looked for in the subagent logs, which are read once for
// all of them (read once per stray, the load read 800 MB).
func BenchmarkLoadStrayOutputs(b *testing.B) {
	dir := b.TempDir()
	w := readOnce()
	log := filepath.Join(dir, "s-p.jsonl")
	if err := os.WriteFile(log, []byte(w.sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "s-p", "subagents"), 0o755); err != nil {
		b.Fatal(err)
	}
	writeSyntheticClaudeCode(b, filepath.Join(dir, "s-p", "subagents", "agent-a1.jsonl"), 4<<20)
	tr := filepath.Join(dir, "s-p", "tool-results")
	if err := os.MkdirAll(tr, 0o755); err != nil {
		b.Fatal(err)
	}
	const strays = 200
	for i := range strays {
		if err := os.WriteFile(filepath.Join(tr, fmt.Sprintf("toolu_stray%03d.txt", i)), []byte("output"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		ss, err := claudecode.Load(log, corpus.Options{})
		if err != nil || len(ss) != 1 || len(ss[0].Warnings) != strays {
			b.Fatalf("load: %v (%d sessions), want 1 session with %d warnings", err, len(ss), strays)
		}
	}
}

// BenchmarkLoadUnansweredCalls loads a log of n tool calls that were
// interrupted (a prompt follows each, no result) beside a sidechain run
// holding n results for other ids: each unanswered call asks whether
// another thread answered it, which a map built once per log answers
// (searching every other thread's results for each, the load grew with
// n²). ns per call stays flat.
//
//	go test ./corpus/claudecode -run '^$' -bench BenchmarkLoadUnansweredCalls -benchtime 3x
func BenchmarkLoadUnansweredCalls(b *testing.B) {
	for _, n := range []int{5000, 10000, 20000} {
		var sb strings.Builder
		line := func(uuid, parent string, side bool, msg string) {
			p := "null"
			if parent != "" {
				p = `"` + parent + `"`
			}
			fmt.Fprintf(&sb, `{"type":%q,"uuid":%q,"parentUuid":%s,"isSidechain":%v,"sessionId":"s","version":"2.1.20","cwd":"/p","timestamp":"2026-01-01T00:00:00.000Z","message":%s}`+"\n",
				map[bool]string{true: "assistant", false: "user"}[strings.Contains(msg, `"assistant"`)], uuid, p, side, msg)
		}
		prev := ""
		for i := range n {
			line(fmt.Sprintf("a%d", i), prev, false, fmt.Sprintf(`{"id":"m%d","role":"assistant","model":"claude","content":[{"type":"tool_use","id":"tu%d","name":"Bash","input":{"command":"ls"}}]}`, i, i))
			line(fmt.Sprintf("u%d", i), fmt.Sprintf("a%d", i), false, fmt.Sprintf(`{"role":"user","content":"interrupted %d"}`, i))
			prev = fmt.Sprintf("u%d", i)
		}
		line("s0", "", true, `{"role":"user","content":"sub"}`)
		for i := range n {
			line(fmt.Sprintf("s%d", i+1), fmt.Sprintf("s%d", i), true, fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"zz%d","content":"x"}]}`, i))
		}
		p := filepath.Join(b.TempDir(), "s.jsonl")
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			for b.Loop() {
				ss, err := claudecode.Load(p, corpus.Options{})
				if err != nil || len(ss) == 0 || len(ss[0].Messages) != 2*n {
					b.Fatalf("load: %v (%d sessions)", err, len(ss))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/call")
		})
	}
}
