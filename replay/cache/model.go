package cache

import "time"

// Cause flags say what changed in the message list since the previous
// request of the same stream. Each is a break event of the real logs.
type Cause uint8

const (
	// Rewrite: a message an earlier request sent was changed or removed
	// (a microcompact clear, a persisted output, a policy's truncation).
	// Claude Code: 4 of 4 microcompact_boundary lines and 9 of 9 silent
	// clears read exactly H afterwards.
	Rewrite Cause = 1 << iota
	// Summary: a full compaction replaced the history before it by a
	// summary (4 of 4 isCompactSummary lines read H afterwards).
	Summary
	// Thinking: the first request with extended thinking on; Anthropic
	// invalidates message-level entries when thinking parameters change
	// (8 of 8 such requests read H).
	Thinking
	// TurnEnd: the session's first stop-hook summary (Claude Code
	// 2.0.60–2.1.8: 7 of 7 read H; one later stop hook did not break, so
	// only the first counts). Mechanism unknown.
	TurnEnd
)

// Request is one API request as the cache sees it. Token counts are in
// the provider's tokens (already scaled by the meter).
type Request struct {
	// Stream is the cache lineage: "" for the main thread, an id for each
	// subagent or inline sidechain run (separate caches: a main-thread
	// request after a 35-request sidechain read exactly the main prefix).
	Stream string
	// Model keys the cache too: a model switch reads nothing (5 of 5).
	Model string
	// Send is when the request was sent and Done when its response ended;
	// zero times mean the log has none, and the cache never expires.
	Send, Done time.Time
	// Prompt is every input token: overhead + messages.
	Prompt int
	// Kept is how many leading tokens are identical to the previous
	// request of the stream (BreakPrefix only; append-only requests keep
	// the whole previous prompt).
	Kept int
	// Cause says which break events happened since the previous request.
	Cause Cause
	// Tail is the tokens after the last-completed tool result in tool_use
	// order (LastCompleted only): uncached now, written by the next request.
	Tail int
	// Output is the response's tokens.
	Output int
	// Summarizer marks a summarizer call: its prompt differs from the
	// agent's, so it is all uncached and leaves the agent's cache alone.
	Summarizer bool
}

// Reason says which rule decided a request's cache read.
type Reason string

const (
	ReasonFirst      Reason = "first"      // the session's first request: the recorded cross-session read
	ReasonNewStream  Reason = "new-stream" // no entry for this stream and model
	ReasonExpired    Reason = "expired"    // TTL + slack passed since the entry's last use
	ReasonSummary    Reason = "summary"    // full compaction
	ReasonBreak      Reason = "break"      // rewrite, thinking switch or first stop hook
	ReasonPrefix     Reason = "prefix"     // BreakPrefix: the unchanged prefix
	ReasonKept       Reason = "kept"       // nothing changed: everything the last request cached
	ReasonSummarizer Reason = "summarizer" // an uncached summarizer call
	ReasonNoCache    Reason = "none"       // provider none
)

// Step is the model's answer for one request.
type Step struct {
	Tokens
	Reason Reason
	// Break is true when the request read less than the previous request
	// of its stream left cached, or a break rule applied (ReasonBreak,
	// ReasonSummary): the cache_breaks metric.
	Break bool
	// Billed is the input side in input-token equivalents.
	Billed float64
}

// Session holds what the model needs to know about a session beyond its
// requests.
type Session struct {
	// FirstRead is the recorded cache read of the session's first request:
	// a head cached by other sessions (13,539–17,387 in 10 sessions, 0 in
	// 3 and in every 1.0.53 file). It is also what an expired or new stream
	// reads (03aa9bb5 read exactly its first read after a 942 s gap). For
	// a counterfactual policy it stays as recorded: it depends on other
	// sessions.
	FirstRead int
	// Head is H, what a break falls back to.
	Head int
}

type streamKey struct{ stream, model string }

type entry struct {
	cached int // prefix the last request left in the cache
	last   time.Time
}

// Model is the cache state of one session. It is not safe for concurrent
// use; a replay owns one per session.
type Model struct {
	p       Params
	rates   Rates
	s       Session
	entries map[streamKey]*entry
	started bool
	// last is the entry of the previous request: almost every request
	// continues the same stream and model, so the map is rarely hashed.
	lastKey streamKey
	last    *entry
}

// New starts a session's cache.
func New(p Params, s Session) *Model {
	return &Model{p: p, rates: RatesFor(p.Provider), s: s, entries: make(map[streamKey]*entry, 2)}
}

// Params returns the parameters the model runs with.
func (m *Model) Params() Params { return m.p }

// Rates returns the billing multipliers.
func (m *Model) Rates() Rates { return m.rates }

// Step prices one request and updates the cache. Cost O(1).
func (m *Model) Step(r Request) Step {
	P := max(r.Prompt, 0)
	if r.Summarizer {
		return m.finish(Step{Tokens: Tokens{Uncached: P, Output: r.Output}, Reason: ReasonSummarizer})
	}
	if m.p.Provider == NoCache {
		return m.finish(Step{Tokens: Tokens{Uncached: P, Output: r.Output}, Reason: ReasonNoCache})
	}
	key := streamKey{r.Stream, r.Model}
	e := m.last
	if e == nil || key != m.lastKey {
		e = m.entries[key]
	}
	var read int
	var why Reason
	switch {
	case !m.started:
		read, why = m.s.FirstRead, ReasonFirst
	case e == nil:
		read, why = m.s.FirstRead, ReasonNewStream
	case m.expired(e, r.Send):
		read, why = m.s.FirstRead, ReasonExpired
	case m.p.Break == BreakHead && r.Cause&Summary != 0:
		read, why = m.s.Head, ReasonSummary
	case m.p.Break == BreakHead && r.Cause&(Rewrite|Thinking|TurnEnd) != 0:
		read, why = m.s.Head, ReasonBreak
	case m.p.Break == BreakPrefix && r.Cause&Thinking != 0:
		read, why = min(m.s.Head, r.Kept), ReasonBreak
	case m.p.Break == BreakPrefix && r.Cause&Summary != 0:
		read, why = min(e.cached, r.Kept), ReasonSummary
	case m.p.Break == BreakPrefix && r.Cause&Rewrite != 0:
		read, why = min(e.cached, r.Kept), ReasonPrefix
	default:
		read, why = e.cached, ReasonKept
	}
	m.started = true
	read = m.cacheable(min(read, P))
	// The tail rule is the prototype's: it applies where the read comes
	// from the stream's own entry, not after a rewrite or a fresh start,
	// where the whole rewritten region is written anyway.
	tail := 0
	if m.p.Breakpoint == LastCompleted && (why == ReasonKept || (why == ReasonBreak && r.Cause&Rewrite == 0)) {
		tail = min(max(r.Tail, 0), P-read)
	}
	write := P - read - tail
	cached := read + write
	if c := m.cacheable(cached); c < cached {
		// Below the minimum (or between granularity steps) the rest is
		// sent but not cached.
		write = c - read
		if write < 0 {
			write = 0
		}
		cached = read + write
	}
	uncached := P - read - write
	st := Step{Reason: why, Tokens: Tokens{Uncached: uncached, Read: read, Output: r.Output}}
	switch {
	case m.p.Provider != Anthropic:
		// No write premium and no write counter: OpenAI and Gemini report
		// newly cached tokens as plain input.
		st.Uncached += write
	case m.p.TTL == time.Hour:
		st.Write1h = write
	default:
		st.Write5m = write
	}
	if e == nil {
		e = &entry{}
		m.entries[key] = e
		// A switch of model within a stream (/model) reads nothing of
		// what the previous request left cached under the other model: a
		// break by the definition (a read below what was cached), which
		// only a switch back used to count.
		if l := m.last; l != nil && m.lastKey.stream == key.stream && m.lastKey.model != key.model && !m.expired(l, r.Send) {
			st.Break = read < l.cached
		}
	} else if why != ReasonFirst {
		// A break rule (a rewrite, a summary, a thinking switch) breaks
		// the cache even where the head it reads is more than this stream
		// had cached (a subagent's cache is smaller than the main thread's
		// head): counted by the rule, as the per-request table names it.
		st.Break = read < e.cached || why == ReasonBreak || why == ReasonSummary
	}
	m.last, m.lastKey = e, key
	e.cached = cached
	e.last = r.Done
	if e.last.IsZero() {
		e.last = r.Send
	}
	return m.finish(st)
}

func (m *Model) finish(st Step) Step {
	st.Billed = m.rates.Billed(st.Tokens)
	return st
}

// expired reports whether the entry outlived its TTL at send time. Without
// timestamps every request counts as within the TTL.
func (m *Model) expired(e *entry, send time.Time) bool {
	if send.IsZero() || e.last.IsZero() {
		return false
	}
	return send.Sub(e.last) > m.p.TTL+m.p.Slack
}

// cacheable rounds a prefix down to what the provider can cache.
func (m *Model) cacheable(n int) int {
	if n < m.p.MinPrefix {
		return 0
	}
	if g := m.p.Granularity; g > 1 {
		n -= n % g
	}
	return n
}
