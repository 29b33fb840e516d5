package policy

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// BenchmarkPresetWalk replays a whole session through each preset, every
// checkpoint, as the replay does. The cost per message (ns/msg) should not
// grow with the session: compare it across sizes.
func BenchmarkPresetWalk(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		h := benchHistory(n)
		for _, d := range presetDefs() {
			b.Run(fmt.Sprintf("%s/msgs=%d", d.Name, n), func(b *testing.B) {
				p, err := New(d.Name, nil)
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					walkFast(p, h)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(h)), "ns/msg")
			})
		}
	}
}

// walkFast is walk with the running sums, the turn starts and the result
// marks kept as the replay keeps them, and its own history lent as the
// replay lends it (Checkpoint.Owned).
func walkFast(p Policy, msgs []corpus.Message) []corpus.Message {
	var h []corpus.Message
	at := Checkpoint{Turns: []TurnStart{}, Results: ResultMarks(p), Owned: true}
	var prev *corpus.Message
	for i := range msgs {
		m := &msgs[i]
		if p.Checkpoint("", prev, m) {
			at.Request = i
			if o := p.Compact(h, at); o.Strategy != None {
				adoptInto(&h, &at, p, o, ChangedFrom(h, o))
				at.Owned = o.Owned
			}
		}
		appendInto(&h, &at, p, m)
		prev = m
	}
	return h
}

// BenchmarkClearStageWalk walks the presets with a clear stage over long
// sessions that never give it anything to clear: plain text turns, the
// same with three small tool results early on (under every preset's keep
// budget), and real turns of 25 steps with thinking beside every
// assistant message's text (anthropic-context-editing's clear-thinking
// stage drops it from every turn but the last), and the same as one real
// turn (nothing to drop). Each checkpoint used to scan the whole history
// for the clear stage's newest stub and hand it all to clear-tool-results'
// keep walk, and the clear-thinking stage scanned it from the start for
// droppable thinking, then read its window (in one turn, the session) back
// from the end, so ns/msg grew with the session; it should be flat between
// the two sizes; a drop of thinking rewrites the dropped messages in the
// walk's own history (Checkpoint.Owned) instead of copying it (README,
// Speed).
func BenchmarkClearStageWalk(b *testing.B) {
	for _, n := range []int{4000, 16000} {
		for _, kind := range []string{"plain", "small-results", "thinking", "thinking-one-turn"} {
			h := plainHistory(n, kind)
			for _, name := range []string{"anthropic-context-editing", "gemini-cli", "opencode", "swe-agent"} {
				benchClearWalk(b, name, kind, h)
			}
		}
		// The count's blind spots: it stays above the stage's bound while
		// nothing gets cleared, one session per preset (blindSpotHistory).
		// Each checkpoint read the history back to the stage's newest stub
		// and handed it to clear-tool-results until the result marks
		// (Checkpoint.Results) settled them.
		for _, name := range []string{"gemini-cli", "opencode", "swe-agent"} {
			benchClearWalk(b, name, "blind-spot", blindSpotHistory(n, name))
		}
	}
}

func benchClearWalk(b *testing.B, name, kind string, h []corpus.Message) {
	b.Run(fmt.Sprintf("%s/%s/msgs=%d", name, kind, len(h)), func(b *testing.B) {
		p, err := New(name, nil)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			walkFast(p, h)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(h)), "ns/msg")
	})
}

// blindSpotHistory is plainHistory(n, "plain") with, after the first
// turn, tool steps whose results keep preset's clear stage above the
// bound its count gives (clearStage.nothingToClear) while it never
// clears anything:
//   - gemini-cli: 7 results of 9,000 tokens (63,000: the newest 5 are
//     kept, and the 18,000 before them fall short of min_reclaim 30,000);
//   - opencode: 90 results of 500 tokens (under its cap; 45,000: the
//     newest 80 are kept, 5,000 fall short of min_reclaim 20,000);
//   - swe-agent: 7 results of one line ("ok"), more than its 5 kept and
//     each shorter than its stub, which is then never written.
func blindSpotHistory(n int, preset string) []corpus.Message {
	results, text := 7, "ok"
	switch preset {
	case "gemini-cli":
		text = strings.Repeat("abcd", 9000)
	case "opencode":
		results, text = 90, strings.Repeat("abcd", 500)
	}
	plain := plainHistory(n, "plain")
	h := append(make([]corpus.Message, 0, n+2*results), plain[:2]...)
	for k := range results {
		cid := "c" + strconv.Itoa(k)
		h = append(h,
			corpus.Message{ID: "a" + cid, Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: cid, ToolName: "bash", Args: []byte(`{"command":"ls"}`)}}},
			corpus.Message{ID: "t" + cid, Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: cid, ToolName: "bash", Text: text}}})
	}
	return append(h, plain[2:n-len(h)+2]...)
}

// plainHistory is n messages of alternating user and assistant text of 48
// characters (12 chars4 tokens each: anthropic-context-editing's clear
// stage starts running past 100,000 tokens, about 8,300 messages). kind
// "small-results" adds three small tool steps after the first turn;
// "thinking" gives every assistant message a thinking block of 48
// characters before its text and makes 24 of every 25 user messages
// synthetic (the agent's own "continue"), so a real turn is 25 steps;
// "thinking-one-turn" makes every user message but the first synthetic: one
// real turn, whose thinking the stage keeps (its window is the session).
func plainHistory(n int, kind string) []corpus.Message {
	text := strings.Repeat("plain turn ", 5)[:48]
	reply := []corpus.Block{{Kind: corpus.KindText, Text: text}}
	thinking := strings.HasPrefix(kind, "thinking")
	if thinking {
		reply = []corpus.Block{{Kind: corpus.KindThinking, Text: text, Signature: "sig"}, {Kind: corpus.KindText, Text: text}}
	}
	h := make([]corpus.Message, 0, n)
	for i := 0; len(h) < n; i++ {
		id := strconv.Itoa(i)
		h = append(h, corpus.Message{ID: "u" + id, Role: corpus.RoleUser, Synthetic: thinking && i%25 != 0 || kind == "thinking-one-turn" && i != 0,
			Blocks: []corpus.Block{{Kind: corpus.KindText, Text: text}}})
		if kind == "small-results" && i == 0 {
			for k := range 3 {
				cid := "c" + strconv.Itoa(k)
				h = append(h,
					corpus.Message{ID: "a" + cid, Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: cid, ToolName: "bash", Args: []byte(`{"command":"ls"}`)}}},
					corpus.Message{ID: "t" + cid, Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: cid, ToolName: "bash", Text: strings.Repeat("file.go\n", 25)}}})
			}
		}
		h = append(h, corpus.Message{ID: "a" + id, Role: corpus.RoleAssistant, Blocks: reply})
	}
	return h[:n]
}
