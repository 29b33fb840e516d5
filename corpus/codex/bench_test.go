package codex_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/codex"
	"github.com/calib-dev/calib/corpus/internal/cputime"
	"github.com/calib-dev/calib/corpus/load"
)

// writeSyntheticRollout writes a rollout of at least minBytes made of the
// line shapes of current Codex versions (the documented ones the fixture
// uses): per turn a user message and its user_message event, then requests
// of reasoning + function_call, a token_count, and the call's output (a
// file as `sed -n` prints it, ~6 KB of escaped source); every 40 turns a
// compacted line with a replacement_history. It returns the size written.
func writeSyntheticRollout(tb testing.TB, p string, minBytes int) int {
	tb.Helper()
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var src strings.Builder
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&src, "func handler%d(w http.ResponseWriter, r *http.Request) {\n\tfmt.Fprintf(w, \"ok %%d – ✓\", %d)\n}\n", i, i)
	}
	file, _ := json.Marshal(src.String())
	size := 0
	emit := func(typ, payload string) {
		k, _ := fmt.Fprintf(w, `{"timestamp":"2026-02-10T10:00:00.000Z","type":%q,"payload":%s}`+"\n", typ, payload)
		size += k
	}
	emit("session_meta", `{"id":"019c0000-aaaa-7bbb-8ccc-00000000beef","timestamp":"2026-02-10T10:00:00.000Z","cwd":"/work/demo","originator":"codex_cli_rs","cli_version":"0.98.0","source":"cli","model_provider":"openai"}`)
	emit("turn_context", `{"cwd":"/work/demo","approval_policy":"on-request","model":"gpt-5.2-codex","summary":"auto"}`)
	call, total := 0, 0
	for turn := 1; size < minBytes; turn++ {
		prompt := fmt.Sprintf("Please fix handler %d and run the tests.", turn)
		emit("response_item", fmt.Sprintf(`{"type":"message","role":"user","content":[{"type":"input_text","text":%q}]}`, prompt))
		emit("event_msg", fmt.Sprintf(`{"type":"user_message","message":%q,"images":[]}`, prompt))
		for range 4 {
			call++
			total += 1800
			emit("response_item", `{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"**Reading the handler**"}],"content":null,"encrypted_content":"gAAAAABpZ3x0dHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eA=="}`)
			emit("response_item", fmt.Sprintf(`{"type":"function_call","name":"shell","arguments":"{\"command\":[\"sed\",\"-n\",\"1,200p\",\"handler.go\"]}","call_id":"call_%d"}`, call))
			emit("event_msg", fmt.Sprintf(`{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":90,"reasoning_output_tokens":40,"total_tokens":%d},"last_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":90,"reasoning_output_tokens":40,"total_tokens":%d},"model_context_window":272000},"rate_limits":null}`,
				total, total-1800, total+90, total, total-1800, total+90))
			emit("response_item", fmt.Sprintf(`{"type":"function_call_output","call_id":"call_%d","output":%s}`, call, file))
		}
		emit("response_item", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Fixed; the tests pass."}]}`)
		if turn%40 == 0 {
			emit("compacted", fmt.Sprintf(`{"message":"","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":%q}]},{"type":"ghost_snapshot","ghost_commit":{"id":"abc"}}]}`, prompt))
			total = 0
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

// The generator writes only shapes the reader knows: it loads clean
// (strict), with one usage per request.
func TestSyntheticRolloutLoadsClean(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rollout-synthetic.jsonl")
	writeSyntheticRollout(t, p, 300<<10)
	ss, err := load.Load([]string{p}, corpus.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	n, used := 0, len(ss[0].Recorded.Usage)
	for _, m := range ss[0].Messages {
		if m.Role == corpus.RoleAssistant {
			n++
		}
	}
	// Per turn: four requests with a token_count, and the final answer
	// whose token_count the generator leaves out.
	if n == 0 || used*5 != n*4 {
		t.Errorf("%d assistant messages, %d with usage", n, used)
	}
}

// BenchmarkLoadCodex loads a synthetic 64 MB rollout and reports MB/s
// (issue 13's target: 300 MB/s on one core; run with -cpu 1).
func BenchmarkLoadCodex(b *testing.B) {
	p := filepath.Join(b.TempDir(), "rollout-synthetic.jsonl")
	size := writeSyntheticRollout(b, p, 64<<20)
	b.SetBytes(int64(size))
	b.ResetTimer()
	cpu0 := cputime.Now()
	for b.Loop() {
		ss, err := codex.Load(p, corpus.Options{})
		if err != nil || len(ss) != 1 || len(ss[0].Warnings) != 0 {
			b.Fatalf("load: %v %v", err, ss[0].Warnings)
		}
	}
	// The machine is shared: CPU time per byte is the figure that does not
	// depend on what else runs (as the Gemini CLI and opencode benchmarks).
	cputime.ReportMBPerCPUSecond(b, float64(size)*float64(b.N), cpu0)
}
