package cache

import (
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
	// Arrival is set, with no Strategy, when the request's compaction
	// changed only messages appended since the previous request
	// (replay.Request.Rewrote false: a cap on arriving output, a persisted
	// output placed at its arrival): no message an earlier request sent
	// changed, so the cache keeps what it held and no compaction is
	// priced, but the history is no longer the one the log recorded, so
	// calibration stops comparing there.
	Arrival bool
}

// diverges reports whether the request's history left the recording's:
// a compaction, priced as one or as an Arrival.
func (r Sent) diverges() bool {
	return r.Arrival || r.Strategy != "" && r.Strategy != policy.None
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
	// Fit, when set, is the session's calibration fitted to the recording
	// itself for the policy's meter (CalibrateRecording): the replay's
	// requests then calibrate nothing, so a policy that leaves the
	// recording within the first requests is priced with the fit every
	// other policy of that meter gets (and its triggers read). Without it
	// the requests before the first compaction calibrate.
	Fit *Calibration
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

// DefaultScale is the provider tokens per metered token when no request
// of a session is steady: the pooled steady median of Claude Code 2.x's
// logs.
const DefaultScale = 1.19

// DefaultOptions are the figures the real logs support.
func DefaultOptions(p Params) Options {
	return Options{Params: p, Prices: NewPrices(BuiltinPrices()), DefaultScale: DefaultScale, SummaryPrompt: 1000, Hidden: true}
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
	sc := newSessionCost(s, reqs, o)
	usage := usageByMessage(s)
	fam := FamilyOf(s.Meta.AgentVersion)
	if s.Format != corpus.FormatClaudeCode {
		fam = FamilyUnknown
	}
	recorded := sc.calibrate(s, reqs, usage, o)
	if sc.Calibration.Recorded {
		reqs = withoutOverhead(reqs)
	}
	p, err := newPricer(s, sc, reqs, usage, recorded, fam, o)
	if err != nil {
		return nil, err
	}
	for k, r := range reqs {
		p.request(k, r)
	}
	p.close()
	if fam == Family219 && sc.Agreement != nil {
		sc.Notes = append(sc.Notes, "Claude Code 2.1.9+ records output_tokens at stream start (1–10 per request): output is estimated from the response's content")
	}
	return sc, nil
}

// newSessionCost sizes a session's rows once (a request skipped later
// leaves some room): one per request and per summarizer call, one per
// compaction.
func newSessionCost(s *corpus.Session, reqs []Sent, o Options) *SessionCost {
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
	return sc
}

// usageIndex is a session's recorded usage of single requests, by the
// message each produced: at[msg] is one more than the entry's index in
// Recorded.Usage, 0 for none (a slice, not a map: built and read once
// per message of every replay that prices or fits a prompt model).
type usageIndex struct {
	s  *corpus.Session
	at []int32
}

// usageByMessage indexes s's usage; of two entries for one message the
// later counts.
func usageByMessage(s *corpus.Session) usageIndex {
	x := usageIndex{s: s}
	for i := range s.Recorded.Usage {
		if u := &s.Recorded.Usage[i]; u.AtMessage >= 0 && u.AtMessage < len(s.Messages) && u.Requests == 1 {
			if x.at == nil {
				x.at = make([]int32, len(s.Messages))
			}
			x.at[u.AtMessage] = int32(i + 1)
		}
	}
	return x
}

// of is the usage of the request that produced message msg, nil when none
// is recorded.
func (x usageIndex) of(msg int) *corpus.Usage {
	if msg < 0 || msg >= len(x.at) || x.at[msg] == 0 {
		return nil
	}
	return &x.s.Recorded.Usage[x.at[msg]-1]
}

// calibrate sets sc.Calibration from the recorded prompts against the
// policy's own figures and returns each request's recorded prompt (0 where
// none is comparable).
func (sc *SessionCost) calibrate(s *corpus.Session, reqs []Sent, usage usageIndex, o Options) []int {
	samples, recorded := samplesOf(s, reqs, usage, o.Faithful)
	cal := Calibrate(samples, o.DefaultScale)
	if o.Fit != nil {
		cal = o.Fit.anchoredTo(samples)
	}
	cal = o.Params.apply(cal, samples)
	if !cal.Recorded && o.Params.Overhead.Mode == SettingRecorded && o.Params.Scale.Mode == SettingRecorded {
		sc.Notes = append(sc.Notes, "no recorded usage: prompts are the policy's own tokens_sent (its overhead and meter)")
	}
	sc.Calibration = cal
	return recorded
}

// samplesOf is what calibration reads of a replay's requests, and each
// request's recorded prompt (0 where none is comparable). Unless the
// replay is faithful, only the requests before the first compaction, the
// policy's or the agent's, compare.
func samplesOf(s *corpus.Session, reqs []Sent, usage usageIndex, faithful bool) ([]Sample, []int) {
	diverged := len(reqs)
	if !faithful {
		for k, r := range reqs {
			if r.diverges() {
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
		samples[k] = Sample{History: r.Tokens - r.Overhead, Event: r.diverges()}
		if u := usage.of(r.Next); u != nil && k < diverged {
			recorded[k] = u.Prompt()
			samples[k].Recorded = recorded[k]
		}
	}
	return samples, recorded
}

// CalibrateRecording is the calibration of a session's recorded usage
// against reqs, the requests of a walk that follows the recording and
// compacts nothing, with the default scale: what the cost model prices a
// metering policy's replay with (Options.Fit) and a trigger that reads
// the provider's count reads (policy.PromptModel). Recorded is false when
// no request before the agent's first compaction has recorded usage.
func CalibrateRecording(s *corpus.Session, reqs []Sent) Calibration {
	samples, _ := samplesOf(s, reqs, usageByMessage(s), false)
	return Calibrate(samples, DefaultScale)
}

// finish closes a compaction's account once end agent requests have been
// priced (its own request included; summarizer calls and synthetic
// messages are not requests of the agent).
func (c *CompactionCost) finish(end int, r Rates) {
	c.RequestsAfter = max(0, end-c.first)
	c.SavedBilled = round2(r.Read * float64(c.SavedTokens) * float64(c.RequestsAfter))
	c.NetBilled = round2(c.SavedBilled - c.RewriteBilled - c.SummaryBilled)
}

// agentRequests is the agent's requests priced so far (summarizer calls
// are not the agent's).
func (sc *SessionCost) agentRequests() int { return sc.Totals.Requests - sc.Totals.SummaryCalls }

func (sc *SessionCost) add(rc RequestCost, p *Price) {
	if p != nil {
		rc.USD = p.USD(rc.Tokens)
	}
	sc.Requests = append(sc.Requests, rc)
	sc.Totals.Add(rc.Step, p)
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
			if _, w1h := u.Writes(); w1h > 0 {
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
	return ModelsOf(s, override)[0]
}

// syntheticModel is the model Claude Code names on a message it wrote
// itself (no API request).
const syntheticModel = "<synthetic>"

// ModelsOf is every model a session's requests are priced at, the first
// (ModelOf) first: override alone when given; else the models its
// recorded usage names, in order of first use; else the session's model
// ("" when it names none).
func ModelsOf(s *corpus.Session, override string) []string {
	if override != "" {
		return []string{override}
	}
	var out []string
	for _, u := range s.Recorded.Usage {
		if u.Model != "" && u.Model != syntheticModel && !slices.Contains(out, u.Model) {
			out = append(out, u.Model)
		}
	}
	if len(out) == 0 {
		return []string{s.Meta.Model}
	}
	return out
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
