package cache

import (
	"strconv"
	"strings"
)

// Tokens is one request's prompt split by how it is billed, plus its
// output. Writes are kept by TTL because they are priced differently
// (fc491683, Claude Code 2.1.20, writes only 1-hour entries).
type Tokens struct {
	Uncached int `json:"input_tokens"`
	Write5m  int `json:"cache_write_5m_tokens"`
	Write1h  int `json:"cache_write_1h_tokens"`
	Read     int `json:"cache_read_tokens"`
	Output   int `json:"output_tokens"`
}

// Prompt is every input token of the request.
func (t Tokens) Prompt() int { return t.Uncached + t.Write5m + t.Write1h + t.Read }

// Write is both write classes.
func (t Tokens) Write() int { return t.Write5m + t.Write1h }

// Add sums two requests.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{t.Uncached + u.Uncached, t.Write5m + u.Write5m, t.Write1h + u.Write1h, t.Read + u.Read, t.Output + u.Output}
}

// Rates are the prices of cached input in units of base input: what
// billed_tokens (input-token equivalents) weighs each class by.
type Rates struct {
	Write5m, Write1h, Read float64
}

// RatesFor returns the provider's multipliers. Anthropic's are exact in
// every row of its price table (1.25×, 2×, 0.1× of base input). OpenAI's
// GPT-5 family bills cached input at 0.1× (0.125 vs 1.25 $/MTok) and has
// no write; Gemini's implicit cache is taken at 0.1× too (third-party
// figures, unverified). Writes of providers without a premium never occur
// (the model reports them as uncached), so their write rate is 1.
func RatesFor(p Provider) Rates {
	switch p {
	case Anthropic:
		return Rates{Write5m: 1.25, Write1h: 2, Read: 0.1}
	case OpenAI, Gemini:
		return Rates{Write5m: 1, Write1h: 1, Read: 0.1}
	}
	return Rates{Write5m: 1, Write1h: 1, Read: 1}
}

// Billed is the input side of t in input-token equivalents.
func (r Rates) Billed(t Tokens) float64 {
	return float64(t.Uncached) + r.Write5m*float64(t.Write5m) + r.Write1h*float64(t.Write1h) + r.Read*float64(t.Read)
}

// Family classifies a Claude Code version by what its cache does; the
// head estimates and the turn-end rule differ between them.
type Family int

const (
	FamilyUnknown Family = iota
	Family1              // 1.0.x: inline sidechains, no 5m/1h split
	Family20             // 2.0.0–2.1.8: silent clears, a break at the first stop hook
	Family219            // 2.1.9 and later: microcompact_boundary lines
)

// FamilyOf parses a Claude Code version ("2.1.14").
func FamilyOf(version string) Family {
	f := strings.SplitN(version, ".", 3)
	if len(f) < 2 {
		return FamilyUnknown
	}
	major, err1 := strconv.Atoi(f[0])
	minor, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return FamilyUnknown
	}
	patch := 0
	if len(f) == 3 {
		patch, _ = strconv.Atoi(strings.SplitN(f[2], "-", 2)[0])
	}
	switch {
	case major < 2:
		return Family1
	case major == 2 && (minor == 0 || (minor == 1 && patch < 9)):
		return Family20
	}
	return Family219
}

// EstimateHead returns the head H (system prompt and tools) a break falls
// back to, which no log records before its first break: the family's
// typical H. 2.1.9+: 18,020–18,575 (4 sessions, 8 breaks); 2.0–2.1.8:
// 20,056–21,200 (7 sessions, 21 breaks); 1.0.53: 13,631–14,442 after its 4
// compactions. The prototype that reached 0.5% used exactly these
// constants. An error of 2,000 tokens in H moves a session by at most
// 2,300 billed per break (≤ 0.5% on the real logs). Estimating H as the
// first read + 4,000 (H − G was 2,530–4,894 in 8 sessions) is no closer on
// these logs, so it is not used.
func EstimateHead(f Family) int {
	switch f {
	case Family1:
		return 14000
	case Family219:
		return 18400
	}
	return 20500
}
