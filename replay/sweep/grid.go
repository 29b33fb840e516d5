// Package sweep runs a policy over a grid of parameter sets: it owns the
// grid and its shards, the job plan, the rows and their aggregation per set,
// the report and its views, the merge of shards and the --out JSON-lines
// stream. Metrics come from package metrics; replays from package replay.
package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/report"
)

// Axis is one swept parameter and its values, in the order given.
type Axis struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
	// Line is the line of a grid file the axis was read from (0: from
	// --grid), for errors about it.
	Line int `json:"-"`
}

// GridFileError is a grid file's error at one line.
type GridFileError struct {
	Line int
	Err  error
}

func (e *GridFileError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *GridFileError) Unwrap() error { return e.Err }

// Grid is the cartesian product of its axes. The first axis varies slowest,
// the last fastest, so the order of parameter sets is stable and reads like
// nested loops in the order the user wrote the --grid flags.
type Grid []Axis

// MaxPoints is the size above which a sweep asks for --yes: a grid of this
// many parameter sets runs for hours even on small corpora. Memory is
// bounded separately, --yes or not: see MaxRows.
const MaxPoints = 100_000

// ParseAxis parses "name=v1,v2,v3" or "name=a..b:step" (integers or
// fractions; the step defaults to 1). Range end points are inclusive; values
// are formatted with the step's decimals so 0.6..0.9:0.1 gives 0.6 0.7 0.8
// 0.9 and never 0.7000000000000001. Its errors start with the axis (its
// name, or the whole text when it has none), for the caller to put the
// flag or the file line in front.
func ParseAxis(s string) (Axis, error) {
	name, vals, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Axis{}, fmt.Errorf("%q: expected name=v1,v2 or name=a..b:step", s)
	}
	if strings.TrimSpace(vals) == "" {
		return Axis{}, fmt.Errorf("%s: no values (expected name=v1,v2 or name=a..b:step)", name)
	}
	a := Axis{Name: name}
	for _, part := range strings.Split(vals, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return Axis{}, fmt.Errorf("%s: an empty value in %q (remove the extra comma)", name, vals)
		}
		if strings.Contains(part, "..") {
			r, err := expandRange(part)
			if err != nil {
				return Axis{}, fmt.Errorf("%s: %v", name, err)
			}
			a.Values = append(a.Values, r...)
			continue
		}
		a.Values = append(a.Values, part)
	}
	seen := make(map[string]bool, len(a.Values))
	for _, v := range a.Values {
		if seen[v] {
			return Axis{}, fmt.Errorf("%s: value %s is given twice, which would run the same parameter set twice", name, v)
		}
		seen[v] = true
	}
	return a, nil
}

func expandRange(s string) ([]string, error) {
	lohi, step, hasStep := strings.Cut(s, ":")
	lo, hi, _ := strings.Cut(lohi, "..")
	if !hasStep {
		// A step of 1 is implied for whole numbers only: 0.6..0.9 swept
		// 0.6 alone, with exit 0.
		if decimals(lo) > 0 || decimals(hi) > 0 {
			return nil, fmt.Errorf("range %q has no step; a range of fractions needs one: write %s..%s:0.1, say", s, lo, hi)
		}
		step = "1"
	}
	if out, ok, err := expandIntRange(s, lo, hi, step); ok {
		return out, err
	}
	a, err1 := strconv.ParseFloat(lo, 64)
	b, err2 := strconv.ParseFloat(hi, 64)
	st, err3 := strconv.ParseFloat(step, 64)
	if err1 != nil || err2 != nil || err3 != nil || !finite(a) || !finite(b) {
		return nil, fmt.Errorf("range %q: expected a..b or a..b:step with numbers", s)
	}
	switch {
	case st == 0:
		return nil, fmt.Errorf("range %q: the step must be positive; a step of 0 never reaches the end", s)
	case st < 0 || math.IsInf(st, 0) || math.IsNaN(st):
		return nil, fmt.Errorf("range %q: the step must be positive; a range counts up from its start to its end", s)
	case b < a:
		return nil, fmt.Errorf("range %q: the end is below the start; a range counts up: write %s..%s:%s", s, hi, lo, strings.TrimPrefix(step, "-"))
	}
	// Count in floats first: a tiny step (1e-300) or a wide range makes
	// the count overflow int, which once made a negative slice length. A
	// range of more values than a sweep may hold rows is refused before
	// its values are made (and each validated: 57 s for 9,000,000).
	fn := math.Floor((b-a)/st+1e-9) + 1
	if !(fn <= MaxRows) {
		return nil, fmt.Errorf("range %q has %.4g values; a sweep holds at most %s rows: use a larger step", s, fn, report.FormatInt(MaxRows))
	}
	n := int(fn)
	dec := max(decimals(lo), decimals(step))
	out := make([]string, n)
	for i := range n {
		out[i] = strconv.FormatFloat(a+float64(i)*st, 'f', dec, 64)
	}
	return out, nil
}

// expandIntRange expands a range whose bounds and step are all integers in
// int64 arithmetic (ok false: not such a range). Through float64, values
// past 2^53 came out as ones the user never wrote
// (9007199254740993..9007199254740997 gave 9007199254740992 twice).
func expandIntRange(s, lo, hi, step string) (out []string, ok bool, err error) {
	a, err1 := strconv.ParseInt(lo, 10, 64)
	b, err2 := strconv.ParseInt(hi, 10, 64)
	st, err3 := strconv.ParseInt(step, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, false, nil
	}
	switch {
	case st == 0:
		return nil, true, fmt.Errorf("range %q: the step must be positive; a step of 0 never reaches the end", s)
	case st < 0:
		return nil, true, fmt.Errorf("range %q: the step must be positive; a range counts up from its start to its end", s)
	case b < a:
		return nil, true, fmt.Errorf("range %q: the end is below the start; a range counts up: write %s..%s:%s", s, hi, lo, step)
	}
	// b - a as unsigned cannot overflow when b >= a; the count, one more
	// than the steps, can (the whole int64 range), so steps are compared.
	steps := (uint64(b) - uint64(a)) / uint64(st)
	if steps >= MaxRows {
		count := new(big.Int).Add(new(big.Int).SetUint64(steps), big.NewInt(1))
		return nil, true, fmt.Errorf("range %q has %s values; a sweep holds at most %s rows: use a larger step", s, report.GroupDigits(count.String()), report.FormatInt(MaxRows))
	}
	n := steps + 1
	out = make([]string, n)
	for i := range out {
		out[i] = strconv.FormatInt(a+int64(i)*st, 10)
	}
	return out, true, nil
}

func finite(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }

func decimals(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// MaxGridFileBytes caps a --grid-file at 1 MiB: 100,000 listed values of
// up to 9 characters (a grid of more sets is refused without --yes), and
// a range string stands for any number of them. A bigger file, or a
// device or pipe that never ends, is refused before it is read whole.
const MaxGridFileBytes = 1 << 20

// ParseGridFile reads a JSON object {"name": [v1, v2], "name2": "a..b:step"}
// keeping the keys in the order written.
func ParseGridFile(data []byte) (Grid, error) {
	// Check the whole document first, so a truncated or malformed file is
	// reported as such (with the offset) rather than as a token error.
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		switch {
		case len(bytes.TrimSpace(data)) == 0:
			return nil, fmt.Errorf("grid file is empty; expected a JSON object such as {\"compact_at\": [0.7, 0.8]}")
		case errors.As(err, &se) && se.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))) && strings.Contains(se.Error(), "unexpected end"):
			return nil, fmt.Errorf("grid file ends early (truncated?): %v; expected a complete JSON object such as {\"compact_at\": [0.7, 0.8]}", err)
		case errors.As(err, &se):
			return nil, &GridFileError{Line: lineAt(data, se.Offset), Err: fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, err)}
		default:
			return nil, fmt.Errorf("grid file: invalid JSON: %v", err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("grid file: expected a JSON object of parameter names to value lists")
	}
	var g Grid
	lines := map[string]int{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("grid file: %v", err)
		}
		name := t.(string)
		line := lineAt(data, dec.InputOffset())
		if first, ok := lines[name]; ok {
			return nil, &GridFileError{Line: line, Err: fmt.Errorf("parameter %s is given twice (first on line %d)", name, first)}
		}
		lines[name] = line
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, &GridFileError{Line: line, Err: fmt.Errorf("parameter %s: %v", name, err)}
		}
		var spec string
		var list []json.RawMessage
		switch {
		case json.Unmarshal(raw, &spec) == nil:
		case json.Unmarshal(raw, &list) == nil:
			parts := make([]string, len(list))
			for i, v := range list {
				var s string
				if json.Unmarshal(v, &s) == nil {
					parts[i] = s
				} else {
					parts[i] = string(v)
				}
			}
			spec = strings.Join(parts, ",")
		default:
			return nil, &GridFileError{Line: line, Err: fmt.Errorf("parameter %s: expected a list of values or a range string", name)}
		}
		a, err := ParseAxis(name + "=" + spec)
		if err != nil {
			return nil, &GridFileError{Line: line, Err: fmt.Errorf("parameter %w", err)}
		}
		a.Line = line
		g = append(g, a)
		if err := CheckRows(g.Points(), 1); err != nil {
			return nil, fmt.Errorf("grid file: %w", err)
		}
	}
	return g, nil
}

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// Points is the number of parameter sets, saturating at math.MaxInt64.
func (g Grid) Points() int64 {
	n := big.NewInt(1)
	for _, a := range g {
		n.Mul(n, big.NewInt(int64(len(a.Values))))
	}
	if !n.IsInt64() {
		return math.MaxInt64
	}
	return n.Int64()
}

// Validate checks every axis name and value against a policy's parameters
// (before any work starts) and rejects an axis named twice or also fixed.
// Its errors name the axis, not where it came from (a flag, a grid file
// line): the command says that. Two spellings of one value are a
// *SameValuesError.
func (g Grid) Validate(def policy.Def, fixed map[string]string) error {
	if len(g) == 0 {
		return errors.New("empty grid: no parameter to sweep")
	}
	seen := map[string]bool{}
	for _, a := range g {
		if seen[a.Name] {
			return fmt.Errorf("parameter %s is given twice", a.Name)
		}
		seen[a.Name] = true
		if _, ok := fixed[a.Name]; ok {
			return fmt.Errorf("parameter %s is both swept and set to a fixed value", a.Name)
		}
		// Two spellings of one value (0.7 and 0.70) would run the same
		// parameter set twice, as a value given twice would.
		first := map[string]string{}
		for _, v := range a.Values {
			vals, err := policy.Resolve(def.Name, def.Specs, map[string]string{a.Name: v})
			if err != nil {
				return err
			}
			norm := vals.Str(a.Name)
			if f, ok := first[norm]; ok {
				return &SameValuesError{Axis: a.Name, First: f, Second: v}
			}
			first[norm] = v
		}
	}
	return nil
}

// SameValuesError is an axis with two spellings of one value (0.7 and
// 0.70), which would run the same parameter set twice.
type SameValuesError struct{ Axis, First, Second string }

func (e *SameValuesError) Error() string {
	return fmt.Sprintf("%s: values %s and %s are the same value, which would run the same parameter set twice", e.Axis, e.First, e.Second)
}

// Set returns parameter set i (0 <= i < Points) as --set style settings,
// merged over the fixed ones.
func (g Grid) Set(i int64, fixed map[string]string) map[string]string {
	out := make(map[string]string, len(fixed)+len(g))
	for k, v := range fixed {
		out[k] = v
	}
	for j := len(g) - 1; j >= 0; j-- {
		n := int64(len(g[j].Values))
		out[g[j].Name] = g[j].Values[i%n]
		i /= n
	}
	return out
}

// String renders the grid as repeatable --grid flags, for fingerprints.
func (g Grid) String() string {
	parts := make([]string, len(g))
	for i, a := range g {
		parts[i] = a.Name + "=" + strings.Join(a.Values, ",")
	}
	return strings.Join(parts, " ")
}

// Shard is a deterministic slice of a sweep's parameter sets: set i belongs
// to shard K of N when i mod N == K-1. Interleaving (rather than contiguous
// blocks) spreads expensive corners of the grid over every shard.
type Shard struct{ K, N int }

// ParseShard parses "k/n" with 1 <= k <= n. Its error starts with the
// text, for the caller to name where it came from.
func ParseShard(s string) (Shard, error) {
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return Shard{}, fmt.Errorf("%q: expected k/n with 1 <= k <= n, e.g. 1/3", s)
	}
	return Shard{K: k, N: n}, nil
}

// Has reports whether parameter set i belongs to the shard. The zero Shard
// has every set.
func (s Shard) Has(i int64) bool { return s.N <= 1 || i%int64(s.N) == int64(s.K-1) }

func (s Shard) String() string {
	if s.N <= 1 {
		return "1/1"
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}
