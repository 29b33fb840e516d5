package replay

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/realcorpus"
	"github.com/calib-dev/calib/corpus/synth"
)

// TestSmithRequestsOnOtherAgentsLogs: smith's policies infer a request
// that left no record from a user message after another only in smith's
// own logs. On the real Claude Code and Codex logs they count, session by
// session, the requests every other policy counts (one per assistant
// message: 957 on the Claude Code files, none in the Codex rollout, which
// holds no reply); before, they counted 1,118 and 2 (the local commands
// /context, /export and /exit, and the rollout's instructions and environment before its
// prompt). On the demo's smith sessions the inference still holds:
// smith-staged asks once more than clear-tool-results there.
func TestSmithRequestsOnOtherAgentsLogs(t *testing.T) {
	ss := realClaudeCodeSessions(t)
	codex, err := load.Load([]string{realcorpus.Dir(t, "codex")}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := synth.WriteDemo(dir, synth.DemoOptions{}); err != nil {
		t.Fatal(err)
	}
	demo, err := load.Load([]string{filepath.Join(dir, "smith", "sessions")}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	requests := func(name string, s *corpus.Session) int {
		tr, err := Run(context.Background(), s, mustPolicy(t, name, nil), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return len(tr.Requests)
	}
	for _, c := range []struct {
		what      string
		ss        []*corpus.Session
		smithMore int // smith's requests beyond the others', over all sessions
		others    int
	}{
		{"claude-code", ss, 0, 957},
		{"codex", codex, 0, 0},
		{"demo smith sessions", demo, 1, 0},
	} {
		more, others := 0, 0
		for _, s := range c.ss {
			o := requests("clear-tool-results", s)
			others += o
			for _, name := range []string{"smith-staged", "smith-legacy"} {
				n := requests(name, s)
				if c.smithMore == 0 && n != o {
					t.Errorf("%s on %s (%s): %d requests; clear-tool-results counts %d", name, s.ID, s.Format, n, o)
				}
				if name == "smith-staged" {
					more += n - o
				}
			}
		}
		if more != c.smithMore || (c.others != 0 && others != c.others) {
			t.Errorf("%s: smith-staged asks %d more times than clear-tool-results, which asks %d times; want %d more, and %d",
				c.what, more, others, c.smithMore, c.others)
		}
	}
}
