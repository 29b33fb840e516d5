package replay

import (
	"context"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// TestCostOfAPersistedOutputAtArrival: the recorded policy replaces a
// Claude Code persisted output by its marker at the request the reader
// placed it. Placed at its arrival (corpus.PlacedArrival: the first
// request after the result), the marker replaces a result no request had
// sent, so the cache keeps its prefix and no compaction is priced; placed
// one request later, the result had been sent whole and the marker
// rewrites it: the cache falls back to its head and the event is priced.
// The session is written from the documented shapes (a 2.1.5 log, no
// usage), not from a real log: none of the real logs places an output at
// its arrival.
func TestCostOfAPersistedOutputAtArrival(t *testing.T) {
	session := func(at int, placed string) *corpus.Session {
		s := &corpus.Session{ID: "s", Format: corpus.FormatClaudeCode,
			Meta: corpus.Meta{AgentVersion: "2.1.5", Cwd: "/Users/u/proj", Model: "claude-opus-4-5-20251101"}}
		add := func(role corpus.Role, b corpus.Block) {
			s.Messages = append(s.Messages, corpus.Message{ID: "m" + string(rune('0'+len(s.Messages))), Role: role, Line: len(s.Messages) + 1, Blocks: []corpus.Block{b}})
		}
		add(corpus.RoleUser, corpus.Block{Kind: corpus.KindText, Text: "read a.md, then tell me what it says about " + strings.Repeat("the build ", 1000)})
		add(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: "a", ToolName: "Read", Args: []byte(`{"file_path":"/Users/u/proj/a.md"}`)})
		add(corpus.RoleTool, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: "a", Text: strings.Repeat("a line of the file a.md\n", 2000)})
		add(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindText, Text: "read it"})
		add(corpus.RoleUser, corpus.Block{Kind: corpus.KindText, Text: "and now?"})
		add(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindText, Text: "done"})
		s.Recorded.Persisted = []corpus.Persisted{{ToolCallID: "a", File: "s/tool-results/a.txt", Bytes: 48000,
			Boundary: -1, AtMessage: at, Placed: placed, Chars: 48000}}
		return s
	}
	for _, c := range []struct {
		name    string
		at      int // the message the marker's first request produced
		request int // that request
		rewrote bool
		read    int // the request's cache read
		prev    int // the previous request's prompt
	}{
		{"at arrival", 3, 1, false, 2511, 2511},
		{"a request later", 5, 2, true, 2525, 14521},
	} {
		placed := corpus.PlacedArrival
		if c.rewrote {
			placed = corpus.PlacedCacheBreak
		}
		sc, tr := costAndTrace(t, session(c.at, placed), mustPolicy(t, "recorded", nil))
		if len(tr.Requests) != 3 || len(tr.Events) != 1 || tr.Events[0].Request != c.request {
			t.Fatalf("%s: %d requests, events %+v; want 3 and one at request %d", c.name, len(tr.Requests), tr.Events, c.request)
		}
		r := tr.Requests[c.request]
		rows := len(sc.Compactions)
		step := sc.Requests[c.request]
		if r.Rewrote != c.rewrote || (rows == 1) != c.rewrote || step.Break != c.rewrote {
			t.Errorf("%s: rewrote %v, %d compaction rows, cache break %v (%s); want %v, %d, %v",
				c.name, r.Rewrote, rows, step.Break, step.Reason, c.rewrote, map[bool]int{true: 1}[c.rewrote], c.rewrote)
		}
		// Kept, the request reads all the previous prompt left in the
		// cache (2,511 tokens: the prompt); broken, only the cache's head
		// (2,525), far below the 14,521 the previous request sent.
		if prev := sc.Requests[c.request-1].Prompt; step.Read != c.read || prev != c.prev {
			t.Errorf("%s: read %d after a prompt of %d; want %d after %d", c.name, step.Read, prev, c.read, c.prev)
		}
	}
}

// TestRewroteOnTheRealLogs: on every real Claude Code session, under every
// policy at its defaults, an event after the first request leaves what
// earlier requests sent alone (Request.Rewrote false, so the cost layer
// prices no rewrite) exactly when it only capped arriving output: no
// other compaction there touches only what was appended since. 6 caps
// (opencode's; gemini-cli caps only shell output, and no Bash output
// here reaches its 40,000 chars) and 988 other events (aider summarizes
// only when a user message arrives: 29 of them; the presets whose agents
// read their provider's count trigger on the prompt calibrated from the
// recorded usage, system prompt and tools included, of the last response:
// anthropic-context-editing 95, cline 28, goose 17, opencode 17, where
// on their estimates 7, 0, 0 and 2; smith-staged 18, 19 when Claude
// Code's local commands counted as turns).
func TestRewroteOnTheRealLogs(t *testing.T) {
	ss := realClaudeCodeSessions(t)
	caps, others := 0, 0
	for _, name := range policy.Names() {
		p := mustPolicy(t, name, nil)
		for _, s := range ss {
			if d, _ := policy.Lookup(name); !d.Applies(s.Format) {
				continue
			}
			tr, err := Run(context.Background(), s, p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tr.Events {
				if e.Request == 0 {
					continue
				}
				arrival := policy.IsArrivalOnly(e.Outcome)
				if r := tr.Requests[e.Request]; r.Rewrote == arrival {
					t.Errorf("%s on %s: request %d: output cap %v, rewrote %v", name, s.ID, e.Request, arrival, r.Rewrote)
				}
				if arrival {
					caps++
				} else {
					others++
				}
			}
		}
	}
	if caps != 6 || others != 988 {
		t.Errorf("%d caps and %d other events; want 6 and 988", caps, others)
	}
}
