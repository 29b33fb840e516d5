package claudecode_test

import (
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

// The recorded usage totals per log (main thread and sidechains summed)
// are the ones the analyst's independent Python count gives (last line per
// message.id, zero-usage <synthetic> messages skipped): requests, input,
// cache writes (5 m / 1 h), cache reads, output.
func TestClaudeCodeRealUsageTotals(t *testing.T) {
	type tot struct{ req, in, w5, w1, read, out int }
	for file, want := range map[string]tot{
		"claude-code/0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl": {212, 538, 793973, 0, 15371601, 17274},
		"claude-code/9034225e-c367-4ab6-b1eb-1f478a7ae27a.jsonl": {229, 716, 1170376, 0, 13868864, 26490},
		"claude-code/f67ab274-e83b-41ac-ac85-77488d6b5c28.jsonl": {271, 922, 929079, 0, 24830020, 38531},
		// 8 message ids, one of them the synthetic "Prompt is too long".
		"claude-code/b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl":                         {7, 27941, 263914, 0, 658423, 21},
		"claude-code/fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl":                         {9, 13093, 0, 458108, 808273, 26},
		"claude-code/projects/2caf2337-66bf-41d1-ad27-9d2cab7bd2dc/agent-b0a81b9b.jsonl": {3, 31893, 51671, 0, 28703, 2948},
	} {
		ss, err := load.Load([]string{realFile(t, file)}, corpus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got tot
		for _, s := range ss {
			for _, u := range s.Recorded.Usage {
				got.req++
				got.in += u.InputTokens
				w5m, w1h := u.Writes()
				got.w5 += w5m
				got.w1 += w1h
				got.read += u.CacheReadTokens
				got.out += u.OutputTokens
				if w5m+w1h != u.CacheWriteTokens {
					t.Errorf("%s:%d: split %d+%d of %d writes", file, u.Line, w5m, w1h, u.CacheWriteTokens)
				}
				if m := s.Messages[u.AtMessage]; m.Role != corpus.RoleAssistant || m.Line > u.Line {
					t.Errorf("%s:%d: usage points at message %d (%s, line %d)", file, u.Line, u.AtMessage, m.Role, m.Line)
				}
			}
			for _, w := range s.Warnings {
				if strings.Contains(w.Message, "usage") {
					t.Errorf("%s:%d: unexpected usage warning: %s", w.File, w.Line, w.Message)
				}
			}
		}
		if got != want {
			t.Errorf("%s: usage totals %+v, want %+v", file, got, want)
		}
	}
}

// The request context the cache model needs: b3533c53 line 30 follows four
// parallel Reads whose last-completed result (line 29) is the first in
// tool_use order; send and response times come from the lines.
func TestClaudeCodeRealUsageContext(t *testing.T) {
	ss, err := load.Load([]string{realFile(t, "claude-code/b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl")}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	us := ss[0].Recorded.Usage
	var u corpus.Usage
	for _, x := range us {
		if x.Line >= 30 && u.Line == 0 {
			u = x
		}
	}
	tm := ss[0].Messages[u.AtMessage-1]
	if tm.Role != corpus.RoleTool || len(tm.Blocks) != 4 || u.Breakpoint == "" || u.Breakpoint == tm.Blocks[3].ToolCallID {
		t.Fatalf("line %d: breakpoint %q after tool message %+v", u.Line, u.Breakpoint, tm.Blocks)
	}
	if u.Breakpoint != tm.Blocks[0].ToolCallID {
		t.Errorf("breakpoint %s, want the first result in tool_use order %s (it completed last)", u.Breakpoint, tm.Blocks[0].ToolCallID)
	}
	if u.Sent.IsZero() || !u.Done.After(u.Sent) || u.InputTokens != 27936 {
		t.Errorf("line %d: sent %v done %v input %d", u.Line, u.Sent, u.Done, u.InputTokens)
	}
}

func TestClaudeCodeUsageBadInput(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:05Z","message":{"id":"m1","role":"assistant","model":"claude-opus-4-5-20251101","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":-3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","timestamp":"2026-01-01T00:00:06Z","message":{"role":"user","content":"more"}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s","timestamp":"2026-01-01T00:00:09Z","message":{"id":"m2","role":"assistant","model":"claude-opus-4-5-20251101","content":[{"type":"text","text":"b"}],"usage":{"input_tokens":3,"cache_read_input_tokens":0,"output_tokens":1}}}`,
		`{"type":"user","uuid":"u3","parentUuid":"a2","sessionId":"s","timestamp":"2026-01-01T00:00:10Z","message":{"role":"user","content":"and"}}`,
		`{"type":"assistant","uuid":"a3","parentUuid":"u3","sessionId":"s","timestamp":"2026-01-01T00:00:12Z","message":{"id":"m3","role":"assistant","model":"claude-opus-4-5-20251101","content":[{"type":"text","text":"c"}],"usage":{"input_tokens":3,"cache_creation_input_tokens":100,"cache_read_input_tokens":2000,"output_tokens":1,"cache_creation":{"ephemeral_5m_input_tokens":60,"ephemeral_1h_input_tokens":0}}}}`,
		`{"type":"user","uuid":"u4","parentUuid":"a3","sessionId":"s","timestamp":"2026-01-01T00:00:13Z","message":{"role":"user","content":"x"}}`,
		`{"type":"assistant","uuid":"a4","parentUuid":"u4","sessionId":"s","timestamp":"2026-01-01T00:00:14Z","message":{"id":"m4","role":"assistant","model":"claude-opus-4-5-20251101","content":[{"type":"text","text":"d"}],"usage":"lots"}}`,
		`{"type":"user","uuid":"u5","parentUuid":"a4","sessionId":"s","timestamp":"2026-01-01T00:00:15Z","message":{"role":"user","content":"y"}}`,
		`{"type":"assistant","uuid":"a5","parentUuid":"u5","sessionId":"s","timestamp":"2026-01-01T00:00:16Z","message":{"id":"m5","role":"assistant","model":"claude-opus-4-5-20251101","content":[{"type":"text","text":"e"}]}}`,
	}
	s, p := loadLines(t, "bad-usage.jsonl", lines)
	if len(s.Messages) != 10 {
		t.Fatalf("bad usage must not cost messages: %d", len(s.Messages))
	}
	want := map[int]string{
		2:  "message.usage input_tokens is -3 (expected a count ≥ 0)",
		4:  "message.usage has no cache_creation_input_tokens",
		6:  "splits 60+0 tokens by TTL but cache_creation_input_tokens is 100",
		8:  "message.usage holds string (expected an object of token counts); the request's usage is ignored",
		10: "1 assistant message(s) record no message.usage",
	}
	for _, w := range s.Warnings {
		if m, ok := want[w.Line]; ok && strings.Contains(w.Message, m) && w.File == p {
			delete(want, w.Line)
		}
	}
	for line, m := range want {
		t.Errorf("no warning at line %d containing %q; got %+v", line, m, s.Warnings)
	}
	if len(s.Recorded.Usage) != 1 || s.Recorded.Usage[0].Line != 6 || s.Recorded.Usage[0].Split || s.Recorded.Usage[0].CacheWriteTokens != 100 {
		t.Errorf("only line 6's usage is kept, its writes as 5-minute writes: %+v", s.Recorded.Usage)
	}
}
