package synth

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus"
)

// extendFixture is a small clai-like session: per turn a user prompt, an
// assistant message with text and calls, one tool message per call, and a
// final answer (clai's HTTP engine shape), or with cli set one assistant
// message per run and no tool messages.
func extendFixture(turns int, cli bool) *corpus.Session {
	s := &corpus.Session{ID: "fixture", Format: corpus.FormatClai}
	at := time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC)
	add := func(role corpus.Role, blocks ...corpus.Block) {
		at = at.Add(time.Minute)
		s.Messages = append(s.Messages, corpus.Message{ID: fmt.Sprintf("m%d", len(s.Messages)), Role: role, Blocks: blocks, Time: at})
	}
	for t := range turns {
		add(corpus.RoleUser, corpus.Block{Kind: corpus.KindText, Text: strings.Repeat("u", 300+t%3*100)})
		use := func(i int) corpus.Block {
			return corpus.Block{Kind: corpus.KindToolUse, ToolCallID: fmt.Sprintf("c%d-%d", t, i), ToolName: "grep",
				Args: []byte(`{"pattern":"` + strings.Repeat("p", 80) + `"}`)}
		}
		if cli {
			add(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindText, Text: strings.Repeat("a", 3000)}, use(0), use(1), use(2))
			continue
		}
		add(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindText, Text: strings.Repeat("a", 1000)}, use(0), use(1))
		for i := range 2 {
			add(corpus.RoleTool, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: fmt.Sprintf("c%d-%d", t, i),
				Payload: []byte(`{"stdout":"` + strings.Repeat("r", 5000) + `"}`)})
		}
		add(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindText, Text: strings.Repeat("a", 1000)})
	}
	return s
}

type extendStats struct {
	users, assistants, tools, uses   int
	userBytes, asstBytes, resultSize int
}

func statsOf(ms []corpus.Message) extendStats {
	var st extendStats
	for _, m := range ms {
		switch m.Role {
		case corpus.RoleUser:
			st.users++
		case corpus.RoleAssistant:
			st.assistants++
		case corpus.RoleTool:
			st.tools++
		}
		for _, b := range m.Blocks {
			switch {
			case b.Kind == corpus.KindText && m.Role == corpus.RoleUser:
				st.userBytes += len(b.Text)
			case b.Kind == corpus.KindText:
				st.asstBytes += len(b.Text)
			case b.Kind == corpus.KindToolUse:
				st.uses++
			case b.Kind == corpus.KindToolResult:
				st.resultSize += len(b.Payload)
			}
		}
	}
	return st
}

func TestExtendKeepsTheSessionsProfile(t *testing.T) {
	for _, cli := range []bool{false, true} {
		s := extendFixture(6, cli)
		before := reflect.ValueOf(s.Messages).Pointer()
		snapshot := append([]corpus.Message(nil), s.Messages...)
		x := Extend(s, 400, 42)
		if !reflect.DeepEqual(s.Messages, snapshot) || reflect.ValueOf(s.Messages).Pointer() != before || len(s.Messages) != len(snapshot) {
			t.Fatalf("Extend modified its input")
		}
		if !reflect.DeepEqual(x.Messages[:len(s.Messages)], s.Messages) {
			t.Fatalf("the copy does not start with the session")
		}
		orig, added := statsOf(s.Messages), statsOf(x.Messages[len(s.Messages):])
		if added.users != 400 {
			t.Errorf("cli %v: %d user turns added, want 400", cli, added.users)
		}
		near := func(name string, got, want float64) {
			if got < want*0.9 || got > want*1.1 {
				t.Errorf("cli %v: %s %.1f, the session's is %.1f", cli, name, got, want)
			}
		}
		near("user text bytes per prompt", float64(added.userBytes)/float64(added.users), float64(orig.userBytes)/float64(orig.users))
		near("assistant messages per turn", float64(added.assistants)/float64(added.users), float64(orig.assistants)/float64(orig.users))
		near("assistant text bytes per message", float64(added.asstBytes)/float64(added.assistants), float64(orig.asstBytes)/float64(orig.assistants))
		near("tool calls per assistant message", float64(added.uses)/float64(added.assistants), float64(orig.uses)/float64(orig.assistants))
		if cli && added.tools != 0 {
			t.Errorf("a CLI session got %d tool messages; its results live outside the messages", added.tools)
		}
		if !cli {
			near("result bytes", float64(added.resultSize)/float64(added.tools), float64(orig.resultSize)/float64(orig.tools))
			if added.tools != added.uses {
				t.Errorf("%d tool messages for %d calls", added.tools, added.uses)
			}
		}
		for _, m := range x.Messages[len(s.Messages):] {
			if len(m.ID) != 36 || !m.Time.After(s.Messages[len(s.Messages)-1].Time) {
				t.Fatalf("message %q: want a UUID-shaped id and a time after the session's", m.ID)
			}
			for _, b := range m.Blocks {
				if (b.Kind == corpus.KindToolUse && !json.Valid(b.Args)) || (b.Kind == corpus.KindToolResult && !json.Valid(b.Payload)) {
					t.Fatalf("invalid JSON in message %s", m.ID)
				}
			}
		}
	}
}

func TestExtendIsDeterministic(t *testing.T) {
	s := extendFixture(4, false)
	a, b := Extend(s, 30, 7), Extend(s, 30, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the same seed gave different sessions")
	}
	if reflect.DeepEqual(a.Messages, Extend(s, 30, 8).Messages) {
		t.Errorf("another seed gave the same session")
	}
	short := Extend(s, 10, 7)
	if !reflect.DeepEqual(short.Messages, a.Messages[:len(short.Messages)]) {
		t.Errorf("Extend(s, 10) is not a prefix of Extend(s, 30)")
	}
	if got := Extend(s, 0, 7); !reflect.DeepEqual(got.Messages, s.Messages) {
		t.Errorf("zero turns must copy the session unchanged")
	}
	if got := Extend(&corpus.Session{}, 3, 1); statsOf(got.Messages).users != 3 {
		t.Errorf("an empty session extends with default turns")
	}
}

// An Extension's batches, however they are split, are what Extend appends
// for their sum.
func TestExtensionBatchesAreExtend(t *testing.T) {
	for _, cli := range []bool{false, true} {
		s := extendFixture(4, cli)
		want := Extend(s, 30, 7).Messages[len(s.Messages):]
		for _, split := range [][]int{{30}, {1, 29}, {7, 7, 7, 9}, {0, 30, 0}} {
			e := NewExtension(s, 7)
			var got []corpus.Message
			for _, n := range split {
				got = append(got, e.Turns(n)...)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("cli=%v, batches %v: %d messages differ from Extend's %d", cli, split, len(got), len(want))
			}
		}
	}
}
