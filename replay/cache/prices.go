package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Price is one model's price in USD per million tokens. Providers without
// a write premium (OpenAI, Gemini) carry their input price in both write
// columns.
type Price struct {
	Model    string // the id as logs spell it, without a date suffix
	Provider Provider
	Input    float64
	Write5m  float64
	Write1h  float64
	Read     float64
	Output   float64
	// Date is when the price was read, Source where; Verified is false for
	// prices read from third-party pages only.
	Date     string
	Source   string
	Verified bool
}

// USD prices one request's tokens.
func (p Price) USD(t Tokens) float64 {
	return (p.Input*float64(t.Uncached) + p.Write5m*float64(t.Write5m) + p.Write1h*float64(t.Write1h) +
		p.Read*float64(t.Read) + p.Output*float64(t.Output)) / 1e6
}

const (
	anthropicSource = "https://platform.claude.com/docs/en/docs/about-claude/pricing (table \"Model pricing\")"
	openaiSource    = "https://developers.openai.com/api/docs/models/gpt-5-codex (\"Quick comparison\")"
	readOn          = "2026-11-30"
)

// BuiltinPrices are the prices of the models calib sees in logs. Every
// row was read on the date given; rows marked unverified come from
// third-party pages and should be overridden with --prices when it
// matters.
func BuiltinPrices() []Price {
	a := func(model string, in float64) Price {
		return Price{Model: model, Provider: Anthropic, Input: in, Write5m: in * 1.25, Write1h: in * 2,
			Read: in / 10, Output: in * 5, Date: readOn, Source: anthropicSource, Verified: true}
	}
	o := func(model string, in, read, out float64, source string, verified bool) Price {
		return Price{Model: model, Provider: OpenAI, Input: in, Write5m: in, Write1h: in, Read: read, Output: out,
			Date: readOn, Source: source, Verified: verified}
	}
	g := func(model string, in, read, out float64, source string) Price {
		return Price{Model: model, Provider: Gemini, Input: in, Write5m: in, Write1h: in, Read: read, Output: out,
			Date: readOn, Source: source}
	}
	return []Price{
		a("claude-opus-4-5", 5),
		a("claude-opus-4-1", 15),
		a("claude-opus-4", 15),
		a("claude-sonnet-4-5", 3),
		a("claude-sonnet-4", 3),
		a("claude-haiku-4-5", 1),
		o("gpt-5", 1.25, 0.125, 10, openaiSource, true),
		o("gpt-5-codex", 1.25, 0.125, 10, openaiSource, true),
		o("gpt-5.2", 1.75, 0.175, 14, "third-party (evolink.ai guide, 2026-03); unverified", false),
		o("gpt-5.2-codex", 1.75, 0.175, 14, "third-party marketplace page (aicoach.pw); cached price assumed 0.1×; unverified", false),
		g("gemini-2.5-pro", 1.25, 0.125, 10, "third-party (deploybase.ai, 2026-01); prompts ≤ 200K; unverified"),
		g("gemini-2.5-flash", 0.30, 0.03, 2.50, "third-party (deploybase.ai, 2026-01); unverified"),
	}
}

// Prices is a price table keyed by model id.
type Prices struct {
	rows map[string]Price
}

// NewPrices builds a table; later rows override earlier ones with the same
// model id (so a --prices file goes after the built-in rows).
func NewPrices(rows ...[]Price) Prices {
	t := Prices{rows: map[string]Price{}}
	for _, rs := range rows {
		for _, r := range rs {
			t.rows[r.Model] = r
		}
	}
	return t
}

// Fingerprint identifies the table by its prices (not by the file they
// came from): sweep shards priced by different tables do not merge.
func (t Prices) Fingerprint() string {
	models := make([]string, 0, len(t.rows))
	for m := range t.rows {
		models = append(models, m)
	}
	slices.Sort(models)
	h := sha256.New()
	for _, m := range models {
		r := t.rows[m]
		fmt.Fprintf(h, "%s %s %g %g %g %g %g\n", r.Model, r.Provider, r.Input, r.Write5m, r.Write1h, r.Read, r.Output)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Lookup finds the price of a model id as a log spells it. The id matches
// a row exactly, or as the row's id followed by a date suffix
// ("claude-opus-4-5-20251101" is row "claude-opus-4-5").
func (t Prices) Lookup(model string) (Price, bool) {
	if p, ok := t.rows[model]; ok {
		return p, true
	}
	base, ok := cutDate(model)
	if !ok {
		return Price{}, false
	}
	p, ok := t.rows[base]
	return p, ok
}

// cutDate strips a "-YYYYMMDD" or "-latest" suffix; other ids do not
// match a shorter row ("gpt-5-mini" is not "gpt-5").
func cutDate(model string) (base string, ok bool) {
	i := strings.LastIndexByte(model, '-')
	if i < 0 {
		return "", false
	}
	s := model[i+1:]
	if s == "latest" {
		return model[:i], true
	}
	if len(s) != 8 {
		return "", false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return model[:i], true
}

// Rows lists the table sorted by provider and model, for reports.
func (t Prices) Rows() []Price {
	out := make([]Price, 0, len(t.rows))
	for _, r := range t.rows {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Provider != out[j].Provider {
			return out[i].Provider < out[j].Provider
		}
		return out[i].Model < out[j].Model
	})
	return out
}

// MissingPriceError is a model no price table prices, with a price file
// given (without one, usd is 0 and the report says so).
type MissingPriceError struct{ Model, File string }

func (e *MissingPriceError) Error() string {
	return fmt.Sprintf("no price for model %q in %s or the built-in table: add a row for it to %s (columns: %s)",
		e.Model, e.File, e.File, strings.Join(priceColumns, ","))
}
