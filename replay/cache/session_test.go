package cache

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// A session without recorded usage: prompts are the policy's own figures,
// a summary compaction adds an uncached summarizer call and is charged
// its rewrite against the reads it saves.
func TestCostWithoutUsage(t *testing.T) {
	s := &corpus.Session{ID: "s", Format: corpus.FormatSmithTranscript, Meta: corpus.Meta{Model: "claude-sonnet-4-5-20250929"}}
	for i := 0; i < 8; i++ {
		role := corpus.RoleUser
		if i%2 == 1 {
			role = corpus.RoleAssistant
		}
		s.Messages = append(s.Messages, corpus.Message{Role: role, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: strings.Repeat("a", 400)}}})
	}
	// Each response holds 400 bytes, as the replay records them: 100
	// output tokens.
	reqs := []Sent{
		{Next: 1, Tokens: 30000, Response: 400},
		{Next: 3, Tokens: 40000, Response: 400},
		{Next: 5, Tokens: 12000, Strategy: policy.Summarized, Before: 50000, Summary: 2000, Response: 400},
		{Next: 7, Tokens: 14000, Response: 400},
	}
	p, _ := Resolve("anthropic", nil)
	o := DefaultOptions(p)
	sc, err := Cost(s, reqs, o)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Calibration.Recorded || sc.Agreement != nil || len(sc.Notes) == 0 || !strings.Contains(sc.Notes[0], "no recorded usage") {
		t.Fatalf("calibration %+v notes %v", sc.Calibration, sc.Notes)
	}
	if len(sc.Requests) != 5 || sc.Requests[2].Reason != ReasonSummarizer || sc.Totals.SummaryCalls != 1 {
		t.Fatalf("requests %+v", sc.Requests)
	}
	if r := sc.Requests[0]; r.Output != 100 {
		t.Fatalf("the first response's output = %d tokens, want 100 (400 bytes / 4)", r.Output)
	}
	// The summarizer gets the 50,000-token history plus its 1,000-token
	// prompt, uncached; the summary (2,000 tokens) comes back.
	if r := sc.Requests[2]; r.Uncached != 51000 || r.Output != 2000 || r.Billed != 51000 {
		t.Fatalf("summarizer %+v", r)
	}
	// The request after the summary writes everything (prefix rule: only
	// the overhead, 0 here, is unchanged): 12,000 × 1.25.
	if r := sc.Requests[3]; r.Write5m != 12000 || r.Read != 0 || !r.Break {
		t.Fatalf("after the summary %+v", r)
	}
	c := sc.Compactions
	if len(c) != 1 || c[0].Request != 2 || c[0].RewriteTokens != 12000 || c[0].RewriteBilled != 15000-1200 ||
		c[0].SummaryBilled != 51000 || c[0].SavedTokens != 38000 || c[0].RequestsAfter != 2 || c[0].SavedBilled != 7600 ||
		c[0].NetBilled != 7600-13800-51000 {
		t.Fatalf("compaction %+v", c)
	}
	if !sc.Priced || sc.Totals.USD <= 0 {
		t.Fatalf("sonnet 4.5 is priced: %v %v", sc.Priced, sc.Totals.USD)
	}
	s.Meta.Model = "acme-1"
	o.PriceFile = "p.csv"
	var mp *MissingPriceError
	_, err = Cost(s, reqs, o)
	if !errors.As(err, &mp) || mp.Model != "acme-1" ||
		!strings.HasPrefix(err.Error(), `no price for model "acme-1" in p.csv or the built-in table: add a row for it to p.csv (columns: `) {
		t.Fatalf("unpriced model with a price file: %v", err)
	}
	o.PriceFile = ""
	// The notes give the caller's hints, and none of their own.
	if sc, err := Cost(s, reqs, o); err != nil || sc.Priced || !slices.Contains(sc.Notes, `no price for model "acme-1": usd not counted`) {
		t.Fatalf("unpriced model without a price file: %v %+v", err, sc)
	}
	o.Hints = PriceHints{Model: "-m NAME", Prices: "-P FILE"}
	if sc, err := Cost(s, reqs, o); err != nil || sc.Priced || !slices.Contains(sc.Notes, `no price for model "acme-1": usd not counted (give one with -P FILE)`) {
		t.Fatalf("unpriced model without a price file, with hints: %v %+v", err, sc)
	}
	// A log that names no model is told so, not priced as model "".
	s.Meta.Model = ""
	if sc, err := Cost(s, reqs, o); err != nil || sc.Priced || !slices.Contains(sc.Notes, "the log names no model: usd not counted (price it with -m NAME)") {
		t.Fatalf("no model: %v %+v", err, sc)
	}
}

// With recorded usage, the first requests calibrate and the agreement
// compares the requests that recorded usage; a synthetic zero-usage
// message is not a request.
func TestCostWithUsage(t *testing.T) {
	s, reqs := steadySession(0)
	sc, err := Cost(s, reqs, DefaultOptions(Default()))
	if err != nil {
		t.Fatal(err)
	}
	if !sc.Calibration.Recorded || sc.Calibration.Scale != 1.2 || sc.Calibration.Overhead != 20000 {
		t.Fatalf("calibration %+v", sc.Calibration)
	}
	if sc.Agreement == nil || sc.Agreement.Requests != 4 || sc.Totals.Requests != 4 {
		t.Fatalf("agreement %+v totals %+v", sc.Agreement, sc.Totals)
	}
	if e := sc.Agreement.BilledError; e > 0.001 || e < -0.001 {
		t.Fatalf("a steady session is predicted exactly: error %v (%+v)", e, sc.Agreement)
	}
}

// steadySession is a Claude Code session of four requests whose recorded
// prompts are 20,000 + 1.2 × the metered history, and a synthetic
// zero-usage message, as a policy reports them with its own guess at the
// unlogged prompt, overhead, added to every request.
func steadySession(overhead int) (*corpus.Session, []Sent) {
	s := &corpus.Session{ID: "u", Format: corpus.FormatClaudeCode, Meta: corpus.Meta{AgentVersion: "2.1.14", Model: "claude-opus-4-5-20251101"}}
	add := func(role corpus.Role, synthetic bool) int {
		s.Messages = append(s.Messages, corpus.Message{Role: role, Synthetic: synthetic, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "x"}}})
		return len(s.Messages) - 1
	}
	var reqs []Sent
	hist := []int{100, 3100, 6100, 9100}
	for i, h := range hist {
		add(corpus.RoleUser, false)
		at := add(corpus.RoleAssistant, false)
		P := 20000 + int(1.2*float64(h))
		read := 0
		if i > 0 {
			read = 20000 + int(1.2*float64(hist[i-1]))
		}
		s.Recorded.Usage = append(s.Recorded.Usage, corpus.Usage{AtMessage: at, Requests: 1, Model: "claude-opus-4-5-20251101",
			CacheWriteTokens: P - read, CacheReadTokens: read})
		reqs = append(reqs, Sent{Next: at, Tokens: h + overhead, Overhead: overhead})
	}
	add(corpus.RoleUser, false)
	syn := add(corpus.RoleAssistant, true)
	reqs = append(reqs, Sent{Next: syn, Tokens: 9200 + overhead, Overhead: overhead})
	return s, reqs
}

// TestCostOfAnArrivalCap: a request whose only change was capping the
// output that just arrived (Sent.Arrival) keeps the cache as an
// append-only request does and is priced as no compaction, but it ends
// the requests that calibrate against the recorded prompts, which held
// the whole output. The same request as a truncation (a rewrite of sent
// messages) breaks the cache to its head and opens a compaction's account.
func TestCostOfAnArrivalCap(t *testing.T) {
	price := func(change func(*Sent)) *SessionCost {
		t.Helper()
		s, reqs := steadySession(0)
		change(&reqs[3])
		sc, err := Cost(s, reqs, DefaultOptions(Default()))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	plain := price(func(*Sent) {})
	// The cap or the truncation cut 1,000 metered tokens.
	capped := price(func(r *Sent) { r.Tokens, r.Arrival = r.Tokens-1000, true })
	rewrite := price(func(r *Sent) { r.Tokens, r.Strategy, r.Before = r.Tokens-1000, policy.Truncated, r.Tokens })
	for _, c := range []struct {
		name   string
		sc     *SessionCost
		reason Reason
		brk    bool
		rows   int
		steady int
	}{
		{"no event", plain, ReasonKept, false, 0, 2},
		{"arrival cap", capped, ReasonKept, false, 0, 1},
		{"truncation", rewrite, ReasonBreak, true, 1, 1},
	} {
		r := c.sc.Requests[3]
		if r.Reason != c.reason || r.Break != c.brk || len(c.sc.Compactions) != c.rows || c.sc.Calibration.Steady != c.steady {
			t.Errorf("%s: request 3 %s (break %v), %d compaction rows, %d steady requests; want %s (%v), %d, %d",
				c.name, r.Reason, r.Break, len(c.sc.Compactions), c.sc.Calibration.Steady, c.reason, c.brk, c.rows, c.steady)
		}
	}
	// Kept, the capped request reads all that request 2 left in the cache
	// (20,000 + 1.2 × 6,100), and writes what follows it.
	if r := capped.Requests[3]; r.Read != 27320 || r.Write5m != 20000+int(1.2*8100)-27320 {
		t.Errorf("the capped request read %d and wrote %d; want 27,320 and %d", r.Read, r.Write5m, 20000+int(1.2*8100)-27320)
	}
	if r := rewrite.Requests[3]; r.Read >= 27320 {
		t.Errorf("the truncation read %d: the rewrite should have sent the cache back to its head", r.Read)
	}
}

// TestCostReplacesThePolicysOverhead: a policy's guess at the unlogged
// prompt (Sent.Overhead, 30,000 here against a real 20,000) gives way to
// the one recorded usage calibrates. Left in the history, it made the
// inferred overhead 20,000 - 1.2 × 30,000 < 0, floored at 0, and every
// prediction 16,000 too high (Claude Code's 18,000 guess on its
// subagents' short system prompts billed them 1.2x).
func TestCostReplacesThePolicysOverhead(t *testing.T) {
	s, reqs := steadySession(30000)
	before := slices.Clone(reqs)
	sc, err := Cost(s, reqs, DefaultOptions(Default()))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Calibration.Scale != 1.2 || sc.Calibration.Overhead != 20000 {
		t.Errorf("calibration %+v, want scale 1.2 and overhead 20,000", sc.Calibration)
	}
	if e := sc.Agreement.BilledError; e > 0.001 || e < -0.001 {
		t.Errorf("error %v, want the steady session predicted exactly", e)
	}
	if !slices.Equal(reqs, before) {
		t.Error("Cost changed the caller's requests")
	}
	// The same guess not told apart (Overhead 0) is the old fault.
	for i := range reqs {
		reqs[i].Overhead = 0
	}
	sc, err = Cost(s, reqs, DefaultOptions(Default()))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Calibration.Overhead != 0 || sc.Agreement.BilledError < 0.1 {
		t.Errorf("without Sent.Overhead: calibration %+v, error %v; want the floored overhead and a miss", sc.Calibration, sc.Agreement.BilledError)
	}
}

// TestCostRowsSizedOnce checks that a session's rows are allocated once:
// one per request and summarizer call, one per compaction, where growing
// them by appending copied a long session's requests over and over.
func TestCostRowsSizedOnce(t *testing.T) {
	s := &corpus.Session{ID: "s", Format: corpus.FormatSmithTranscript}
	var reqs []Sent
	for i := 0; i < 40; i++ {
		s.Messages = append(s.Messages, corpus.Message{Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "go"}}}, corpus.Message{Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "ok"}}})
		r := Sent{Next: 2*i + 1, Tokens: 1000 * (i + 1)}
		switch i % 3 {
		case 1:
			r.Strategy, r.Before, r.Summary = policy.Summarized, 2000*(i+1), 100
		case 2:
			r.Strategy, r.Before = policy.Truncated, 2000*(i+1)
		}
		reqs = append(reqs, r)
	}
	p, _ := Resolve("anthropic", nil)
	sc, err := Cost(s, reqs, DefaultOptions(p))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Requests) != 40+13 || cap(sc.Requests) != len(sc.Requests) {
		t.Errorf("%d request rows in an array of %d, want 53 in 53", len(sc.Requests), cap(sc.Requests))
	}
	if len(sc.Compactions) != 26 || cap(sc.Compactions) != len(sc.Compactions) {
		t.Errorf("%d compaction rows in an array of %d, want 26 in 26", len(sc.Compactions), cap(sc.Compactions))
	}
}

// TestPresetFor: each session gets its agent's cache rules when --cache
// is not given: Claude Code's own (1-hour entries when the log wrote
// 1-hour ones), OpenAI's for Codex and for any session on OpenAI, Gemini's
// implicit cache for Gemini CLI and any session on Google's models, and
// Anthropic's documented prefix rule for the rest (smith, clai, opencode on
// Anthropic).
func TestPresetFor(t *testing.T) {
	oneHour := []corpus.Usage{{CacheWriteTokens: 10}, {CacheWriteTokens: 10, CacheWrite1h: 10, Split: true}}
	for _, c := range []struct {
		s    corpus.Session
		want string
	}{
		{corpus.Session{Format: corpus.FormatClaudeCode}, "claude-code"},
		{corpus.Session{Format: corpus.FormatClaudeCode, Recorded: corpus.Recorded{Usage: oneHour}}, "claude-code-1h"},
		{corpus.Session{Format: corpus.FormatCodex}, "openai"},
		{corpus.Session{Format: corpus.FormatOpencode, Meta: corpus.Meta{Provider: "openai"}}, "openai"},
		{corpus.Session{Format: corpus.FormatGemini}, "gemini"},
		{corpus.Session{Format: corpus.FormatOpencode, Meta: corpus.Meta{Provider: "google"}}, "gemini"},
		{corpus.Session{Format: corpus.FormatClai, Meta: corpus.Meta{Provider: "gemini"}}, "gemini"},
		{corpus.Session{Format: corpus.FormatOpencode, Meta: corpus.Meta{Provider: "anthropic"}}, "anthropic"},
		{corpus.Session{Format: corpus.FormatSmithTranscript}, "anthropic"},
		{corpus.Session{Format: corpus.FormatClai}, "anthropic"},
	} {
		if got := PresetFor(&c.s); got != c.want {
			t.Errorf("%s with provider %q: %s, want %s", c.s.Format, c.s.Meta.Provider, got, c.want)
		}
	}
}

// TestUsageByMessage: the index finds a single request's usage by the
// message it produced; totals (Requests != 1), entries without a message
// or past the session's messages are not indexed, and of two entries for
// one message the later counts (as the map it replaced kept it).
func TestUsageByMessage(t *testing.T) {
	s := &corpus.Session{Messages: make([]corpus.Message, 4)}
	s.Recorded.Usage = []corpus.Usage{
		{AtMessage: 1, Requests: 1, InputTokens: 10},
		{AtMessage: 3, Requests: 1, InputTokens: 30},
		{AtMessage: 3, Requests: 1, InputTokens: 31},
		{AtMessage: 2, Requests: 5, InputTokens: 99},
		{AtMessage: -1, Requests: 1, InputTokens: 98},
		{AtMessage: 4, Requests: 1, InputTokens: 97},
	}
	x := usageByMessage(s)
	for msg, want := range map[int]int{-1: 0, 0: 0, 1: 10, 2: 0, 3: 31, 4: 0} {
		got := 0
		if u := x.of(msg); u != nil {
			got = u.InputTokens
		}
		if got != want {
			t.Errorf("message %d: input %d, want %d", msg, got, want)
		}
	}
	if x := usageByMessage(&corpus.Session{Messages: make([]corpus.Message, 2)}); x.at != nil || x.of(0) != nil {
		t.Errorf("a session without usage indexed %v", x.at)
	}
}

// TestCompactionAtARefusedRequest: a compaction at a request the provider
// refused (Claude Code's synthetic "Prompt is too long", no usage, no
// request priced) is sent with the agent's next request, the retry: that
// request breaks the cache and opens the compaction's account. Without
// the carry the retry read the whole cache as if nothing had changed.
func TestCompactionAtARefusedRequest(t *testing.T) {
	s, reqs := steadySession(0)
	refused := &reqs[len(reqs)-1]
	refused.Strategy, refused.Before, refused.Tokens = policy.Truncated, refused.Tokens, refused.Tokens-1000
	s.Messages = append(s.Messages, corpus.Message{Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "x"}}})
	reqs = append(reqs, Sent{Next: len(s.Messages) - 1, Tokens: refused.Tokens})
	sc, err := Cost(s, reqs, DefaultOptions(Default()))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Requests) != 5 {
		t.Fatalf("%d requests priced; want the 4 recorded and the retry", len(sc.Requests))
	}
	if r := sc.Requests[4]; r.Request != 5 || r.Reason != ReasonBreak || !r.Break || len(sc.Compactions) != 1 || sc.Compactions[0].Request != 5 {
		t.Errorf("the retry: request %d %s (break %v), %d compaction rows; want request 5, a break and its row", r.Request, r.Reason, r.Break, len(sc.Compactions))
	}
}

// TestCostPricesEachRequestAtItsModel: a session that switches model
// (Claude Code's /model, Codex's turn_context) bills each request at its
// own model's price; all at the first model billed the real 1.0.53 logs'
// Sonnet requests at Opus rates (2.3 to 4.5 times their cost). The
// session's model stays the first, and a note names both.
func TestCostPricesEachRequestAtItsModel(t *testing.T) {
	s, reqs := steadySession(0)
	for i := 2; i < 4; i++ {
		s.Recorded.Usage[i].Model = "claude-sonnet-4-5-20250929"
	}
	o := DefaultOptions(Default())
	sc, err := Cost(s, reqs, o)
	if err != nil {
		t.Fatal(err)
	}
	opus, _ := o.Prices.Lookup("claude-opus-4-5-20251101")
	sonnet, _ := o.Prices.Lookup("claude-sonnet-4-5-20250929")
	for i, want := range []Price{opus, opus, sonnet, sonnet} {
		if r := sc.Requests[i]; r.USD != want.USD(r.Tokens) || r.USD == 0 {
			t.Errorf("request %d: usd %g; want %g, at %s", i, r.USD, want.USD(r.Tokens), want.Model)
		}
	}
	if !sc.Priced || sc.Model != "claude-opus-4-5-20251101" || !slices.Contains(sc.Notes, "requests priced at their own model: claude-opus-4-5-20251101, claude-sonnet-4-5-20250929") {
		t.Errorf("priced %v, model %s, notes %q", sc.Priced, sc.Model, sc.Notes)
	}
	// A price file that lacks the second model is refused, naming it.
	o.PriceFile = "prices.csv"
	o.Prices = NewPrices([]Price{opus})
	var missing *MissingPriceError
	if _, err := Cost(s, reqs, o); !errors.As(err, &missing) || missing.Model != "claude-sonnet-4-5-20250929" {
		t.Errorf("prices without the second model: %v", err)
	}
}
