package metrics

import (
	"fmt"
	"github.com/calib-dev/calib/policy/suggest"
	"slices"
	"sort"
	"strings"

	"github.com/calib-dev/calib/policy"
)

// Unit is what a metric counts.
type Unit string

const (
	Tokens   Unit = "tokens"
	Bytes    Unit = "bytes"
	Count    Unit = "count"
	Fraction Unit = "fraction"
	USD      Unit = "USD"
)

// Combine is how a metric combines over the sessions of a parameter set.
type Combine string

const (
	Sum Combine = "sum"
	Max Combine = "max"
	// Ratio is a weighted mean: the sum of a numerator metric over the sum
	// of a denominator metric, so a rate over events (exact events /
	// events) stays a rate over events when sessions have different event
	// counts. A mean of per-session rates would weight a session of 1
	// event like one of 100.
	Ratio Combine = "ratio"
)

// Needs says what a metric's value depends on beyond a plain replay; a
// sweep that cannot produce it refuses the metric before any work.
type Needs string

const (
	NeedsNothing  Needs = ""
	NeedsRotation Needs = "rotation"         // a rotation policy (chain figures)
	NeedsCompare  Needs = "compare-recorded" // the replay compared with the recording
)

// Metric declares one reported figure. Adding a metric is adding one entry
// to Registry and its per-session value to SessionMetrics (a chain figure:
// ChainMetrics); replay, digest-growth, sweep, merge and `calib metrics`
// take everything else (columns, headers, display, aggregation, direction,
// validation) from here.
type Metric struct {
	// Name is the metric's key; a Family name ends in "_" and stands for
	// every name with that prefix (reclaimed_<stage>).
	Name         string
	Family       bool
	Unit         Unit
	Combine      Combine
	HigherBetter bool
	// Decimals is the display precision: 0 prints an integer.
	Decimals int
	// Num and Den name the summed metrics a Ratio is computed from.
	Num, Den string
	Needs    Needs
	// Part marks a numerator or denominator kept for aggregation: in the
	// JSON rows, not a table column.
	Part bool
	// Label heads the metric's column in replay's and digest-growth's
	// tables (empty: the name). Sweep and merge head theirs with the
	// name, which is what --sort and --pareto take.
	Label   string
	Meaning string
}

// Header is the column header of the metric named name (a family member
// is headed by what follows the prefix: its stage).
func (m Metric) Header(name string) string {
	switch {
	case m.Family:
		return strings.TrimPrefix(name, m.Name)
	case m.Label != "":
		return m.Label
	}
	return name
}

// Registry lists every metric in display order: every table (replay's
// sessions, digest-growth's chains, sweep and merge) shows its metric
// columns in this order.
func Registry() []Metric {
	return []Metric{
		{Name: "tokens_sent", Label: "tokens sent", Unit: Tokens, Combine: Sum, Meaning: "history tokens (plus the policy's own overhead) sent over every request, in the policy's meter: raw tokens, no prompt cache and no unlogged overhead; billed_tokens is the bill"},
		{Name: "compactions", Unit: Count, Combine: Sum, Meaning: "compactions: the policy's changes to the history (output caps apart); one that changed what an earlier request sent breaks the provider's cache"},
		{Name: "output_caps", Label: "output caps", Unit: Count, Combine: Sum, Meaning: "requests at which tool output was capped as it arrived (before the model saw it; not compactions): one per request, as compactions are, however many outputs it cut"},
		{Name: "peak_tokens", Label: "peak", Unit: Tokens, Combine: Max, Meaning: "largest request sent"},
		{Name: "billed_tokens", Label: "billed", Unit: Tokens, Combine: Sum, Decimals: 0, Meaning: "input billed in input-token equivalents through the prompt-cache model: uncached + 1.25×/2× cache writes (5 m/1 h) + 0.1× cache reads, summarizer calls included"},
		{Name: "usd", Unit: USD, Combine: Sum, Decimals: 4, Meaning: "the bill in dollars at the model's price (built-in table or --prices), input and output, over the sessions priced (unpriced_sessions adds nothing): tables mark a sum that covers only some sessions (1.9731*, with a footnote naming the models without a price) and show - when it covers none"},
		{Name: "unpriced_sessions", Label: "unpriced", Unit: Count, Combine: Sum, Meaning: "sessions whose usd could not be priced (no model named, or no price for it in the built-in table or --prices): 1 or 0 per session; usd covers the other sessions"},
		{Name: "input_tokens", Label: "uncached input", Unit: Tokens, Combine: Sum, Meaning: "uncached input tokens (the provider's input_tokens), summarizer calls included"},
		{Name: "cache_write_tokens", Label: "cache write", Unit: Tokens, Combine: Sum, Meaning: "prompt tokens written to the cache"},
		{Name: "cache_read_tokens", Label: "cache read", Unit: Tokens, Combine: Sum, Meaning: "prompt tokens read from the cache"},
		{Name: "output_tokens", Label: "output", Unit: Tokens, Combine: Sum, Meaning: "output tokens (responses estimated from their content, summaries)"},
		{Name: "cache_hit_rate", Label: "hit rate", Unit: Fraction, Combine: Ratio, Num: "cache_read_tokens", Den: "prompt_tokens", HigherBetter: true, Decimals: 4, Meaning: "cache reads over all input tokens"},
		{Name: "cache_breaks", Label: "breaks", Unit: Count, Combine: Sum, Meaning: "requests that broke the cache: a rewrite, summary or thinking switch the cache model breaks at, or a read of less than the previous request left in it"},
		{Name: "summary_calls", Label: "summary calls", Unit: Count, Combine: Sum, Meaning: "summarizer calls (uncached requests of their own)"},
		{Name: "prompt_tokens", Unit: Tokens, Combine: Sum, Part: true, Meaning: "all input tokens (denominator of cache_hit_rate)"},
		{Name: "results_mangled", Label: "mangled", Unit: Count, Combine: Sum, Meaning: "tool results whose text in the final history differs from the recording"},
		{Name: "results_dropped", Label: "dropped", Unit: Count, Combine: Sum, Meaning: "tool results no longer in the final history"},
		{Name: "results_hidden", Label: "hidden", Unit: Count, Combine: Sum, Meaning: "tool results some request carried other than whole (stub, marker, cut head, summarized or dropped)"},
		{Name: "results_unseen", Label: "unseen", Unit: Count, Combine: Sum, Meaning: "hidden already at the first request after they arrived: the model never saw them whole"},
		{Name: "results_needed", Label: "needed", Unit: Count, Combine: Sum, Meaning: "hidden results the agent used later (named their subject or quoted a distinctive line)"},
		{Name: "results_refetched", Label: "refetched", Unit: Count, Combine: Sum, Meaning: "hidden results the agent fetched back before any use"},
		{Name: "results_lost", Label: "lost", Unit: Count, Combine: Sum, Meaning: "hidden results the agent used without fetching them back first"},
		{Name: "refetch_tokens", Label: "refetch tokens", Unit: Tokens, Combine: Sum, Meaning: "chars4 tokens of the hidden results the agent fetched back (what getting them back cost)"},
		{Name: "bytes_removed", Label: "bytes removed", Unit: Bytes, Combine: Sum, Meaning: "bytes of content the policy's stages removed, net of what they put in (stubs, markers, summaries, digests), over every compaction"},
		{Name: "target_misses", Label: "misses", Unit: Count, Combine: Sum, Meaning: "compactions that ended above their target"},
		{Name: "exhausted", Unit: Count, Combine: Sum, Meaning: "compactions that ran out of things to remove"},
		{Name: "over_window", Label: "over window", Unit: Count, Combine: Sum, Meaning: "requests whose context, as the policy's trigger measures it, went past the model's window the policy assumes (window_tokens; codex: context_window): the agent could not have sent them; blank for a policy that assumes no window (smith's max_tokens is a budget; clai-rotation, recorded)"},
		{Name: "rotations", Unit: Count, Combine: Sum, Needs: NeedsRotation, Meaning: "digest rotations of a rotation policy's chain"},
		{Name: "slope_bytes_per_rotation", Label: "slope B/rotation", Unit: Bytes, Combine: Max, Decimals: 1, Needs: NeedsRotation, Meaning: "least-squares digest growth per rotation (about 0 when bounded)"},
		{Name: "tail_slope_bytes_per_rotation", Label: "2nd-half slope", Unit: Bytes, Combine: Max, Decimals: 1, Needs: NeedsRotation, Meaning: "the same fit over the second half of the chain (about 0 once a bounded digest reaches its budget)"},
		{Name: "max_nesting", Label: "max nesting", Unit: Count, Combine: Max, Needs: NeedsRotation, Meaning: "deepest nesting of earlier digests in a digest"},
		{Name: "max_digest_bytes", Label: "max digest", Unit: Bytes, Combine: Max, Needs: NeedsRotation, Meaning: "largest digest of the chain"},
		{Name: "over_budget", Label: "over budget", Unit: Count, Combine: Sum, Needs: NeedsRotation, Meaning: "rotations whose digest exceeded its byte budget plus the 1,161 bytes of preambles and omission marker the budget leaves out (96,000 → 97,161, the PR's ≈97.2 KB)"},
		{Name: "violations", Unit: Count, Combine: Sum, Meaning: "invariant violations (calib bugs or policy bugs; should be 0)"},
		{Name: "agreement_exact", Unit: Fraction, Combine: Ratio, Num: "exact_events", Den: "recorded_events", HigherBetter: true, Decimals: 4, Needs: NeedsCompare,
			Meaning: "recorded clearing events where the policy, on its own trigger, clears exactly the agent's ids, over all events (as replay's exact/events)"},
		{Name: "agreement_jaccard", Unit: Fraction, Combine: Ratio, Num: "jaccard_sum", Den: "recorded_events", HigherBetter: true, Decimals: 4, Needs: NeedsCompare,
			Meaning: "mean Jaccard index of cleared ids (policy forced) over all recorded events"},
		{Name: "agreement_trigger", Unit: Fraction, Combine: Ratio, Num: "trigger_agreed", Den: "trigger_points", HigherBetter: true, Decimals: 4, Needs: NeedsCompare,
			Meaning: "checkpoints where policy and agent agree on acting or not, over all checkpoints"},
		{Name: "saved_error_rate", Unit: Fraction, Combine: Ratio, Num: "saved_error_sum", Den: "recorded_events", Decimals: 4, Needs: NeedsCompare,
			Meaning: "mean |predicted - recorded| / recorded tokensSaved over all recorded events"},
		{Name: "before_error_rate", Unit: Fraction, Combine: Ratio, Num: "before_error_sum", Den: "recorded_events", Decimals: 4, Needs: NeedsCompare,
			Meaning: "mean |predicted - recorded| / recorded preTokens over all recorded events"},
		{Name: "recorded_events", Unit: Count, Combine: Sum, Needs: NeedsCompare, Meaning: "recorded clearing events judged"},
		{Name: "exact_events", Unit: Count, Combine: Sum, Needs: NeedsCompare, Part: true, Meaning: "numerator of agreement_exact"},
		{Name: "jaccard_sum", Unit: Fraction, Combine: Sum, Decimals: 4, Needs: NeedsCompare, Part: true, Meaning: "numerator of agreement_jaccard"},
		{Name: "trigger_agreed", Unit: Count, Combine: Sum, Needs: NeedsCompare, Part: true, Meaning: "numerator of agreement_trigger"},
		{Name: "trigger_points", Unit: Count, Combine: Sum, Needs: NeedsCompare, Part: true, Meaning: "denominator of agreement_trigger"},
		{Name: "saved_error_sum", Unit: Fraction, Combine: Sum, Decimals: 4, Needs: NeedsCompare, Part: true, Meaning: "numerator of saved_error_rate"},
		{Name: "before_error_sum", Unit: Fraction, Combine: Sum, Decimals: 4, Needs: NeedsCompare, Part: true, Meaning: "numerator of before_error_rate"},
		{Name: "agreement_timing", Unit: Fraction, Combine: Ratio, Num: "compactions_within_one", Den: "compaction_events", HigherBetter: true, Decimals: 4, Needs: NeedsCompare,
			Meaning: "recorded full compactions (Claude Code boundary or summary, Codex compacted) the policy reproduced within one request, over all of them"},
		{Name: "compaction_events", Unit: Count, Combine: Sum, Needs: NeedsCompare, Meaning: "recorded full compactions judged"},
		{Name: "compactions_within_one", Unit: Count, Combine: Sum, Needs: NeedsCompare, Part: true, Meaning: "numerator of agreement_timing"},
		{Name: "reclaimed_", Family: true, Unit: Tokens, Combine: Sum, Meaning: "tokens one stage reclaimed (reclaimed_<stage>), over every compaction"},
		{Name: "requests", Unit: Count, Combine: Sum, Part: true, Meaning: "requests the replay asked the policy before (its checkpoints), those the provider refused included (Claude Code's Prompt is too long); the cost table's requests are those billed, and the summarizer calls"},
		{Name: "sessions", Unit: Count, Combine: Sum, Part: true, Meaning: "sessions a parameter set finished (fewer than the corpus's: interrupted)"},
	}
}

// Lookup finds a metric by name (a family member by its prefix). Each
// call builds the Registry: a loop over rows or cells looks its names up
// once, before the loop (LookupEach, or find on one Registry).
func Lookup(name string) (Metric, bool) {
	return find(Registry(), name)
}

// LookupEach is Lookup of every name, reading the Registry once; a name
// not declared gives the zero Metric.
func LookupEach(names []string) []Metric {
	reg := Registry()
	out := make([]Metric, len(names))
	for i, n := range names {
		out[i], _ = find(reg, n)
	}
	return out
}

// find is Lookup in reg.
func find(reg []Metric, name string) (Metric, bool) {
	for _, m := range reg {
		if !m.Family && m.Name == name || (m.Family && strings.HasPrefix(name, m.Name) && len(name) > len(m.Name)) {
			return m, true
		}
	}
	return Metric{}, false
}

// HigherIsBetter reports a metric's direction; unknown names are costs.
func HigherIsBetter(name string) bool {
	m, _ := Lookup(name)
	return m.HigherBetter
}

// plainNames lists the registry's names, a family's as its prefix, for
// suggestions (reclaimed_ suggests itself for reclaimed_summ).
func plainNames() []string {
	var out []string
	for _, m := range Registry() {
		out = append(out, m.Name)
	}
	return out
}

// names lists the registry's names, comma-separated, for error messages.
func names() string {
	var names []string
	for _, m := range Registry() {
		n := m.Name
		if m.Family {
			n += "<stage>"
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// Check validates a metric a command was asked for: it must exist
// (*UnknownError, which lists the metrics) and be producible by the run
// (*UnavailableError; have says what the run provides).
func Check(name string, have func(Needs) bool) error {
	m, ok := Lookup(name)
	if !ok {
		return &UnknownError{Name: name}
	}
	if m.Needs != NeedsNothing && have != nil && !have(m.Needs) {
		return &UnavailableError{Name: name, Needs: m.Needs}
	}
	return nil
}

// UnknownError is a name the registry does not hold.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("%s: no such metric%s (known: %s)", e.Name, suggest.Hint(e.Name, plainNames()), names())
}

// UnavailableError is a metric the run cannot produce: it needs what
// Needs names. A command says which of its flags provides it.
type UnavailableError struct {
	Name  string
	Needs Needs
}

func (e *UnavailableError) Error() string {
	switch e.Needs {
	case NeedsCompare:
		return e.Name + ": agreement metrics need the replay compared with the recording"
	case NeedsRotation:
		return e.Name + ": digest metrics need a rotation policy"
	}
	return fmt.Sprintf("%s: needs %s", e.Name, e.Needs)
}

// Columns picks the table columns among the metric names present in some
// rows: in registry order, without the parts of ratios (Part), undeclared
// names or repeats. A family's members (reclaimed_<stage>) come in the
// order of stages (StageOrder of the policies reported), then any other
// member sorted, so that a column's position depends on the policies and
// never on which stages happened to reclaim something or on map order.
func Columns(present, stages []string) []string {
	rank := make(map[string]int, len(stages))
	for i, s := range stages {
		if _, ok := rank[s]; !ok {
			rank[s] = i
		}
	}
	var cols []string
	seen := make(map[string]bool, len(present))
	for _, m := range Registry() {
		if m.Part {
			continue
		}
		start := len(cols)
		for _, n := range present {
			if !seen[n] && (n == m.Name && !m.Family || m.Family && strings.HasPrefix(n, m.Name) && len(n) > len(m.Name)) {
				seen[n] = true
				cols = append(cols, n)
			}
		}
		if m.Family {
			members := cols[start:]
			sort.SliceStable(members, func(i, j int) bool {
				a, b := strings.TrimPrefix(members[i], m.Name), strings.TrimPrefix(members[j], m.Name)
				ra, oka := rank[a]
				rb, okb := rank[b]
				switch {
				case oka && okb:
					return ra < rb
				case oka != okb:
					return oka
				}
				return a < b
			})
		}
	}
	return cols
}

// StageOrder is the stage order of a report on the named policies: each
// policy's declared Stages, in policy.Defs order, each stage once. Columns
// orders reclaimed_<stage> by it, and SessionMetrics gives each of a
// policy's stages a value, so replay, sweep and merge have the same
// columns in the same places whichever stages reclaimed something.
func StageOrder(policies ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range policy.Defs() {
		if !slices.Contains(policies, d.Name) {
			continue
		}
		for _, s := range d.Stages {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}
