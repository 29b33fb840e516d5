package synth

import (
	"math/rand/v2"
	"time"

	"github.com/calib-dev/calib/corpus"
)

// Extend returns a copy of s with turns synthetic turns appended, each
// shaped like s's own: a user message, then assistant messages with text
// and tool calls (and, if s records tool results as messages, one tool
// message per call), with sizes drawn around the means measured per role
// and block kind in s. It lets a CI job chain 50 rotations from a small
// fixture. The same (s, turns, seed) always gives the same messages, and
// Extend(s, n, seed) is a prefix of Extend(s, n+k, seed). s is never
// modified; the copy shares s's messages and strings.
func Extend(s *corpus.Session, turns int, seed uint64) *corpus.Session {
	out := *s
	out.Messages = make([]corpus.Message, len(s.Messages), len(s.Messages)+max(turns, 0)*8)
	copy(out.Messages, s.Messages)
	out.Recorded.Compactions = append([]corpus.Compaction(nil), s.Recorded.Compactions...)
	out.Warnings = append([]corpus.Warning(nil), s.Warnings...)
	if turns <= 0 {
		return &out
	}
	out.Messages = NewExtension(s, seed).append(out.Messages, turns)
	return &out
}

// Extension is the stream of turns Extend appends to a session, given a
// few turns at a time: a chain of rotations walks each batch and lets go
// of it, so it never holds the whole extension (replay.Chain). Successive
// Turns calls give, concatenated, what Extend appends for their sum.
type Extension struct{ g extender }

// NewExtension starts s's extension; s is only read.
func NewExtension(s *corpus.Session, seed uint64) *Extension {
	e := &Extension{g: extender{r: newRand(seed), p: measureShape(s)}}
	if n := len(s.Messages); n > 0 {
		e.g.at = s.Messages[n-1].Time
	}
	return e
}

// Turns returns the messages of the next n turns, in a new slice.
func (e *Extension) Turns(n int) []corpus.Message {
	return e.append(make([]corpus.Message, 0, max(n, 0)*8), n)
}

func (e *Extension) append(dst []corpus.Message, n int) []corpus.Message {
	for range n {
		dst = e.g.turn(dst)
	}
	return dst
}

// shape is a session's profile: mean sizes in bytes and mean counts per
// turn and per message.
type shape struct {
	userText, assistantText int
	args, payload           int
	assistantsPerTurn       float64 // assistant messages per user turn
	callsPerAssistant       float64 // tool_use blocks per assistant message
	toolMessages            bool    // tool results are messages of their own (clai's HTTP engine, OpenCode)
	tools                   []string
	source                  string // the assistant messages' writer (claude-code, codex, ...)
}

// Defaults for a session too small to measure: a CLI-like turn.
func defaultShape() shape {
	return shape{userText: 240, assistantText: 1800, args: 120, payload: 2400,
		assistantsPerTurn: 1, callsPerAssistant: 2, tools: []string{"bash", "read_file", "edit_file"}}
}

func measureShape(s *corpus.Session) shape {
	var users, assistants, uses, results, toolMsgs int
	var userBytes, asstBytes, argBytes, payBytes int
	seen := map[string]bool{}
	sh := shape{}
	for i := range s.Messages {
		m := &s.Messages[i]
		if m.Summary || m.Sidechain || m.Source == "clai-compaction" {
			continue
		}
		switch m.Role {
		case corpus.RoleUser:
			users++
		case corpus.RoleAssistant:
			assistants++
			if m.Source != "" {
				sh.source = m.Source
			}
		case corpus.RoleTool:
			toolMsgs++
		}
		for j := range m.Blocks {
			b := &m.Blocks[j]
			switch b.Kind {
			case corpus.KindText:
				if m.Role == corpus.RoleUser {
					userBytes += len(b.Text)
				} else if m.Role == corpus.RoleAssistant {
					asstBytes += len(b.Text)
				}
			case corpus.KindToolUse:
				uses++
				argBytes += len(b.Args)
				if b.ToolName != "" && !seen[b.ToolName] {
					seen[b.ToolName] = true
					sh.tools = append(sh.tools, b.ToolName)
				}
			case corpus.KindToolResult:
				results++
				payBytes += len(b.Payload) + len(b.Text)
			}
		}
	}
	d := defaultShape()
	sh.userText = mean(userBytes, users, d.userText)
	sh.assistantText = mean(asstBytes, assistants, d.assistantText)
	sh.args = mean(argBytes, uses, d.args)
	sh.payload = mean(payBytes, results, d.payload)
	sh.assistantsPerTurn, sh.callsPerAssistant = d.assistantsPerTurn, d.callsPerAssistant
	if users > 0 && assistants > 0 {
		sh.assistantsPerTurn = float64(assistants) / float64(users)
		sh.callsPerAssistant = float64(uses) / float64(assistants)
	}
	sh.toolMessages = toolMsgs > 0
	if len(sh.tools) == 0 {
		sh.tools = d.tools
	}
	return sh
}

func mean(total, n, def int) int {
	if n == 0 {
		return def
	}
	return total / n
}

type extender struct {
	r  *rand.Rand
	p  shape
	at time.Time
}

// around returns a size between half and one and a half times m: the mean
// stays m.
func (g *extender) around(m int) int {
	if m <= 1 {
		return m
	}
	return between(g.r, m/2, m+m/2)
}

// count draws an integer with mean f: its floor, plus one with the
// probability of its fraction.
func (g *extender) count(f float64) int {
	n := int(f)
	if g.r.Float64() < f-float64(n) {
		n++
	}
	return n
}

func (g *extender) uuid() string {
	h := randHex(g.r, 32)
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + string("89ab"[g.r.IntN(4)]) + h[17:20] + "-" + h[20:32]
}

func (g *extender) msg(role corpus.Role, blocks ...corpus.Block) corpus.Message {
	if !g.at.IsZero() {
		g.at = g.at.Add(time.Second)
	}
	m := corpus.Message{ID: g.uuid(), Role: role, Blocks: blocks, Time: g.at}
	if role == corpus.RoleAssistant {
		m.Source = g.p.source
	}
	return m
}

func (g *extender) turn(dst []corpus.Message) []corpus.Message {
	dst = append(dst, g.msg(corpus.RoleUser, corpus.Block{Kind: corpus.KindText, Text: text(g.r, g.around(g.p.userText))}))
	rounds := max(1, g.count(g.p.assistantsPerTurn))
	for range rounds {
		blocks := []corpus.Block{{Kind: corpus.KindText, Text: text(g.r, g.around(g.p.assistantText))}}
		calls := g.count(g.p.callsPerAssistant)
		for range calls {
			blocks = append(blocks, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: "toolu_" + randAlnum(g.r, 24),
				ToolName: g.p.tools[g.r.IntN(len(g.p.tools))], Args: g.args()})
		}
		dst = append(dst, g.msg(corpus.RoleAssistant, blocks...))
		if !g.p.toolMessages {
			continue // CLI sessions keep results in assistant_tool_calls only
		}
		for _, b := range blocks[1:] {
			dst = append(dst, g.msg(corpus.RoleTool, corpus.Block{Kind: corpus.KindToolResult,
				ToolCallID: b.ToolCallID, Payload: g.payload()}))
		}
	}
	return dst
}

// args is a compact JSON object as serde_json writes it (sorted keys).
func (g *extender) args() []byte {
	n := max(0, g.around(g.p.args)-len(`{"command":""}`))
	b := append(make([]byte, 0, n+32), `{"command":`...)
	b = claiString(b, text(g.r, n))
	return append(b, '}')
}

func (g *extender) payload() []byte {
	n := max(0, g.around(g.p.payload)-len(`{"exit_code":0,"stdout":""}`))
	b := append(make([]byte, 0, n+64), `{"exit_code":0,"stdout":`...)
	b = claiString(b, text(g.r, n))
	return append(b, '}')
}
