package synth

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/calib-dev/calib/corpus"
)

// demoSeed fixes the demo corpus: the same bytes on every machine and run.
const demoSeed = 20260808

// DemoOptions tunes the demo corpus.
type DemoOptions struct {
	// Compact, when set, gives the compacted working history smith leaves
	// in a transcript session's session.json (the CLI replays smith-staged
	// at its defaults, so that replay --compare-recorded finds the demo
	// identical to what "smith" recorded). When nil, a hand-made compaction
	// stands in: a summary plus the last three real turns. (synth cannot
	// call the policies itself: their tests use synth.)
	Compact func(s *corpus.Session) []corpus.Message
}

// WriteDemo writes the small demo corpus every --demo command runs on into
// dir and returns the paths to load, in order. The smith part is a sessions
// root (dir/smith/sessions) of three sessions of 60–200 messages with a few
// 20–200 KB results, repeated reads, thinking and continuations: big enough
// that smith's compaction triggers once max_tokens is scaled down to a few
// tens of thousands.
func WriteDemo(dir string, opt DemoOptions) ([]string, error) {
	root := filepath.Join(dir, "smith", "sessions")
	sessions := demoSmithSessions()
	if opt.Compact != nil {
		for _, s := range sessions {
			if s.Format == corpus.FormatSmithTranscript {
				s.Recorded.History = opt.Compact(s)
			}
		}
	}
	if _, err := WriteSmithRoot(root, sessions); err != nil {
		return nil, fmt.Errorf("writing the smith demo: %w", err)
	}
	paths := []string{root}

	// The clai demo: a workspace folder holding .clai/data.sqlite.
	claiPaths, err := writeDemoClai(filepath.Join(dir, "clai"))
	if err != nil {
		return nil, fmt.Errorf("writing the clai demo: %w", err)
	}
	paths = append(paths, claiPaths...)

	return paths, nil
}

// demoSmithSessions returns the demo sessions, newest first as smith's
// index keeps them.
func demoSmithSessions() []*corpus.Session {
	zone := time.FixedZone("", 2*3600)
	at := func(min int) time.Time {
		return time.Date(2026, 8, 8, 15, 6, 2, 0, zone).Add(time.Duration(min) * time.Minute)
	}

	// A tool-heavy session with repeated reads and a few big results,
	// whose session.json holds a compacted history (a summary plus the
	// last three real turns), as smith leaves it after compacting.
	reads := Profile{Name: "demo-reads", Turns: 10, MinCalls: 3, MaxCalls: 8, ParallelCalls: 2,
		ResultBytes: 5000, BigEvery: 9, BigBytes: 120 << 10, Reread: 0.5, Bash: 0.3,
		Thinking: 0.3, ThinkingBytes: 2000, Continuation: 0.15, ErrorRate: 0.1}
	s1 := demoSession("session-1786201234-a1b2c3", Smith(reads, demoSeed), at(0), at(34))
	s1.Recorded.History = demoCompacted(s1.Messages, 3)

	// Thinking on almost every response, with signatures, and output-limit
	// continuations.
	think := Profile{Name: "demo-thinking", Turns: 8, MinCalls: 2, MaxCalls: 6, ParallelCalls: 1,
		ResultBytes: 3000, BigEvery: 7, BigBytes: 40 << 10, Reread: 0.3, Bash: 0.5,
		Thinking: 0.75, Redacted: 0.1, ThinkingBytes: 6000, Continuation: 0.5}
	s2 := demoSession("session-1786205678-d4e5f6", Smith(think, demoSeed+1), at(60), at(95))

	// A session recorded before the transcript log existed: session.json
	// only, already compacted once (it opens with a summary).
	bash := Profile{Name: "demo-bash", Turns: 6, MinCalls: 3, MaxCalls: 8, ParallelCalls: 1,
		ResultBytes: 6000, BigEvery: 11, BigBytes: 24 << 10, Bash: 0.9, ErrorRate: 0.25}
	s3 := demoSession("session-1786101234-0f1e2d", Smith(bash, demoSeed+2), at(-600), at(-560))
	s3.Format = corpus.FormatSmithSession
	s3.Messages = append([]corpus.Message{demoSummary("4f6b0a1c2d3e5f70",
		"the user asked for the build to be fixed; make test failed in spec/smith/context_spec.cr; "+
			"the budget arithmetic in src/smith/context.cr was corrected; open question: flaky spec on CI.")},
		s3.Messages...)
	s3.Meta.ContextRatio = 1.18

	return []*corpus.Session{s2, s1, s3}
}

func demoSession(id string, msgs []corpus.Message, created, updated time.Time) *corpus.Session {
	return &corpus.Session{
		ID:       id,
		Format:   corpus.FormatSmithTranscript,
		Messages: msgs,
		Meta: corpus.Meta{Model: "claude-sonnet-5", Provider: "anthropic", Cwd: "/home/u/proj",
			Title: SmithName(SmithFirstPrompt(msgs)), CreatedAt: created, UpdatedAt: updated, ContextRatio: 1.0},
	}
}

func demoSummary(id, text string) corpus.Message {
	return corpus.Message{ID: id, Role: corpus.RoleUser, Summary: true,
		Blocks: []corpus.Block{{Kind: corpus.KindText, Text: SmithSummaryPrefix + text}}}
}

// demoCompacted returns a summary message followed by the last n real
// turns of msgs (real turns start at non-synthetic user messages).
func demoCompacted(msgs []corpus.Message, n int) []corpus.Message {
	var starts []int
	for i, m := range msgs {
		if m.RealTurn() {
			starts = append(starts, i)
		}
	}
	if len(starts) <= n {
		return msgs
	}
	cut := starts[len(starts)-n]
	sum := demoSummary("9d8c7b6a5f4e3d2c", fmt.Sprintf(
		"%d earlier messages covered reading src/smith/context.cr and agent.cr repeatedly, running the specs "+
			"and fixing the budget arithmetic; decisions: keep the 3-turn window; open: the flaky spec.", cut))
	return append([]corpus.Message{sum}, msgs[cut:]...)
}
