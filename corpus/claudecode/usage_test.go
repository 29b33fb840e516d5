package claudecode_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

// Recorded usage per API response, from the real logs (cost-findings.md
// §1.1): b3533c53 (2.1.14) sums to input 27,941 + cache write 263,914 +
// cache read 658,423 = 950,278 over its 7 real requests (its 8th, the
// synthetic "Prompt is too long" line, is not a request), the figure issue 11
// quotes; fc491683 (2.1.20) writes only 1-hour cache entries (458,108).
func TestClaudeCodeRealUsage(t *testing.T) {
	tests := []struct {
		file                      string
		requests                  int
		input, write, write1h, rd int
	}{
		{"claude-code/b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl", 7, 27941, 263914, 0, 658423},
		{"claude-code/fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl", 9, 13093, 458108, 458108, 808273},
	}
	for _, tt := range tests {
		ss, err := load.Load([]string{realFile(t, tt.file)}, corpus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var main *corpus.Session
		for _, s := range ss {
			if s.Meta.Parent == "" {
				main = s
			}
		}
		var n int
		var sum corpus.Usage
		for _, u := range main.Recorded.Usage {
			if m := main.Messages[u.AtMessage]; m.Role != corpus.RoleAssistant || m.Synthetic {
				t.Errorf("%s: usage at message %d (%s, synthetic %v)", tt.file, u.AtMessage, m.Role, m.Synthetic)
			}
			n++
			sum.Add(u)
		}
		if n != tt.requests || sum.InputTokens != tt.input || sum.CacheWriteTokens != tt.write ||
			sum.CacheWrite1h != tt.write1h || sum.CacheReadTokens != tt.rd {
			t.Errorf("%s: %d requests, usage %+v; want %d requests, input %d write %d (1h %d) read %d",
				tt.file, n, sum, tt.requests, tt.input, tt.write, tt.write1h, tt.rd)
		}
	}
}

// The lines of one response that repeat its usage byte for byte, and
// those that change it, each give what their own bytes say: a bad usage
// repeated is warned about on each of its lines, and a good one after a
// bad one with the same bytes as an earlier good one is not taken for the
// bad one.
func TestClaudeCodeRepeatedUsage(t *testing.T) {
	head := `"isSidechain":false,"sessionId":"s-u","version":"2.1.20","cwd":"/Users/u/p"`
	good := `{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":1}`
	more := `{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":9}`
	bad := `{"input_tokens":"three","cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":1}`
	asst := func(uuid, parent, id, usage string) string {
		return `{"type":"assistant","uuid":"` + uuid + `","parentUuid":"` + parent + `",` + head +
			`,"message":{"id":"` + id + `","role":"assistant","model":"claude-opus-4-5","content":[{"type":"text","text":"t"}],"usage":` + usage + `}}`
	}
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,` + head + `,"message":{"role":"user","content":"hi"}}`,
		asst("a1", "u1", "m1", good),
		asst("a2", "a1", "m1", good),
		asst("a3", "a2", "m1", more),
		`{"type":"user","uuid":"u2","parentUuid":"a3",` + head + `,"message":{"role":"user","content":"again"}}`,
		asst("a4", "u2", "m2", bad),
		asst("a5", "a4", "m2", bad),
		`{"type":"user","uuid":"u3","parentUuid":"a5",` + head + `,"message":{"role":"user","content":"and again"}}`,
		asst("a6", "u3", "m3", more),
	}
	s, _ := loadLines(t, "s-u.jsonl", lines)
	var got []string
	for _, u := range s.Recorded.Usage {
		got = append(got, fmt.Sprintf("line %d: in %d write %d read %d out %d", u.Line, u.InputTokens, u.CacheWriteTokens, u.CacheReadTokens, u.OutputTokens))
	}
	for _, w := range s.Warnings {
		got = append(got, fmt.Sprintf("warning line %d: %s", w.Line, w.Message))
	}
	want := []string{"line 4: in 3 write 10 read 100 out 9", "line 9: in 3 write 10 read 100 out 9",
		"warning line 6: message.usage.input_tokens holds string (expected a whole token count); the request's usage is ignored",
		"warning line 7: message.usage.input_tokens holds string (expected a whole token count); the request's usage is ignored"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
