// Package cache models a provider's prompt cache over the requests of a
// replay: per request, how much of the prompt is read from the cache, written
// to it, or sent uncached, and what that costs in input-token equivalents
// (billed_tokens) and in dollars. It is a layer every policy's replay goes
// through, not part of any policy; it does no I/O.
//
// The rules are the ones the real Claude Code logs establish (README, "Cost
// as billed"): any rewrite inside the message list falls back to the head
// (system prompt and tools), the breakpoint sits on the last-completed tool
// result, a 5-minute TTL refreshed on read, and the session's first read
// comes from other sessions.
//
// Files: params.go (parameters, presets), model.go (the per-request state
// machine), rates.go (billing multipliers), prices.go and pricefile.go (USD
// per model, the --prices override), prefix.go (unchanged-prefix length of
// two block lists).
package cache

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/calib-dev/calib/policy"
)

// Provider names a prompt-cache billing scheme.
type Provider string

const (
	Anthropic Provider = "anthropic" // explicit breakpoints, writes at 1.25× (5 m) or 2× (1 h), reads at 0.1×
	OpenAI    Provider = "openai"    // automatic prefix cache, no write premium, 1,024-token minimum, 128-token steps
	Gemini    Provider = "gemini"    // implicit prefix cache, no write premium
	NoCache   Provider = "none"      // every token is uncached input
)

// BreakRule says how far back a change inside the message list sends the
// cache.
type BreakRule string

const (
	// BreakHead: any rewrite falls back to the head H (system prompt and
	// tools). 28 of 28 break events in the 2.x Claude Code logs read
	// exactly H, never the unchanged messages before the first change.
	BreakHead BreakRule = "head"
	// BreakPrefix: the longest prefix identical to the previous request's
	// stays cached (what the API documents; OpenAI and Gemini match
	// prefixes automatically).
	BreakPrefix BreakRule = "prefix"
)

// Breakpoint says where the agent places its last cache breakpoint.
type Breakpoint string

const (
	// LastCompleted: on the last transcript line, which for parallel tool
	// calls is the last-completed result; results after it in tool_use
	// order are uncached input (54 of 54 requests with 2+ results).
	LastCompleted Breakpoint = "last-completed"
	// LastMessage: on the last message as sent (the API's usual advice).
	LastMessage Breakpoint = "last-message"
)

// Params are the validated cache parameters.
type Params struct {
	Provider   Provider
	Break      BreakRule
	Breakpoint Breakpoint
	TTL        time.Duration
	// Slack is added to the TTL: the cache survived gaps of 302.5 s and
	// expired at 315.5 s (16 events), so expiry is gap > TTL + 10 s.
	Slack time.Duration
	// MinPrefix is the shortest prefix that can be cached at all.
	MinPrefix int
	// Granularity rounds cached prefixes down (OpenAI: 128 tokens).
	Granularity int
	// Head is the head H in tokens; 0 means "estimate it per session"
	// (EstimateHead).
	Head int
	// Overhead and Scale map the policy's tokens to the provider's prompt
	// (P = Overhead + Scale × tokens): Recorded (the default) infers both
	// per session from its recorded usage; Policy keeps the policy's own
	// figures (P = tokens_sent); a number fixes it.
	Overhead Setting
	Scale    Setting
}

// Setting is a parameter that is either inferred from the recording,
// left to the policy, or fixed.
type Setting struct {
	Mode  string // SettingRecorded | SettingPolicy | SettingFixed
	Value float64
}

const (
	SettingRecorded = "recorded"
	SettingPolicy   = "policy"
	SettingFixed    = "fixed"
)

func parseSetting(v string) Setting {
	switch v {
	case SettingRecorded, SettingPolicy:
		return Setting{Mode: v}
	}
	f, _ := strconv.ParseFloat(v, 64)
	return Setting{Mode: SettingFixed, Value: f}
}

func (s Setting) String() string {
	if s.Mode == SettingFixed {
		return strconv.FormatFloat(s.Value, 'g', -1, 64)
	}
	return s.Mode
}

// checkSetting accepts recorded, policy or a number in [0, hi] ((0, hi]
// when positive). The bound matters: the value multiplies or adds to
// every prompt, and 1e300 overflowed them to negative counts and a zero
// bill.
func checkSetting(positive bool, hi float64) func(string) error {
	return func(v string) error {
		if v == SettingRecorded || v == SettingPolicy {
			return nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || f < 0 || (positive && f == 0) || f > hi {
			lo := "[0"
			if positive {
				lo = "(0"
			}
			return fmt.Errorf("expected recorded, policy or a number in %s, %g]", lo, hi)
		}
		return nil
	}
}

// maxScale bounds cache_meter_scale: provider tokens per meter token run
// from about 0.8 to 1.7 on the real logs; 100 is far past any meter.
const maxScale = 100

// Spec names, as --set and `calib policies` spell them.
const (
	SetProvider    = "cache_provider"
	SetBreak       = "cache_break"
	SetBreakpoint  = "cache_breakpoint"
	SetTTL         = "cache_ttl"
	SetSlack       = "cache_ttl_slack_s"
	SetMinPrefix   = "cache_min_prefix"
	SetGranularity = "cache_granularity"
	SetHead        = "cache_head_tokens"
	SetOverhead    = "cache_overhead_tokens"
	SetScale       = "cache_meter_scale"
)

// Specs declares the cache parameters; `calib policies` lists them after
// every policy's own, and --set accepts them for any policy.
func Specs() []policy.ParamSpec {
	return []policy.ParamSpec{
		{Name: SetProvider, Kind: policy.Enum, Default: string(Anthropic),
			Choices: []string{string(Anthropic), string(OpenAI), string(Gemini), string(NoCache)},
			Help:    "whose prompt cache and billing: anthropic (writes 1.25×/2×, reads 0.1×), openai and gemini (no write premium, reads 0.1×), none"},
		{Name: SetBreak, Kind: policy.Enum, Default: string(BreakHead),
			Choices: []string{string(BreakHead), string(BreakPrefix)},
			Help:    "where a rewrite of the message list sends the cache: head (system prompt + tools; what Claude Code logs show, 28/28 events) or prefix (longest unchanged prefix)"},
		{Name: SetBreakpoint, Kind: policy.Enum, Default: string(LastCompleted),
			Choices: []string{string(LastCompleted), string(LastMessage)},
			Help:    "last cache breakpoint: last-completed tool result (Claude Code; later parallel results are uncached) or last-message"},
		{Name: SetTTL, Kind: policy.Enum, Default: "5m", Choices: []string{"5m", "1h"},
			Help: "cache lifetime, refreshed on every read; 1h writes cost 2× instead of 1.25× (Anthropic)"},
		{Name: SetSlack, Kind: policy.Int, Default: "10", Min: 0, Max: 3600,
			Help: "seconds added to the TTL before an entry counts as expired (alive at 302.5 s, expired at 315.5 s in the logs)"},
		{Name: SetMinPrefix, Kind: policy.Int, Default: "1024", Min: 0, Max: policy.MaxTokens,
			Help: "shortest cacheable prefix in tokens (Anthropic Sonnet/Opus and OpenAI: 1,024)"},
		{Name: SetGranularity, Kind: policy.Int, Default: "0", Min: 0, Max: policy.MaxTokens,
			Help: "cached prefixes are rounded down to this many tokens; 0 = the provider's (OpenAI 128, others 1)"},
		{Name: SetHead, Kind: policy.Int, Default: "0", Min: 0, Max: policy.MaxTokens,
			Help: "tokens of the head (system prompt + tools) a break falls back to; 0 = Claude Code's by version (18,400 for 2.1.9+, 20,500 for 2.0–2.1.8, 14,000 for 1.0), elsewhere the calibrated overhead"},
		{Name: SetOverhead, Kind: policy.String, Default: SettingRecorded, Check: checkSetting(false, policy.MaxTokens),
			Help: "prompt tokens the log does not hold: recorded (inferred per session from its recorded usage; the policy's own where it has none), policy (the policy's overhead_tokens), or a number"},
		{Name: SetScale, Kind: policy.String, Default: SettingRecorded, Check: checkSetting(true, maxScale),
			Help: "provider tokens per token of the policy's meter: recorded (median of the first 5 steady requests), policy (1), or a number"},
	}
}

// Presets are named settings for --cache, each a full set of the cache
// parameters.
func Presets() map[string]map[string]string {
	return map[string]map[string]string{
		"claude-code":    {SetProvider: "anthropic", SetBreak: "head", SetBreakpoint: "last-completed", SetTTL: "5m"},
		"claude-code-1h": {SetProvider: "anthropic", SetBreak: "head", SetBreakpoint: "last-completed", SetTTL: "1h"},
		"anthropic":      {SetProvider: "anthropic", SetBreak: "prefix", SetBreakpoint: "last-message", SetTTL: "5m"},
		"openai":         {SetProvider: "openai", SetBreak: "prefix", SetBreakpoint: "last-message", SetTTL: "5m", SetMinPrefix: "1024", SetGranularity: "128"},
		"gemini":         {SetProvider: "gemini", SetBreak: "prefix", SetBreakpoint: "last-message", SetTTL: "5m"},
		"none":           {SetProvider: "none"},
	}
}

// PresetNames lists the presets, sorted.
func PresetNames() []string {
	ps := Presets()
	out := make([]string, 0, len(ps))
	for k := range ps {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Split separates the cache parameters from a --set map: the cache_*
// names go to the cache, the rest stay with the policy.
func SplitSet(set map[string]string) (cache, rest map[string]string) {
	cache, rest = map[string]string{}, map[string]string{}
	for k, v := range set {
		if strings.HasPrefix(k, "cache_") {
			cache[k] = v
		} else {
			rest[k] = v
		}
	}
	return cache, rest
}

// Resolve builds Params from a preset name ("" for none) overlaid with
// --set values; every value is validated.
func Resolve(preset string, set map[string]string) (Params, error) {
	merged := map[string]string{}
	if preset != "" {
		p, ok := Presets()[preset]
		if !ok {
			return Params{}, fmt.Errorf("unknown cache preset %q (available: %s)", preset, strings.Join(PresetNames(), ", "))
		}
		for k, v := range p {
			merged[k] = v
		}
	}
	for k, v := range set {
		merged[k] = v
	}
	v, err := policy.Resolve("cache", Specs(), merged)
	if err != nil {
		return Params{}, err
	}
	return FromValues(v), nil
}

// FromValues converts validated values into Params.
func FromValues(v policy.Values) Params {
	p := Params{
		Provider:    Provider(v.Str(SetProvider)),
		Break:       BreakRule(v.Str(SetBreak)),
		Breakpoint:  Breakpoint(v.Str(SetBreakpoint)),
		TTL:         5 * time.Minute,
		Slack:       time.Duration(v.Int(SetSlack)) * time.Second,
		MinPrefix:   v.Int(SetMinPrefix),
		Granularity: v.Int(SetGranularity),
		Head:        v.Int(SetHead),
		Overhead:    parseSetting(v.Str(SetOverhead)),
		Scale:       parseSetting(v.Str(SetScale)),
	}
	if v.Str(SetTTL) == "1h" {
		p.TTL = time.Hour
	}
	if p.Granularity == 0 {
		p.Granularity = 1
		if p.Provider == OpenAI {
			p.Granularity = 128
		}
	}
	return p
}

// Default is the claude-code preset: the rules the real logs establish.
func Default() Params {
	p, err := Resolve("claude-code", nil)
	if err != nil {
		panic(err) // the preset is declared above; a failure is a bug here
	}
	return p
}

// Values renders the parameters in declaration order, for reports.
func (p Params) Values() policy.Params {
	ttl := "5m"
	if p.TTL == time.Hour {
		ttl = "1h"
	}
	return policy.Params{
		{Name: SetProvider, Value: string(p.Provider)},
		{Name: SetBreak, Value: string(p.Break)},
		{Name: SetBreakpoint, Value: string(p.Breakpoint)},
		{Name: SetTTL, Value: ttl},
		{Name: SetSlack, Value: fmt.Sprint(int(p.Slack / time.Second))},
		{Name: SetMinPrefix, Value: fmt.Sprint(p.MinPrefix)},
		{Name: SetGranularity, Value: fmt.Sprint(p.Granularity)},
		{Name: SetHead, Value: fmt.Sprint(p.Head)},
		{Name: SetOverhead, Value: p.Overhead.String()},
		{Name: SetScale, Value: p.Scale.String()},
	}
}
