package policy

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/claudecode"
)

// walkRecorded replays s through the recorded policy the way the replay
// does (append every thread message, a checkpoint before each assistant
// message, summaries after the first message skipped) and returns the
// history sent at each request.
func walkRecorded(t *testing.T, s *corpus.Session, set map[string]string) [][]corpus.Message {
	sent, _ := replayRecorded(t, s, set)
	return sent
}

// replayRecorded is walkRecorded's walk: the history sent at each request,
// and the outcome of every request that changed it, by request.
func replayRecorded(t *testing.T, s *corpus.Session, set map[string]string) ([][]corpus.Message, map[int]Outcome) {
	t.Helper()
	pol, err := New("recorded", set)
	if err != nil {
		t.Fatal(err)
	}
	var h []corpus.Message
	var units int64
	var sent [][]corpus.Message
	outs := map[int]Outcome{}
	var prev *corpus.Message
	for i := range s.Messages {
		m := &s.Messages[i]
		if m.Summary && len(h) > 0 {
			continue
		}
		if pol.Checkpoint(s.Format, prev, m) {
			out := pol.Compact(h, Checkpoint{Request: len(sent), Units: units, Session: s, Next: i})
			if out.Strategy != None {
				h, units = out.History, out.Units
				outs[len(sent)] = out
			}
			sent = append(sent, h)
		}
		h = append(h, *m)
		u, _, _ := pol.Measure(m)
		units += u
		prev = m
	}
	return sent, outs
}

func recMsg(id string, role corpus.Role, blocks ...corpus.Block) corpus.Message {
	return corpus.Message{ID: id, Role: role, Blocks: blocks}
}

func recText(s string) corpus.Block { return corpus.Block{Kind: corpus.KindText, Text: s} }
func recUse(id string) corpus.Block {
	return corpus.Block{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: "Read", Args: []byte(`{}`)}
}
func recResult(id, s string) corpus.Block {
	return corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id, Text: s}
}

func recIDs(h []corpus.Message) string {
	var b []string
	for _, m := range h {
		b = append(b, m.ID)
	}
	return strings.Join(b, ",")
}

func TestRecordedClears(t *testing.T) {
	big := strings.Repeat("x", 4000)
	s := &corpus.Session{ID: "s1", Format: corpus.FormatClaudeCode,
		Meta: corpus.Meta{AgentVersion: "2.1.14", Cwd: "/Users/gray/Projects/barebones-phantom-reads"},
		Messages: []corpus.Message{
			recMsg("u1", corpus.RoleUser, recText("go")),
			recMsg("a1", corpus.RoleAssistant, recUse("t1"), recUse("t2")),
			recMsg("r1", corpus.RoleTool, recResult("t1", big), recResult("t2", big)),
			recMsg("a2", corpus.RoleAssistant, recText("done")),
			recMsg("u2", corpus.RoleUser, recText("again")),
			recMsg("a3", corpus.RoleAssistant, recText("ok")),
		},
		// The boundary sits right before request a2 (index 3).
		Recorded: corpus.Recorded{Compactions: []corpus.Compaction{{Strategy: "microcompact", AtMessage: 3, ClearedIDs: []string{"t1"}}}},
	}
	sent := walkRecorded(t, s, nil)
	if len(sent) != 3 {
		t.Fatalf("%d requests", len(sent))
	}
	if got := sent[0]; len(got) != 1 {
		t.Fatalf("request 0 sends %s", recIDs(got))
	}
	want := "<persisted-output>Tool result saved to: /Users/gray/.claude/projects/-Users-gray-Projects-barebones-phantom-reads/s1/tool-results/t1.txt\n\nUse Read to view</persisted-output>"
	for k := 1; k < 3; k++ {
		r := sent[k][2]
		if r.Blocks[0].Text != want || r.Blocks[1].Text != big {
			t.Errorf("request %d: results %.60q / %d bytes", k+1, r.Blocks[0].Text, len(r.Blocks[1].Text))
		}
	}
	if s.Messages[2].Blocks[0].Text != big {
		t.Fatal("the loaded session was written to")
	}
	s.Meta.AgentVersion = "2.0.60"
	if r := walkRecorded(t, s, nil)[1][2]; r.Blocks[0].Text != ClaudeCodeStub {
		t.Errorf("2.0.60 stub %q", r.Blocks[0].Text)
	}
	if r := walkRecorded(t, s, map[string]string{"stub": "persisted"})[1][2]; !strings.HasPrefix(r.Blocks[0].Text, "<persisted-output>") {
		t.Errorf("stub=persisted gives %q", r.Blocks[0].Text)
	}
}

func TestRecordedSummaries(t *testing.T) {
	sum := recMsg("sum", corpus.RoleUser, recText("This session is being continued ..."))
	sum.Summary = true
	base := []corpus.Message{
		recMsg("u1", corpus.RoleUser, recText("one")),
		recMsg("a1", corpus.RoleAssistant, recText("1")),
		recMsg("u2", corpus.RoleUser, recText("two")),
		recMsg("a2", corpus.RoleAssistant, recText("2")),
	}
	t.Run("claude-code summary replaces what came before", func(t *testing.T) {
		s := &corpus.Session{Format: corpus.FormatClaudeCode, Messages: append(append(append([]corpus.Message{}, base...), sum,
			recMsg("u3", corpus.RoleUser, recText("three"))), recMsg("a3", corpus.RoleAssistant, recText("3")))}
		s.Recorded.Compactions = []corpus.Compaction{{Strategy: "compact", AtMessage: 4, SummaryID: "sum"}}
		sent := walkRecorded(t, s, nil)
		if got := recIDs(sent[2]); got != "sum,u3" {
			t.Errorf("request after the summary sends %s, want sum,u3", got)
		}
		if got := recIDs(sent[1]); got != "u1,a1,u2" {
			t.Errorf("request before it sends %s", got)
		}
	})
	t.Run("codex compacted keeps system messages", func(t *testing.T) {
		sys := recMsg("dev", corpus.RoleSystem, recText("rules"))
		s := &corpus.Session{Format: corpus.FormatCodex, Messages: append([]corpus.Message{sys}, append(append([]corpus.Message{}, base...),
			recMsg("u3", corpus.RoleUser, recText("three")), recMsg("a3", corpus.RoleAssistant, recText("3")))...)}
		s.Recorded.Compactions = []corpus.Compaction{{Strategy: "compacted", AtMessage: 5, Summary: "the summary", Line: 9}}
		sent := walkRecorded(t, s, nil)
		last := sent[len(sent)-1]
		if got := recIDs(last); got != "dev,recorded-summary-9,u3" || last[1].Blocks[0].Text != "the summary" {
			t.Errorf("after compacted: %s", got)
		}
	})
	t.Run("clai window becomes its summary", func(t *testing.T) {
		s := &corpus.Session{Format: corpus.FormatClai, Messages: append(append(append([]corpus.Message{}, base...), sum),
			recMsg("u3", corpus.RoleUser, recText("three")), recMsg("a3", corpus.RoleAssistant, recText("3")))}
		s.Recorded.Compactions = []corpus.Compaction{{Strategy: "local_summary", AtMessage: 4, SummaryID: "sum", SourceFrom: "u1", SourceTo: "a1"}}
		sent := walkRecorded(t, s, nil)
		if got := recIDs(sent[len(sent)-1]); got != "sum,u2,a2,u3" {
			t.Errorf("after the clai summary: %s", got)
		}
	})
	t.Run("smith compacted history at the point it was written", func(t *testing.T) {
		s := &corpus.Session{Format: corpus.FormatSmithTranscript, Messages: append(append([]corpus.Message{}, base...),
			recMsg("u3", corpus.RoleUser, recText("three")), recMsg("a3", corpus.RoleAssistant, recText("3")))}
		s.Recorded.History = []corpus.Message{sum, base[2], base[3]}
		sent := walkRecorded(t, s, nil)
		if got := recIDs(sent[2]); got != "sum,u2,a2,u3" {
			t.Errorf("after session.json: %s", got)
		}
		if got := recIDs(sent[1]); got != "u1,a1,u2" {
			t.Errorf("before it: %s", got)
		}
	})
	t.Run("no recorded events: the raw history", func(t *testing.T) {
		s := &corpus.Session{Format: corpus.FormatClaudeCode, Messages: base}
		if got := recIDs(walkRecorded(t, s, nil)[1]); got != "u1,a1,u2" {
			t.Errorf("%s", got)
		}
	})
}

// TestPersistedPath: the recorded policy's and clear-tool-results' marker
// paths are claudecode.PersistedPath's, in the main session's folder.
func TestPersistedPath(t *testing.T) {
	s := &corpus.Session{ID: "main/agent-x", Meta: corpus.Meta{Cwd: "/home/ann/my_proj.v2", Parent: "main"}}
	if got := persistedPath(s, "toolu_1"); got != "/home/ann/.claude/projects/-home-ann-my-proj-v2/main/tool-results/toolu_1.txt" {
		t.Errorf("%s", got)
	}
	if got := persistedPath(&corpus.Session{ID: "s", Meta: corpus.Meta{Cwd: "/srv/x"}}, "t"); got != "~/.claude/projects/-srv-x/s/tool-results/t.txt" {
		t.Errorf("%s", got)
	}
	if got := persistedPath(nil, "t"); got != "~/.claude/projects/-/session/tool-results/t.txt" {
		t.Errorf("%s", got)
	}
	// clear-tool-results' default stub is the reader's marker, whole.
	stub := newStubTemplate(strings.ReplaceAll(PersistedOutputStub, `\n`, "\n"))
	if got, want := stub.render("toolu_1", s), claudecode.PersistedMarker(claudecode.PersistedPath("/home/ann/my_proj.v2", "main", "toolu_1")); got != want {
		t.Errorf("clear-tool-results stub %q, want the reader's marker %q", got, want)
	}
}

// The policy keeps nothing of a session it replayed. calib replay lets go
// of each session once replayed; the policy kept each one's events, keyed
// by the session, and so every session reachable (with its compactions)
// for as long as the policy lived. The events now live in the walk's
// RecordedIndex.
func TestRecordedKeepsNoSession(t *testing.T) {
	pol, err := New("recorded", nil)
	if err != nil {
		t.Fatal(err)
	}
	collected := make(chan struct{})
	func() {
		s := &corpus.Session{ID: "s1", Format: corpus.FormatClaudeCode, Meta: corpus.Meta{AgentVersion: "2.1.14"},
			Messages: []corpus.Message{
				recMsg("u1", corpus.RoleUser, recText("go")),
				recMsg("a1", corpus.RoleAssistant, recUse("t1")),
				recMsg("r1", corpus.RoleTool, recResult("t1", "body")),
				recMsg("a2", corpus.RoleAssistant, recText("done")),
			},
			Recorded: corpus.Recorded{Compactions: []corpus.Compaction{{Strategy: "microcompact", AtMessage: 3, ClearedIDs: []string{"t1"}}}},
		}
		runtime.SetFinalizer(s, func(*corpus.Session) { close(collected) })
		ix := NewRecordedIndex(s)
		h := s.Messages[:3]
		if out := pol.Compact(h, Checkpoint{Request: 1, Session: s, Recorded: ix, Next: 3}); out.Strategy == None {
			t.Fatal("the recorded clear was not applied: the events were never read")
		}
	}()
	// The policy lives on, as it does across a replay's sessions.
	defer runtime.KeepAlive(pol)
	for range 50 {
		runtime.GC()
		select {
		case <-collected:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatal("the session is still reachable after its replay: the policy keeps it")
}

// A recorded clear whose marker weighs what the result did in the meter
// (33 bytes each: 9 bytes4 tokens) still clears it. It was judged by the
// history's size, and dropped as a clear that did nothing.
func TestRecordedClearOfTheMarkersSize(t *testing.T) {
	same := strings.Repeat("y", len(ClaudeCodeStub))
	s := &corpus.Session{ID: "s1", Format: corpus.FormatClaudeCode, Meta: corpus.Meta{AgentVersion: "2.0.60"},
		Messages: []corpus.Message{
			recMsg("u1", corpus.RoleUser, recText("go")),
			recMsg("a1", corpus.RoleAssistant, recUse("t1")),
			recMsg("r1", corpus.RoleTool, recResult("t1", same)),
			recMsg("a2", corpus.RoleAssistant, recText("done")),
		},
		Recorded: corpus.Recorded{Compactions: []corpus.Compaction{{Strategy: "microcompact", AtMessage: 3, ClearedIDs: []string{"t1"}}}},
	}
	for _, meter := range []string{MeterBytes4, MeterChars4} {
		sent, outs := replayRecorded(t, s, map[string]string{"meter": meter})
		if len(sent) != 2 || sent[1][2].Blocks[0].Text != ClaudeCodeStub {
			t.Fatalf("%s: request 2 sends %q, want the stub", meter, sent[len(sent)-1][2].Blocks[0].Text)
		}
		if o := outs[1]; o.Strategy != Truncated || o.BeforeTokens != o.AfterTokens {
			t.Errorf("%s: outcome %s, %d -> %d tokens; want truncated, the same size", meter, o.Strategy, o.BeforeTokens, o.AfterTokens)
		}
	}
}
