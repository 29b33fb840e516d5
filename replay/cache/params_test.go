package cache

import (
	"strings"
	"testing"
	"time"
)

func TestResolve(t *testing.T) {
	p, err := Resolve("openai", map[string]string{SetTTL: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Provider != OpenAI || p.Granularity != 128 || p.MinPrefix != 1024 || p.TTL != time.Hour || p.Break != BreakPrefix {
		t.Fatalf("openai preset: %+v", p)
	}
	d := Default()
	if d.Provider != Anthropic || d.Break != BreakHead || d.Breakpoint != LastCompleted || d.TTL != 5*time.Minute || d.Slack != 10*time.Second || d.Granularity != 1 {
		t.Fatalf("default: %+v", d)
	}
	if got := d.Values().String(); got != "cache_provider=anthropic,cache_break=head,cache_breakpoint=last-completed,cache_ttl=5m,cache_ttl_slack_s=10,cache_min_prefix=1024,cache_granularity=1,cache_head_tokens=0,cache_overhead_tokens=recorded,cache_meter_scale=recorded" {
		t.Fatalf("values: %s", got)
	}
	for _, c := range []struct {
		preset string
		set    map[string]string
		want   string
	}{
		{"nope", nil, `unknown cache preset "nope"`},
		{"", map[string]string{SetTTL: "2h"}, `cache_ttl="2h": not one of the choices (valid: 5m|1h)`},
		{"", map[string]string{"cache_colour": "x"}, `no parameter "cache_colour"`},
		{"", map[string]string{SetMinPrefix: "-1"}, "out of range"},
		{"", map[string]string{SetScale: "0"}, `cache_meter_scale="0": expected recorded, policy or a number in (0, 100]`},
		// Unbounded, these overflowed every prompt to a negative count
		// and the bill to 0, with exit 0.
		{"", map[string]string{SetScale: "1e15"}, `cache_meter_scale="1e15": expected recorded, policy or a number in (0, 100]`},
		{"", map[string]string{SetOverhead: "1e300"}, `cache_overhead_tokens="1e300": expected recorded, policy or a number in [0, 1e+09]`},
		{"", map[string]string{SetOverhead: "-1"}, `cache_overhead_tokens="-1": expected recorded, policy or a number in [0, 1e+09]`},
		{"", map[string]string{SetHead: "1e18"}, "out of range"},
		{"", map[string]string{SetOverhead: "lots"}, `cache_overhead_tokens="lots": expected recorded, policy or a number`},
	} {
		_, err := Resolve(c.preset, c.set)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %v: error %v, want %q", c.preset, c.set, err, c.want)
		}
	}
	c, rest := SplitSet(map[string]string{"cache_ttl": "1h", "compact_at": "0.8"})
	if len(c) != 1 || len(rest) != 1 || c["cache_ttl"] != "1h" || rest["compact_at"] != "0.8" {
		t.Fatalf("split: %v %v", c, rest)
	}
	for _, name := range PresetNames() {
		if _, err := Resolve(name, nil); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
}
