package gemini_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/gemini"
	"github.com/calib-dev/calib/corpus/internal/cputime"
	"github.com/calib-dev/calib/corpus/load"
)

// writeSyntheticChat writes a Gemini CLI JSONL chat of at least minBytes,
// made of the record shapes the recorder writes (no real chat is
// available): per turn a user prompt, a gemini message with thoughts and
// two read_file calls appended three times as the recorder does (created,
// tokens attached, results recorded; each result a ~9 KB file), $set
// updates, a closing gemini message, and now and then a compression notice.
// It returns the size written.
func writeSyntheticChat(tb testing.TB, p string, minBytes int) int {
	tb.Helper()
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var src strings.Builder
	for i := 1; i <= 160; i++ {
		fmt.Fprintf(&src, "func handler%d(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, \"ok %%d – ✓\", %d) }\n", i, i)
	}
	file, _ := json.Marshal(src.String())
	size := 0
	emit := func(format string, args ...any) {
		k, _ := fmt.Fprintf(w, format, args...)
		size += k
		w.WriteByte('\n')
		size++
	}
	emit(`{"sessionId":"7c1d0e52-0000-4000-8000-000000000001","projectHash":"5f2c1b9e8d7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e","startTime":"2026-01-05T09:00:00.000Z","lastUpdated":"2026-01-05T09:00:00.000Z","kind":"main"}`)
	for turn := 1; size < minBytes; turn++ {
		emit(`{"id":"u%d","timestamp":"2026-01-05T09:00:01.000Z","type":"user","content":[{"text":"Please review handler %d and the file next to it, then fix the failing test."}]}`, turn, turn)
		emit(`{"$set":{"lastUpdated":"2026-01-05T09:00:01.000Z"}}`)
		calls := func(done bool) string {
			var cs []string
			for k := 0; k < 2; k++ {
				res := ""
				status := "executing"
				if done {
					status = "success"
					res = fmt.Sprintf(`,"result":[{"functionResponse":{"id":"call_%d_%d","name":"read_file","response":{"output":%s}}}],"resultDisplay":""`, turn, k, file)
				}
				cs = append(cs, fmt.Sprintf(`{"id":"call_%d_%d","name":"read_file","args":{"absolute_path":"/work/demo/handler%d_%d.go"},"status":"%s","timestamp":"2026-01-05T09:00:05.000Z"%s,"displayName":"ReadFile","description":"Reads a file","renderOutputAsMarkdown":true}`, turn, k, turn, k, status, res))
			}
			return "[" + strings.Join(cs, ",") + "]"
		}
		head := fmt.Sprintf(`{"id":"g%d","timestamp":"2026-01-05T09:00:05.000Z","type":"gemini","content":"","toolCalls":`, turn)
		thoughts := `"thoughts":[{"subject":"Reading the handler","description":"I will read both files before changing anything.","timestamp":"2026-01-05T09:00:04.000Z"}]`
		tokens := `"tokens":{"input":118000,"output":40,"cached":110000,"thoughts":120,"tool":0,"total":118160}`
		emit(`%s%s,%s,"model":"gemini-2.5-pro"}`, head, calls(false), thoughts)
		emit(`%s%s,%s,"model":"gemini-2.5-pro",%s}`, head, calls(false), thoughts, tokens)
		emit(`%s%s,%s,"model":"gemini-2.5-pro",%s}`, head, calls(true), thoughts, tokens)
		emit(`{"id":"h%d","timestamp":"2026-01-05T09:00:09.000Z","type":"gemini","content":"The handler writes the status after the body; I moved WriteHeader first and the test passes now.","thoughts":[],"tokens":{"input":137000,"output":60,"cached":118000,"thoughts":0,"tool":0,"total":137060},"model":"gemini-2.5-pro"}`, turn)
		if turn%25 == 0 {
			emit(`{"id":"i%d","timestamp":"2026-01-05T09:10:00.000Z","type":"info","content":"IMPORTANT: This conversation approached the input token limit for gemini-2.5-pro. A compressed context will be sent for future messages (compressed from: 524000 to 150000 tokens)."}`, turn)
		}
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
func TestSyntheticChatLoadsClean(t *testing.T) {
	p := filepath.Join(t.TempDir(), "session-2026-01-05T09-00-7c1d0e52.jsonl")
	writeSyntheticChat(t, p, 400<<10)
	ss, err := load.Load([]string{p}, corpus.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	// Each turn: user, assistant (thinking + 2 tool_use), tool (2 results), assistant.
	if n := len(s.Messages); n%4 != 0 || len(s.Recorded.Usage) != n/2 || len(s.Recorded.Compactions) != n/4/25 {
		t.Errorf("%d messages, %d usage, %d compactions", n, len(s.Recorded.Usage), len(s.Recorded.Compactions))
	}
}

// BenchmarkLoadGemini loads a synthetic 64 MB chat and reports MB/s.
func BenchmarkLoadGemini(b *testing.B) {
	p := filepath.Join(b.TempDir(), "session-2026-01-05T09-00-7c1d0e52.jsonl")
	size := writeSyntheticChat(b, p, 64<<20)
	b.SetBytes(int64(size))
	b.ResetTimer()
	cpu0 := cputime.Now()
	for b.Loop() {
		ss, err := gemini.Load(p, corpus.Options{})
		if err != nil || len(ss) != 1 || len(ss[0].Warnings) != 0 {
			b.Fatalf("load: %v", err)
		}
	}
	// The machine is shared: CPU time per byte is the figure that does not
	// depend on what else runs.
	cputime.ReportMBPerCPUSecond(b, float64(size)*float64(b.N), cpu0)
}
