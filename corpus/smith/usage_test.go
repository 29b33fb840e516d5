package smith

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

func TestSmithUsage(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want *corpus.Usage
		msg  string
	}{
		{``, nil, ""},
		{`null`, nil, ""},
		{`{"prompt_tokens":81234,"completion_tokens":4120,"total_tokens":85354,"cache_creation_tokens":10,"cache_read_tokens":20}`,
			&corpus.Usage{AtMessage: -1, InputTokens: 81234, CacheWriteTokens: 10, CacheReadTokens: 20, OutputTokens: 4120}, ""},
		// The snapshot's usage has no cache fields: they default to 0.
		{`{"prompt_tokens":5,"completion_tokens":6,"total_tokens":11}`, &corpus.Usage{AtMessage: -1, InputTokens: 5, OutputTokens: 6}, ""},
		{`{"completion_tokens":6}`, nil, "usage has no prompt_tokens (expected a token count); the request's usage is ignored"},
		{`{"prompt_tokens":5,"completion_tokens":-6}`, nil, "usage completion_tokens is -6 (expected a count ≥ 0); the request's usage is ignored"},
		{`"lots"`, nil, "usage holds string (expected an object of token counts); ignored"},
		// encoding/json named Go's types here ("Go struct field .Prompt of type int64").
		{`{"prompt_tokens":1e30,"completion_tokens":6}`, nil, "usage.prompt_tokens holds number 1e30 (expected a whole token count); ignored"},
		{`{"prompt_tokens":5,"completion_tokens":"six"}`, nil, "usage.completion_tokens holds string (expected a whole token count); ignored"},
	} {
		u, msg := smithUsage(json.RawMessage(c.raw))
		if (u == nil) != (c.want == nil) || (u != nil && *u != *c.want) || msg != c.msg {
			t.Errorf("%s: %+v %q, want %+v %q", c.raw, u, msg, c.want, c.msg)
		}
	}
}

// A session.json with a bad usage loads with a warning at line 1; a good
// one gives the session totals.
func TestSmithSessionUsage(t *testing.T) {
	dir := t.TempDir()
	for name, usage := range map[string]string{"good": `{"prompt_tokens":100,"completion_tokens":7,"total_tokens":107}`, "bad": `{"prompt_tokens":-1,"completion_tokens":7}`} {
		p := filepath.Join(dir, name+".json")
		body := `{"id":"session-1-` + name + `","created_at":"2026-08-08T15:06:02+02:00","updated_at":"2026-08-08T15:40:11+02:00","cwd":"/p","model":"m","provider":"anthropic","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"usage":` + usage + `,"todos":[]}`
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		ss, err := LoadSessionFile(p, corpus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := ss[0]
		switch name {
		case "good":
			if u := s.Recorded.UsageTotal; u == nil || u.InputTokens != 100 || u.OutputTokens != 7 {
				t.Errorf("good: usage %+v", u)
			}
		case "bad":
			if s.Recorded.UsageTotal != nil || len(s.Warnings) != 1 || s.Warnings[0].Line != 1 || !strings.Contains(s.Warnings[0].Message, "session.json usage prompt_tokens is -1") {
				t.Errorf("bad: usage %+v warnings %+v", s.Recorded.UsageTotal, s.Warnings)
			}
			if len(s.Messages) != 1 {
				t.Errorf("bad usage must not cost the history")
			}
		}
	}
}
