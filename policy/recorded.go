package policy

import (
	"sort"
	"strconv"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/claudecode"
)

// The recorded policy replays exactly what the agent did, at the positions
// it recorded, so that calib can be checked against the recording (cost
// agreement) and every sweep can show the agent's actual behaviour as a
// baseline row. It decides nothing: at each request it applies the
// recorded events that took effect since the previous request.
//
//   - Claude Code microcompact clears (and any recorded clear event with
//     ids and a position, such as persisted tool outputs): the named tool
//     results become the marker the agent used.
//   - Full compactions (Claude Code isCompactSummary / compact_boundary,
//     clai local and rotation summaries): the summary replaces the history
//     before it (clai: the recorded window).
//   - Codex compacted items: the summary replaces the conversation; system
//     and developer messages stay.
//   - smith: the compacted session.json history, at the point it was
//     written (after the last message it holds).
//
// Every request is a checkpoint (right before each assistant message).

// Markers the agents put where a cleared tool result was.
const (
	// StubAuto picks the marker by agent version.
	StubAuto      = "auto"
	StubPersisted = "persisted"
	StubCleared   = "cleared"
)

func recordedDef() Def {
	return Def{
		Name:    "recorded",
		Summary: "what the agent did, as recorded: its clears, compactions, digests and compacted histories at their recorded positions (a baseline; chosen by name only)",
		Specs: []ParamSpec{
			{Name: "stub", Kind: Enum, Default: StubAuto, Choices: []string{StubAuto, StubPersisted, StubCleared},
				Help: "what a cleared Claude Code result becomes: auto (2.1.x: the <persisted-output> marker; older: " + ClaudeCodeStub + "), persisted or cleared"},
			{Name: "overhead_tokens", Kind: Int, Default: "0", Min: 0, Max: MaxTokens,
				Help: "tokens of the prompt the log does not hold, added to tokens_sent (the cost layer infers its own from recorded usage)"},
			{Name: "meter", Kind: Enum, Default: MeterChars4, Choices: []string{MeterChars4, MeterBytes4, MeterO200k},
				Help: "how tokens_sent counts the history (chars4: Claude Code's own estimate)"},
		},
		New:    newRecorded,
		Stages: recordedStages(),
	}
}

// Recorded is the recorded policy.
type Recorded struct {
	params   Params
	stub     string
	overhead int
	meter    *Meter
}

func newRecorded(v Values) (Policy, error) {
	m, err := NewMeter(v.Str("meter"), MeterOptions{ImageTokens: 1600, DocumentTokens: 5000, Memo: v.memo})
	if err != nil {
		return nil, err
	}
	return &Recorded{params: v.Params(), stub: v.Str("stub"), overhead: v.Int("overhead_tokens"), meter: m}, nil
}

func (p *Recorded) Name() string { return "recorded" }

// ReplaysRecording marks the policy as the agent's own behaviour
// (Recording).
func (p *Recorded) ReplaysRecording() {}
func (p *Recorded) Params() Params    { return p.params }

// Checkpoint: every request, i.e. right before every assistant message.
func (p *Recorded) Checkpoint(_ corpus.Format, prev, next *corpus.Message) bool {
	return next.Role == corpus.RoleAssistant
}

// Metering is the meter and overhead_tokens (policy.Metered).
func (p *Recorded) Metering() (*Meter, int) { return p.meter, p.overhead }

// Measure counts the meter's units; there is no trigger to count towards.
func (p *Recorded) Measure(m *corpus.Message) (units, count, thinking int64) {
	return p.meter.Message(m), 0, 0
}

// Compact applies the recorded events in (previous request, at.Next].
func (p *Recorded) Compact(h []corpus.Message, at Checkpoint) Outcome {
	before := p.meter.Tokens(at.Units) + p.overhead
	o := Outcome{History: h, Strategy: None, BeforeTokens: before, AfterTokens: before, ReachedTarget: true,
		Units: at.Units, Count: at.Count, Thinking: at.Thinking}
	s := at.Session
	if s == nil || at.Next < 0 || at.Next > len(s.Messages) {
		return o
	}
	x := at.recorded()
	evs := x.eventsOf(s)
	lo := previousRequest(s, at.Next, x.main)
	i := sort.Search(len(evs), func(i int) bool { return evs[i].at > lo })
	out, units := h, at.Units
	// Lent the history (at.Owned), clears rewrite its messages in place
	// and w keeps what they replaced; an event that makes a new history
	// puts h back first.
	var w *overwrite
	if at.Owned {
		w = &overwrite{}
	}
	strategy := None
	var reports stageReports
	for ; i < len(evs) && evs[i].at <= at.Next; i++ {
		e := evs[i]
		t0 := p.meter.Tokens(units) + p.overhead
		var st Strategy
		var eff effect
		out, units, st, eff = p.apply(s, x, e, out, units, at.Next, w)
		if st == None {
			continue
		}
		if w != nil && !sameSlice(out, h) {
			w.undo(h)
			w = nil
		}
		if strategy == None || st == Summarized {
			strategy = st
		}
		reports.add(e.stage, t0, p.meter.Tokens(units)+p.overhead, eff)
	}
	if strategy == None {
		return o
	}
	// Every history Compact returns is its own: h rewritten in place, or
	// a new array.
	o.History, o.Strategy, o.Units, o.Stages, o.Owned = out, strategy, units, reports.list(), true
	if w != nil {
		o.Overwrote, o.OverwroteAt = w.msgs, w.at
	}
	o.AfterTokens = p.meter.Tokens(units) + p.overhead
	o.Removed = max(0, len(h)-len(out))
	if strategy == Summarized {
		o.Summarizer = "recorded"
		for i := range out {
			if out[i].Summary {
				o.SummaryTokens += p.meter.Tokens(p.meter.Message(&out[i]))
			}
		}
	}
	return o
}

// recordedEvent is one recorded change of the working history, taking
// effect before Session.Messages[at].
type recordedEvent struct {
	at    int
	c     *corpus.Compaction // nil: smith's recorded history
	stage string             // recordedStages
}

// recordedEvents lists a session's events by position.
func recordedEvents(s *corpus.Session) []recordedEvent {
	var evs []recordedEvent
	for i := range s.Recorded.Compactions {
		c := &s.Recorded.Compactions[i]
		if c.AtMessage >= 0 {
			evs = append(evs, recordedEvent{at: c.AtMessage, c: c, stage: recordedStage(c)})
		}
	}
	if at := smithWrittenAt(s); at >= 0 {
		evs = append(evs, recordedEvent{at: at, stage: RecordedHistory})
	}
	evs = append(evs, persistedClears(s)...)
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at < evs[j].at })
	return evs
}

// persistedClears are the clears of Claude Code's persisted outputs that
// no boundary line recorded (2.0.60–2.1.6): one event per request at which
// the reader placed some (corpus.Persisted.AtMessage), clearing their ids.
func persistedClears(s *corpus.Session) []recordedEvent {
	var evs []recordedEvent
	byAt := map[int]int{}
	for _, p := range s.Recorded.Persisted {
		if p.Boundary >= 0 || p.AtMessage < 0 {
			continue // a boundary's event clears it, or it was never sent
		}
		k, ok := byAt[p.AtMessage]
		if !ok {
			k = len(evs)
			byAt[p.AtMessage] = k
			evs = append(evs, recordedEvent{at: p.AtMessage, c: &corpus.Compaction{Strategy: "persisted", AtMessage: p.AtMessage, Index: -1},
				stage: RecordedPersisted})
		}
		evs[k].c.ClearedIDs = append(evs[k].c.ClearedIDs, p.ToolCallID)
	}
	return evs
}

// smithWrittenAt is where smith's compacted history took effect: after the
// last transcript message it holds (session.json is written after each
// completed turn); -1 when there is none or it holds no compaction.
func smithWrittenAt(s *corpus.Session) int {
	hist := s.Recorded.History
	if s.Format != corpus.FormatSmithTranscript || len(hist) == 0 {
		return -1
	}
	compacted := false
	for i := range hist {
		if hist[i].Summary || hist[i].Synthetic {
			compacted = true
		}
	}
	if !compacted && len(hist) >= len(s.Messages) {
		return -1
	}
	last := hist[len(hist)-1].ID
	for i := len(s.Messages) - 1; i >= 0; i-- {
		if s.Messages[i].ID == last {
			return i + 1
		}
	}
	return -1
}

// previousRequest is the index of the assistant message before next that
// was a checkpoint (-1 if none): events after it and up to next apply now.
// side says that s has a main thread, whose checkpoints skip sidechains.
func previousRequest(s *corpus.Session, next int, side bool) int {
	for i := next - 1; i >= 0; i-- {
		m := &s.Messages[i]
		if m.Role == corpus.RoleAssistant && !(m.Sidechain && side) {
			return i
		}
	}
	return -1
}

func hasMain(s *corpus.Session) bool {
	for i := range s.Messages {
		if !s.Messages[i].Sidechain {
			return true
		}
	}
	return false
}

// apply performs one event on h; units is kept as the meter's sum over h.
// The effect is what the event did, for its stage report.
func (p *Recorded) apply(s *corpus.Session, x *RecordedIndex, e recordedEvent, h []corpus.Message, units int64, next int, w *overwrite) ([]corpus.Message, int64, Strategy, effect) {
	tail := tailSince(s, e.at, next, len(h), x.main)
	switch {
	case e.c == nil:
		return p.replace(h, tail, s.Recorded.History, units)
	case e.c.Clearing():
		out, u, eff := p.clear(s, x, h, e.c.ClearedIDs, units, w)
		if eff.touched == 0 {
			return h, units, None, effect{}
		}
		return out, u, Truncated, eff
	case e.c.Strategy == "compacted":
		return p.codexCompacted(s, e.c, h, tail, units)
	}
	sum, ok := compactionSummary(s, e.c)
	if !ok {
		return h, units, None, effect{}
	}
	if from, to := indexByID(h, e.c.SourceFrom), indexByID(h, e.c.SourceTo); from >= 0 && to >= from {
		// clai: the recorded window becomes the summary.
		out := make([]corpus.Message, 0, len(h)-(to-from))
		out = append(append(append(out, h[:from]...), sum), h[to+1:]...)
		return out, units - p.sum(h[from:to+1]) + p.meter.Message(&sum), Summarized, replaced(h[from:to+1], out[from:from+1])
	}
	return p.replace(h, tail, []corpus.Message{sum}, units)
}

// replace makes head + the last tail messages of h the history.
func (p *Recorded) replace(h []corpus.Message, tail int, head []corpus.Message, units int64) ([]corpus.Message, int64, Strategy, effect) {
	out := make([]corpus.Message, 0, len(head)+tail)
	out = append(append(out, head...), h[len(h)-tail:]...)
	return out, p.sum(out), Summarized, replaced(h[:len(h)-tail], head)
}

// tailSince counts the messages of h appended after position at (those
// between the event and the checkpoint, which follow the summary).
func tailSince(s *corpus.Session, at, next, hlen int, side bool) int {
	n := 0
	for i := max(at, 0); i < next && i < len(s.Messages); i++ {
		m := &s.Messages[i]
		if (m.Sidechain && side) || m.Summary {
			continue
		}
		n++
	}
	return min(n, hlen)
}

func (p *Recorded) sum(h []corpus.Message) int64 {
	var u int64
	for i := range h {
		u += p.meter.Message(&h[i])
	}
	return u
}

// compactionSummary finds the recorded summary of a compaction, or builds a
// user message from its text when the message is not in the history.
func compactionSummary(s *corpus.Session, c *corpus.Compaction) (corpus.Message, bool) {
	if c.SummaryID != "" {
		for i := c.AtMessage; i >= 0 && i < len(s.Messages); i++ {
			if s.Messages[i].ID == c.SummaryID {
				return s.Messages[i], true
			}
			if i > c.AtMessage+8 {
				break // the summary sits at or right after the boundary
			}
		}
	}
	if c.Summary == "" {
		return corpus.Message{}, false
	}
	return corpus.Message{ID: "recorded-summary-" + c.ID, Role: corpus.RoleUser, Summary: true, Line: c.Line,
		Blocks: []corpus.Block{{Kind: corpus.KindText, Text: c.Summary}}}, true
}

func indexByID(h []corpus.Message, id string) int {
	if id == "" {
		return -1
	}
	for i := range h {
		if h[i].ID == id {
			return i
		}
	}
	return -1
}

// codexCompacted: Codex rebuilds the history from its initial context and
// the summary; the system and developer messages stay, the conversation
// before the item becomes the summary.
func (p *Recorded) codexCompacted(s *corpus.Session, c *corpus.Compaction, h []corpus.Message, tail int, units int64) ([]corpus.Message, int64, Strategy, effect) {
	if c.Summary == "" {
		return h, units, None, effect{}
	}
	var head []corpus.Message
	for i := range h[:len(h)-tail] {
		if h[i].Role == corpus.RoleSystem {
			head = append(head, h[i])
		}
	}
	head = append(head, corpus.Message{ID: "recorded-summary-" + strconv.Itoa(c.Line), Role: corpus.RoleUser, Summary: true, Line: c.Line,
		Blocks: []corpus.Block{{Kind: corpus.KindText, Text: c.Summary}}})
	return p.replace(h, tail, head, units)
}

// clear replaces the named tool results by the agent's marker (new block
// slices: the loaded session is never written to); the effect lists the
// results it changed. With w (h lent, and still the history) it replaces
// h's messages in place, keeping the old ones in w; otherwise it copies h
// once. It reads only the messages holding the results when the index
// finds them (RecordedIndex.holders), all of h otherwise.
func (p *Recorded) clear(s *corpus.Session, x *RecordedIndex, h []corpus.Message, ids []string, units int64, w *overwrite) ([]corpus.Message, int64, effect) {
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	var out []corpus.Message
	var eff effect
	visit := func(i int) {
		m := &h[i]
		var nb []corpus.Block
		for j := range m.Blocks {
			b := &m.Blocks[j]
			if b.Kind != corpus.KindToolResult || !set[b.ToolCallID] {
				continue
			}
			stub := p.marker(s, x, b.ToolCallID)
			if b.Text == stub {
				continue
			}
			if nb == nil {
				nb = append([]corpus.Block(nil), m.Blocks...)
			}
			nb[j].Text, nb[j].Payload = stub, nil
			eff.touched++
			eff.bytes += int64(len(b.Text) - len(stub) + len(b.Payload))
			eff.hid = append(eff.hid, b.ToolCallID)
		}
		if nb == nil {
			return
		}
		units -= p.meter.Message(m)
		nm := *m
		nm.Blocks = nb
		units += p.meter.Message(&nm)
		switch {
		case w != nil:
			w.keep(h, i, i+1)
			h[i] = nm
			out = h
		case out == nil:
			out = append([]corpus.Message(nil), h...)
			fallthrough
		default:
			out[i] = nm
		}
	}
	if at, ok := holdersOf(s, x, h, ids); ok {
		for _, i := range at {
			visit(i)
		}
	} else {
		for i := range h {
			visit(i)
		}
	}
	if out == nil {
		return h, units, eff
	}
	return out, units, eff
}

// holdersOf is x.holders for a session that keeps no recorded history of
// its own (smith's session.json, whose messages may repeat the
// transcript's results).
func holdersOf(s *corpus.Session, x *RecordedIndex, h []corpus.Message, ids []string) ([]int, bool) {
	if len(s.Recorded.History) > 0 {
		return nil, false
	}
	return x.holders(s, h, ids)
}

// marker is the text a cleared result becomes.
func (p *Recorded) marker(s *corpus.Session, x *RecordedIndex, id string) string {
	stub := p.stub
	if stub != StubCleared {
		// A result the agent persisted was replaced by the marker that
		// names its file, whatever the version.
		x.locate(s)
		if m, ok := x.markers[id]; ok {
			return m
		}
	}
	if stub == StubAuto {
		stub = StubCleared
		if v := s.Meta.AgentVersion; s.Format == corpus.FormatClaudeCode && corpus.VersionAtLeast(v, "2.1") {
			stub = StubPersisted
		}
	}
	if stub == StubCleared {
		return ClaudeCodeStub
	}
	// Claude Code 2.1.x saves the output to a file and the model sees this
	// marker (in 2.1.9+ the agents list exactly the cleared ids as having
	// returned <persisted-output>).
	return claudecode.PersistedMarker(persistedPath(s, id))
}

// persistedPath is where Claude Code saves a cleared result of session s
// (claudecode.PersistedPath). A subagent's results live in its main
// session's folder; nil (no session) gives a path of the right shape that
// names no project.
func persistedPath(s *corpus.Session, id string) string {
	if s == nil {
		return claudecode.PersistedPath("/", "session", id)
	}
	sid := s.ID
	if s.Meta.Parent != "" {
		sid = s.Meta.Parent
	}
	sid, _, _ = strings.Cut(sid, "/")
	return claudecode.PersistedPath(s.Meta.Cwd, sid, id)
}
