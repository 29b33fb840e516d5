package cache

import (
	"fmt"
	"math"
	"slices"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// Sent is one request of a replay as the cost layer reads it. Tokens are
// in the policy's own meter (its tokens_sent figures).
type Sent struct {
	// Next is the index in Session.Messages of the message the request
	// produced (the checkpoint sits right before it), Response its content
	// bytes (corpus.Message.Bytes) and Thinking whether it holds thinking.
	Next     int
	Response int
	Thinking bool
	// Tokens is what the policy sent: its history plus its own overhead.
	// Overhead is that overhead where the policy tells it apart (0
	// otherwise): where recorded usage calibrates the session, the
	// calibration's overhead takes its place, so a policy's guess at the
	// unlogged prompt does not count twice.
	Tokens   int
	Overhead int
	// Strategy is the compaction at this request ("" or "none": none).
	// truncated and dropped rewrite sent messages; summarized and rotated
	// replace the history by a summary.
	Strategy policy.Strategy
	// Before is the policy's prompt before that compaction, and Summary
	// the tokens of the summary it wrote (0 when it wrote none).
	Before  int
	Summary int
}

// Options configure the cost of one session.
type Options struct {
	Params Params
	Prices Prices
	// PriceFile names the --prices file; with one, a model it and the
	// built-in table do not price is an error.
	PriceFile string
	// Model overrides the model of every request (--set model=).
	Model string
	// Faithful says the replay reproduces the recorded history (the
	// recorded policy): recorded prompts stay comparable after the agent's
	// own compactions. Otherwise only the requests before the first
	// compaction (the policy's or the agent's) calibrate.
	Faithful bool
	// DefaultScale is the provider tokens per metered token when no
	// request is steady (the 2.x steady median is 1.19).
	DefaultScale float64
	// SummaryPrompt is the tokens of the summarizer's own instructions
	// added to its input (Claude Code's /compact prompt: about 1,000, an
	// estimate from its quoted text).
	SummaryPrompt int
	// Hidden carries content the log does not hold (see Cost).
	Hidden bool
	// Hints say how the caller's user names a model and gives prices (a
	// command's flags); a session left unpriced gets them in its note.
	// Empty: the note says only what is missing.
	Hints PriceHints
}

// PriceHints are the caller's words for pricing an unpriced session.
type PriceHints struct {
	Model  string // how to name the model, e.g. "--set model=NAME"
	Prices string // how to give a price file, e.g. "--prices"
}

// hiddenMin is the smallest excess counted as hidden content: the
// findings' 2,000 tokens, above the per-request spread of steady steps.
const hiddenMin = 2000

// DefaultOptions are the figures the real logs support.
func DefaultOptions(p Params) Options {
	return Options{Params: p, Prices: NewPrices(BuiltinPrices()), DefaultScale: 1.19, SummaryPrompt: 1000, Hidden: true}
}

// RequestCost is one priced request.
type RequestCost struct {
	Step
	// Request is the replay's request number (-1 for a summarizer call,
	// which precedes its request); Line the response's line in the log.
	Request int `json:"request"`
	Line    int `json:"line"`
	Prompt  int `json:"prompt_tokens"`
	// Recorded is the provider's usage for this request, when the log has
	// it.
	Recorded *Tokens `json:"recorded,omitempty"`
	USD      float64 `json:"usd"`
}

// SessionCost is the cost of one replayed session.
type SessionCost struct {
	Session     string        `json:"session"`
	Model       string        `json:"model"`
	Params      Params        `json:"-"`
	Calibration Calibration   `json:"calibration"`
	Requests    []RequestCost `json:"-"`
	Totals      Totals        `json:"-"`
	// Priced is false when no price table row matched the model (usd 0).
	Priced bool `json:"priced"`
	// Compactions is what each compaction of the replay cost and saved.
	Compactions []CompactionCost `json:"compactions"`
	// Agreement compares the requests that recorded usage.
	Agreement *SessionAgreement `json:"-"`
	Notes     []string          `json:"notes,omitempty"`
}

// CompactionCost is one compaction's bill: the rewrite it caused and its
// summarizer call against the reads it saved on the requests after it
// (until the next compaction), in input-token equivalents.
type CompactionCost struct {
	Request int `json:"request"`
	// RewriteTokens is the cache write of the request after the
	// compaction; RewriteBilled what that request cost above an all-read
	// prompt of the same size.
	RewriteTokens int     `json:"rewrite_tokens"`
	RewriteBilled float64 `json:"rewrite_billed"`
	// SummaryBilled is the summarizer call (0 without one).
	SummaryBilled float64 `json:"summary_billed"`
	// SavedTokens is the prompt it removed, RequestsAfter the requests
	// that sent the shorter prompt, SavedBilled their saving at the read
	// rate (the removed prefix would have been a cache read).
	SavedTokens   int     `json:"saved_tokens"`
	RequestsAfter int     `json:"requests_after"`
	SavedBilled   float64 `json:"saved_billed"`
	// NetBilled is SavedBilled − RewriteBilled − SummaryBilled: positive
	// when the compaction paid for itself.
	NetBilled float64 `json:"net_billed"`
	first     int     // agent requests priced before it
}

// Cost prices a replayed session's requests through the cache model. It
// is linear in the session.
func Cost(s *corpus.Session, reqs []Sent, o Options) (*SessionCost, error) {
	// The rows are sized once (a request skipped below leaves some room):
	// one per request and per summarizer call, one per compaction.
	calls, compactions := 0, 0
	for _, r := range reqs {
		switch r.Strategy {
		case policy.Summarized:
			compactions++
			if r.Before > 0 {
				calls++
			}
		case policy.Truncated, policy.Dropped, policy.Rotated:
			compactions++
		}
	}
	sc := &SessionCost{Session: s.ID, Params: o.Params, Requests: make([]RequestCost, 0, len(reqs)+calls)}
	if compactions > 0 {
		sc.Compactions = make([]CompactionCost, 0, compactions)
	}
	usage := make(map[int]*corpus.Usage, len(s.Recorded.Usage))
	for i := range s.Recorded.Usage {
		if u := &s.Recorded.Usage[i]; u.AtMessage >= 0 && u.Requests == 1 {
			usage[u.AtMessage] = u
		}
	}
	fam := FamilyOf(s.Meta.AgentVersion)
	if s.Format != corpus.FormatClaudeCode {
		fam = FamilyUnknown
	}

	// Calibration: recorded prompts against the policy's own figures.
	diverged := len(reqs)
	if !o.Faithful {
		for k, r := range reqs {
			if r.Strategy != "" && r.Strategy != policy.None {
				diverged = k
				break
			}
		}
		if k := firstRecordedEvent(s, reqs); k < diverged {
			diverged = k
		}
	}
	samples := make([]Sample, len(reqs))
	recorded := make([]int, len(reqs))
	for k, r := range reqs {
		samples[k] = Sample{History: r.Tokens - r.Overhead, Event: r.Strategy != "" && r.Strategy != policy.None}
		if u := usage[r.Next]; u != nil && k < diverged {
			recorded[k] = u.Prompt()
			samples[k].Recorded = recorded[k]
		}
	}
	cal := Calibrate(samples, o.DefaultScale)
	cal = o.Params.apply(cal, samples)
	if !cal.Recorded {
		if o.Params.Overhead.Mode == SettingRecorded && o.Params.Scale.Mode == SettingRecorded {
			sc.Notes = append(sc.Notes, "no recorded usage: prompts are the policy's own tokens_sent (its overhead and meter)")
		}
	}
	sc.Calibration = cal
	if cal.Recorded {
		reqs = withoutOverhead(reqs)
	}

	// The session's cache: first read and head.
	first := 0
	if len(reqs) > 0 {
		if u := usage[reqs[0].Next]; u != nil {
			first = u.CacheReadTokens
		}
	}
	head := o.Params.Head
	if head == 0 {
		// Claude Code's head is its system prompt and tools, which no log
		// records before its first break; elsewhere the calibrated
		// overhead is the part of the prompt outside the messages.
		head = cal.Overhead
		if s.Format == corpus.FormatClaudeCode {
			head = EstimateHead(fam)
		}
	}
	m := New(o.Params, Session{FirstRead: first, Head: head})

	model := ModelOf(s, o.Model)
	sc.Model = model
	price, priced := o.Prices.Lookup(model)
	if !priced && o.PriceFile != "" {
		return nil, &MissingPriceError{Model: model, File: o.PriceFile}
	}
	sc.Priced = priced
	if !priced {
		// Tables show such a usd as "-", JSON as 0 with the session
		// counted in unpriced_sessions: "usd is 0" read as a price.
		if model == "" {
			sc.Notes = append(sc.Notes, "the log names no model: usd not counted"+hint("price it with", o.Hints.Model))
		} else {
			sc.Notes = append(sc.Notes, fmt.Sprintf("no price for model %q: usd not counted", model)+hint("give one with", o.Hints.Prices))
		}
	}
	var pp *Price
	if priced {
		pp = &price
	}

	scale := func(n int) int { return int(math.Round(cal.Scale * float64(n))) }
	thinkingSeen, stopHookSeen := false, false
	prevP, prevNext := 0, -1
	// hidden is content the log does not hold that the provider counted
	// in the message region (a skill's text, files restored after a
	// compaction): where a comparable request's recorded prompt exceeds
	// the prediction by more than hiddenMin and by more than the visible
	// growth, the excess is carried to later requests; a summary drops it.
	hidden, prevTokens := 0, 0
	hiddenOK := o.Hidden && cal.Recorded && cal.Anchor >= 0
	rates := RatesFor(o.Params.Provider)
	summaryBilled := 0.0
	var recTok, predTok []Tokens
	var predSteps []Step
	var lines []int
	for k, r := range reqs {
		var resp *corpus.Message
		if r.Next >= 0 && r.Next < len(s.Messages) {
			resp = &s.Messages[r.Next]
		}
		u := usage[r.Next]
		if resp != nil && resp.Synthetic && u == nil {
			prevNext = r.Next
			continue // not an API request (Claude Code's "Prompt is too long")
		}
		if r.Strategy == policy.Summarized || r.Strategy == policy.Rotated {
			hidden = 0
		}
		P := cal.Prompt(k, r.Tokens, recorded[k])
		if hiddenOK && k > cal.Anchor {
			P += hidden
			if rec := recorded[k]; rec > 0 {
				if ex := rec - P; ex > hiddenMin && ex > scale(r.Tokens-prevTokens) {
					hidden += ex
					P = rec
					sc.Calibration.HiddenEvents++
					sc.Calibration.HiddenTokens += ex
				}
			}
		}
		prevTokens = r.Tokens
		// Kept (BreakPrefix only): an append-only request keeps the whole
		// previous prompt; after a rewrite only the overhead is known to
		// be unchanged (the trace does not hold per-message sizes), which
		// is exact for a summary and low for a late clear.
		req := Request{Model: model, Prompt: P, Kept: prevP}
		if u != nil {
			req.Send, req.Done = u.Sent, u.Done
			if o.Model == "" && u.Model != "" {
				req.Model = u.Model
			}
		} else if resp != nil {
			req.Done = resp.Time
			if r.Next > 0 {
				req.Send = s.Messages[r.Next-1].Time
			}
		}
		switch r.Strategy {
		case policy.Truncated, policy.Dropped:
			req.Cause |= Rewrite
			req.Kept = cal.Overhead
		case policy.Summarized, policy.Rotated:
			req.Cause |= Summary
			req.Kept = cal.Overhead
		}
		if !thinkingSeen && r.Thinking {
			thinkingSeen = true
			if k > 0 {
				req.Cause |= Thinking
			}
		}
		if u != nil && u.AfterStopHook && !stopHookSeen {
			stopHookSeen = true
			req.Cause |= TurnEnd
		}
		if u != nil && u.Breakpoint != "" && P > prevP {
			req.Tail = tailTokens(s, prevNext, r.Next, u.Breakpoint, P-prevP)
		}
		// Output in provider tokens: bytes/4 of the response, scaled
		// (recorded output_tokens is not final in 2.1.9+; bytes, not UTF-16
		// units, keep this O(blocks)). The replay recorded the response it
		// fed, which a chain's synthetic turns have too, past the end of s.
		req.Output = scale(r.Response / 4)
		if r.Strategy == policy.Summarized && r.Before > 0 {
			// The summarizer call: the history as it stood plus the
			// summarizer's instructions, uncached; the summary comes back.
			in := cal.Prompt(k, r.Before, 0)
			st := m.Step(Request{Summarizer: true, Prompt: in + o.SummaryPrompt, Output: scale(r.Summary)})
			sc.add(RequestCost{Step: st, Request: -1, Prompt: st.Prompt()}, pp)
			summaryBilled = st.Billed
		}
		st := m.Step(req)
		if req.Cause&(Rewrite|Summary) != 0 {
			if n := len(sc.Compactions); n > 0 {
				sc.Compactions[n-1].finish(sc.Totals.Requests-sc.Totals.SummaryCalls, rates)
			}
			saved := 0
			if r.Before > r.Tokens {
				saved = scale(r.Before - r.Tokens)
			}
			sc.Compactions = append(sc.Compactions, CompactionCost{Request: k, first: sc.Totals.Requests - sc.Totals.SummaryCalls, RewriteTokens: st.Write(),
				RewriteBilled: round2(st.Billed - rates.Read*float64(st.Prompt())), SummaryBilled: round2(summaryBilled), SavedTokens: saved})
		}
		summaryBilled = 0
		rc := RequestCost{Step: st, Request: k, Prompt: P}
		if resp != nil {
			rc.Line = resp.Line
		}
		if u != nil {
			t := Tokens{Uncached: u.InputTokens, Write5m: u.CacheWrite5m, Write1h: u.CacheWrite1h, Read: u.CacheReadTokens, Output: u.OutputTokens}
			rc.Recorded = &t
			recTok = append(recTok, t)
			predTok = append(predTok, st.Tokens)
			predSteps = append(predSteps, st)
			lines = append(lines, rc.Line)
		}
		sc.add(rc, pp)
		prevP, prevNext = P, r.Next
	}
	if n := len(sc.Compactions); n > 0 {
		sc.Compactions[n-1].finish(sc.Totals.Requests-sc.Totals.SummaryCalls, rates)
	}
	if len(recTok) > 0 {
		a := Compare(s.ID, RatesFor(o.Params.Provider), lines, recTok, predSteps)
		sc.Agreement = &a
	}
	if fam == Family219 && len(recTok) > 0 {
		sc.Notes = append(sc.Notes, "Claude Code 2.1.9+ records output_tokens at stream start (1–10 per request): output is estimated from the response's content")
	}
	return sc, nil
}

// finish closes a compaction's account once end agent requests have been
// priced (its own request included; summarizer calls and synthetic
// messages are not requests of the agent).
func (c *CompactionCost) finish(end int, r Rates) {
	c.RequestsAfter = max(0, end-c.first)
	c.SavedBilled = round2(r.Read * float64(c.SavedTokens) * float64(c.RequestsAfter))
	c.NetBilled = round2(c.SavedBilled - c.RewriteBilled - c.SummaryBilled)
}

func (sc *SessionCost) add(rc RequestCost, p *Price) {
	if p != nil {
		rc.USD = p.USD(rc.Tokens)
	}
	sc.Requests = append(sc.Requests, rc)
	sc.Totals.Add(rc.Step, p)
}

// tailTokens is the uncached tail of a request whose breakpoint is the
// result bp (the last-completed one): the share of the new tokens dP that
// the results after bp in tool_use order hold, by bytes (0.23–0.37 tokens
// per byte on the real logs, so a byte share is a token share).
func tailTokens(s *corpus.Session, prevNext, next int, bp string, dP int) int {
	if next <= 0 || next > len(s.Messages) {
		return 0
	}
	tm := &s.Messages[next-1]
	if tm.Role != corpus.RoleTool {
		return 0
	}
	after, found := 0, false
	for i := range tm.Blocks {
		b := &tm.Blocks[i]
		if b.Kind != corpus.KindToolResult {
			continue
		}
		if found {
			after += len(b.Text) + len(b.Payload)
		}
		if b.ToolCallID == bp {
			found = true
		}
	}
	if !found || after == 0 {
		return 0
	}
	all := 0
	for i := max(prevNext, 0); i < next; i++ {
		all += s.Messages[i].Bytes()
	}
	if all == 0 {
		return 0
	}
	return int(math.Round(float64(dP) * float64(after) / float64(all)))
}

// firstRecordedEvent is the first request at or after a recorded
// compaction of the agent: from there the recorded prompts belong to a
// history the policy no longer holds.
func firstRecordedEvent(s *corpus.Session, reqs []Sent) int {
	first := math.MaxInt
	for i := range s.Recorded.Compactions {
		if at := s.Recorded.Compactions[i].AtMessage; at >= 0 && at < first {
			first = at
		}
	}
	for k, r := range reqs {
		if r.Next >= first {
			return k
		}
	}
	return len(reqs)
}

// PresetFor is the cache preset that fits a session's agent: Claude Code's
// own rules (1-hour entries when its recorded writes are 1-hour, as in
// fc491683), OpenAI's automatic cache for Codex and OpenAI sessions, and
// Anthropic's documented prefix rule otherwise.
func PresetFor(s *corpus.Session) string {
	switch {
	case s.Format == corpus.FormatClaudeCode:
		for _, u := range s.Recorded.Usage {
			if u.CacheWrite1h > 0 {
				return "claude-code-1h"
			}
		}
		return "claude-code"
	case s.Format == corpus.FormatCodex || s.Meta.Provider == "openai":
		return "openai"
	case s.Format == corpus.FormatGemini || s.Meta.Provider == "gemini" || s.Meta.Provider == "google":
		return "gemini"
	}
	return "anthropic"
}

// ModelOf is the model a session's cost is priced at: the override
// (--set model=), else the first model the recorded usage names, else the
// session's.
func ModelOf(s *corpus.Session, override string) string {
	if override != "" {
		return override
	}
	for _, u := range s.Recorded.Usage {
		if u.Model != "" && u.Model != "<synthetic>" {
			return u.Model
		}
	}
	return s.Meta.Model
}

// hint is " (how what)", or nothing when the caller gave no words for it.
func hint(how, what string) string {
	if what == "" {
		return ""
	}
	return " (" + how + " " + what + ")"
}

// withoutOverhead is reqs with the policies' own overhead taken out of
// their prompts, for a session whose recorded usage gives the overhead:
// with it left in, a guess larger than the real unlogged prompt (Claude
// Code's 18,000 on a subagent's few-thousand-token system prompt) made
// the inferred overhead negative, floored at 0, and every prediction too
// high by the difference. reqs itself is not changed.
func withoutOverhead(reqs []Sent) []Sent {
	var out []Sent
	for k := range reqs {
		if reqs[k].Overhead == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(reqs)
		}
		out[k].Tokens -= out[k].Overhead
		if out[k].Before > 0 {
			out[k].Before -= out[k].Overhead
		}
	}
	if out == nil {
		return reqs
	}
	return out
}
