package cache

import (
	"fmt"
	"math"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// pricer walks a session's requests in order through the cache model. A
// request's price depends on those before it (the prompt the cache holds,
// the first thinking block, hidden content carried forward), so that state
// lives here, next to what every request reads.
type pricer struct {
	s     *corpus.Session
	o     Options
	sc    *SessionCost
	cal   Calibration
	m     *Model
	model string
	// prices holds the price of each model the session's requests name
	// (nil: unpriced): a session that switches model (Claude Code's
	// /model, Codex's turn_context) is priced request by request; all at
	// the first model billed Sonnet requests at Opus rates.
	prices   map[string]*Price
	rates    Rates
	usage    usageIndex
	recorded []int // each request's comparable recorded prompt, 0 if none

	// hiddenOK says hidden content is tracked: hidden is content the log
	// does not hold that the provider counted in the message region (a
	// skill's text, files restored after a compaction). Where a comparable
	// request's recorded prompt exceeds the prediction by more than
	// hiddenMin and by more than the visible growth, the excess is carried
	// to later requests; a summary drops it.
	hiddenOK   bool
	hidden     int
	prevTokens int

	prevP, prevNext            int
	thinkingSeen, stopHookSeen bool
	// carried is the compaction at a request the provider refused (no
	// request is priced there), which the retry's request sends.
	carried       *Sent
	summaryBilled float64 // the summarizer call of this request

	// The requests that recorded usage, for the agreement.
	recTok    []Tokens
	predSteps []Step
	lines     []int
}

// newPricer sets up the session's cache (its first read and head) and its
// price. With a price file that does not price the model it fails; without
// one, an unpriced session gets a note and usd 0.
func newPricer(s *corpus.Session, sc *SessionCost, reqs []Sent, usage usageIndex, recorded []int, fam Family, o Options) (*pricer, error) {
	cal := sc.Calibration
	first := 0
	if len(reqs) > 0 {
		if u := usage.of(reqs[0].Next); u != nil {
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
	p := &pricer{
		s: s, o: o, sc: sc, cal: cal,
		m:        New(o.Params, Session{FirstRead: first, Head: head}),
		model:    ModelOf(s, o.Model),
		rates:    RatesFor(o.Params.Provider),
		usage:    usage,
		recorded: recorded,
		hiddenOK: o.Hidden && cal.Recorded && cal.Anchor >= 0,
		prevNext: -1,
	}
	sc.Model = p.model
	sc.Priced = true
	p.prices = map[string]*Price{}
	models := ModelsOf(s, o.Model)
	if len(models) > 1 {
		sc.Notes = append(sc.Notes, "requests priced at their own model: "+strings.Join(models, ", "))
	}
	for _, m := range models {
		price, priced := o.Prices.Lookup(m)
		if !priced && o.PriceFile != "" {
			return nil, &MissingPriceError{Model: m, File: o.PriceFile}
		}
		sc.Priced = sc.Priced && priced
		switch {
		case priced:
			p.prices[m] = &price
		case m == "":
			// Tables show such a usd as "-", JSON as 0 with the session
			// counted in unpriced_sessions: "usd is 0" read as a price.
			sc.Notes = append(sc.Notes, "the log names no model: usd not counted"+hint("price it with", o.Hints.Model))
		default:
			sc.Notes = append(sc.Notes, fmt.Sprintf("no price for model %q: usd not counted", m)+hint("give one with", o.Hints.Prices))
		}
	}
	return p, nil
}

// priceOf is the price of a request to model (the session's first where
// the request names none), nil when unpriced.
func (p *pricer) priceOf(model string) *Price {
	if model == "" || model == syntheticModel {
		model = p.model
	}
	return p.prices[model]
}

// scale is n metered tokens in provider tokens.
func (p *pricer) scale(n int) int { return int(math.Round(p.cal.Scale * float64(n))) }

// request prices request k (and its summarizer call, if it has one).
func (p *pricer) request(k int, r Sent) {
	s, sc := p.s, p.sc
	var resp *corpus.Message
	if r.Next >= 0 && r.Next < len(s.Messages) {
		resp = &s.Messages[r.Next]
	}
	u := p.usage.of(r.Next)
	if resp != nil && resp.Synthetic && u == nil {
		// Not an API request (Claude Code's "Prompt is too long"): a
		// compaction the policy made there is sent, and priced, with the
		// agent's next request, the retry (a summary before a rewrite).
		if r.Strategy != policy.None && r.Strategy != "" && (p.carried == nil || r.Strategy == policy.Summarized || r.Strategy == policy.Rotated) {
			c := r
			p.carried = &c
		}
		p.prevNext = r.Next
		return
	}
	if c := p.carried; c != nil {
		if r.Strategy == policy.None || r.Strategy == "" || c.Strategy == policy.Summarized || c.Strategy == policy.Rotated {
			r.Strategy, r.Before, r.Summary = c.Strategy, c.Before, c.Summary
		}
		p.carried = nil
	}
	// The hidden content the history carried up to here, which the
	// summarizer reads before the summary drops it (prompt resets it).
	carriedHidden := p.hidden
	P := p.prompt(k, r)
	// Kept (BreakPrefix only): an append-only request keeps the whole
	// previous prompt; after a rewrite only the overhead is known to be
	// unchanged (the trace does not hold per-message sizes), which is
	// exact for a summary and low for a late clear.
	req := Request{Model: p.model, Prompt: P, Kept: p.prevP}
	if u != nil {
		req.Send, req.Done = u.Sent, u.Done
		if p.o.Model == "" && u.Model != "" {
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
		req.Kept = p.cal.Overhead
	case policy.Summarized, policy.Rotated:
		req.Cause |= Summary
		req.Kept = p.cal.Overhead
	}
	if !p.thinkingSeen && r.Thinking {
		p.thinkingSeen = true
		if k > 0 {
			req.Cause |= Thinking
		}
	}
	if u != nil && u.AfterStopHook && !p.stopHookSeen {
		p.stopHookSeen = true
		req.Cause |= TurnEnd
	}
	if u != nil && u.Breakpoint != "" && P > p.prevP {
		req.Tail = tailTokens(s, p.prevNext, r.Next, u.Breakpoint, P-p.prevP)
	}
	// Output in provider tokens: bytes/4 of the response, scaled (recorded
	// output_tokens is not final in 2.1.9+; bytes, not UTF-16 units, keep
	// this O(blocks)). The replay recorded the response it fed, which a
	// chain's synthetic turns have too, past the end of s.
	req.Output = p.scale(r.Response / 4)
	if (r.Strategy == policy.Summarized || r.Summary > 0) && r.Before > 0 {
		// The summarizer call: the history as it stood, with the hidden
		// content it carried (left out, f67ab274's second summary read
		// 80,937 tokens of a 155,283-token prompt), plus the summarizer's
		// instructions, uncached; the summary comes back.
		in := p.cal.Prompt(k, r.Before, 0) + carriedHidden
		st := p.m.Step(Request{Summarizer: true, Prompt: in + p.o.SummaryPrompt, Output: p.scale(r.Summary)})
		sc.add(RequestCost{Step: st, Request: -1, Prompt: st.Prompt()}, p.priceOf(req.Model))
		p.summaryBilled = st.Billed
	}
	st := p.m.Step(req)
	if req.Cause&(Rewrite|Summary) != 0 {
		p.compaction(k, r, st)
	}
	p.summaryBilled = 0
	rc := RequestCost{Step: st, Request: k, Prompt: P}
	if resp != nil {
		rc.Line = resp.Line
	}
	if u != nil {
		w5m, w1h := u.Writes()
		t := Tokens{Uncached: u.InputTokens, Write5m: w5m, Write1h: w1h, Read: u.CacheReadTokens, Output: u.OutputTokens}
		rc.Recorded = &t
		p.recTok = append(p.recTok, t)
		p.predSteps = append(p.predSteps, st)
		p.lines = append(p.lines, rc.Line)
	}
	sc.add(rc, p.priceOf(req.Model))
	p.prevP, p.prevNext = P, r.Next
}

// prompt is request k's prompt in provider tokens: calibrated, plus the
// hidden content carried so far, which a recorded prompt well above the
// prediction adds to.
func (p *pricer) prompt(k int, r Sent) int {
	if r.Strategy == policy.Summarized || r.Strategy == policy.Rotated {
		p.hidden = 0
	}
	P := p.cal.Prompt(k, r.Tokens, p.recorded[k])
	if p.hiddenOK && k > p.cal.Anchor {
		P += p.hidden
		if rec := p.recorded[k]; rec > 0 {
			if ex := rec - P; ex > hiddenMin && ex > p.scale(r.Tokens-p.prevTokens) {
				p.hidden += ex
				P = rec
				p.sc.Calibration.HiddenEvents++
				p.sc.Calibration.HiddenTokens += ex
			}
		}
	}
	p.prevTokens = r.Tokens
	return P
}

// compaction closes the previous compaction's account and opens request
// k's, whose step st rewrote the cache.
func (p *pricer) compaction(k int, r Sent, st Step) {
	sc := p.sc
	if n := len(sc.Compactions); n > 0 {
		sc.Compactions[n-1].finish(sc.agentRequests(), p.rates)
	}
	// Negative when the compaction grew the prompt (a digest longer than
	// what it replaced): the requests after it then read more, which the
	// net shows; it was shown as 0.
	saved := p.scale(r.Before - r.Tokens)
	sc.Compactions = append(sc.Compactions, CompactionCost{Request: k, first: sc.agentRequests(), RewriteTokens: st.Write(),
		RewriteBilled: round2(st.Billed - p.rates.Read*float64(st.Prompt())), SummaryBilled: round2(p.summaryBilled), SavedTokens: saved})
}

// close finishes the last compaction's account and the agreement with
// the recorded usage.
func (p *pricer) close() {
	sc := p.sc
	if n := len(sc.Compactions); n > 0 {
		sc.Compactions[n-1].finish(sc.agentRequests(), p.rates)
	}
	if len(p.recTok) > 0 {
		a := Compare(p.s.ID, p.rates, p.lines, p.recTok, p.predSteps)
		sc.Agreement = &a
	}
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
