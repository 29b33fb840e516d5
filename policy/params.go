package policy

import (
	"errors"
	"fmt"
	"github.com/calib-dev/calib/policy/suggest"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Kind is the type of a parameter value.
type Kind string

const (
	Int    Kind = "int"
	Float  Kind = "float"
	Bool   Kind = "bool"
	String Kind = "string"
	Enum   Kind = "enum"
	List   Kind = "list" // comma-separated names
	// AutoInt is "auto" (the policy picks the value, by agent version or
	// variant) or an Int in [Min, Max].
	AutoInt Kind = "auto|int"
)

// MaxTokens bounds every parameter counted in tokens (and the thresholds
// and budgets that may be given in tokens): a billion, 500 times the
// largest context window a model offers (2M). A bound is needed because
// such values are summed: overhead_tokens is added at every request, and
// 9e18 wrapped tokens_sent to negative totals. Counts of turns or
// messages and byte caps are only compared, and stay unbounded.
const MaxTokens = 1e9

// ParamSpec declares one parameter of a policy: its name (as the agent's
// own config spells it), type, default, range and meaning.
type ParamSpec struct {
	Name    string
	Kind    Kind
	Default string
	Min     float64 // Int and Float: inclusive bounds (ignored when Min == Max == 0)
	Max     float64
	Choices []string // Enum
	Help    string
	// Check validates a String value beyond its kind (e.g. summarizer
	// syntax); it returns a message saying what is expected.
	Check func(string) error
	// Canon validates a String value as Check does and returns its one
	// spelling, so that a grid's duplicate check sees fixed:02000 and
	// fixed:2000 as the one set they are (each ran).
	Canon func(string) (string, error)
}

// Range describes the valid values, for `calib policies` and errors.
func (s ParamSpec) Range() string {
	switch s.Kind {
	case AutoInt:
		return "auto|" + ParamSpec{Kind: Int, Min: s.Min, Max: s.Max}.Range()
	case Int, Float:
		if s.Min == 0 && s.Max == 0 {
			return s.Kind.String()
		}
		hi := formatNum(s.Max)
		if math.IsInf(s.Max, 1) {
			hi = "∞"
		}
		return fmt.Sprintf("%s in [%s, %s]", s.Kind, formatNum(s.Min), hi)
	case Bool:
		return "true|false"
	case Enum:
		return strings.Join(s.Choices, "|")
	case List:
		return "comma-separated names"
	}
	return "text"
}

func (k Kind) String() string { return string(k) }

func formatNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Parse checks one value against the spec and returns it normalized.
func (s ParamSpec) Parse(v string) (string, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("parameter %s=%q: %s (valid: %s)", s.Name, v, fmt.Sprintf(format, a...), s.Range())
	}
	switch s.Kind {
	case AutoInt:
		if v == "auto" {
			return v, nil
		}
		n, err := ParamSpec{Name: s.Name, Kind: Int, Min: s.Min, Max: s.Max}.Parse(v)
		if err != nil {
			return "", bad("not auto or an integer in range")
		}
		return n, nil
	case Int:
		clean := strings.ReplaceAll(v, "_", "")
		n, err := strconv.ParseInt(clean, 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			// A whole number in exponent notation (2e5, 1.5e3): how a
			// float prints it, and how one is typed.
			if f, ferr := strconv.ParseFloat(clean, 64); ferr == nil && f == math.Trunc(f) {
				if math.Abs(f) >= 1<<53 {
					return "", bad("out of range")
				}
				n, err = int64(f), nil
			}
		}
		if errors.Is(err, strconv.ErrRange) {
			return "", bad("out of range")
		}
		if err != nil {
			return "", bad("not an integer")
		}
		if !(s.Min == 0 && s.Max == 0) && (float64(n) < s.Min || float64(n) > s.Max) {
			return "", bad("out of range")
		}
		return strconv.FormatInt(n, 10), nil
	case Float:
		f, err := strconv.ParseFloat(v, 64)
		switch {
		case errors.Is(err, strconv.ErrRange):
			return "", bad("out of range") // 1e309 parses as +Inf with ErrRange
		case err != nil || math.IsNaN(f):
			return "", bad("not a number")
		case math.IsInf(f, 0):
			return "", bad("not a finite number")
		}
		if !(s.Min == 0 && s.Max == 0) && (f < s.Min || f > s.Max) {
			return "", bad("out of range")
		}
		return formatNum(f), nil
	case Bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return "", bad("not a boolean")
		}
		return strconv.FormatBool(b), nil
	case Enum:
		for _, c := range s.Choices {
			if v == c {
				return v, nil
			}
		}
		return "", bad("not one of the choices")
	case List:
		var out []string
		for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '+' }) {
			out = append(out, f)
		}
		return strings.Join(out, ","), nil
	}
	if s.Check != nil {
		if err := s.Check(v); err != nil {
			return "", bad("%v", err)
		}
	}
	if s.Canon != nil {
		c, err := s.Canon(v)
		if err != nil {
			return "", bad("%v", err)
		}
		v = c
	}
	return v, nil
}

// Param is one resolved parameter, for reports.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Params are resolved parameters in declaration order.
type Params []Param

// Get returns the value of a parameter, or "" when absent.
func (ps Params) Get(name string) string {
	for _, p := range ps {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// String renders "k=v,k=v" in declaration order.
func (ps Params) String() string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.Name + "=" + p.Value)
	}
	return b.String()
}

// Values are validated parameter values of one policy, defaults filled in.
type Values struct {
	specs []ParamSpec
	vals  map[string]string
	memo  *TokenMemo // shared o200k memo (Def.Build), or nil
}

// Resolve validates settings against specs and fills in the defaults. An
// unknown name is an error that lists the valid ones.
func Resolve(policy string, specs []ParamSpec, set map[string]string) (Values, error) {
	v := Values{specs: specs, vals: make(map[string]string, len(specs))}
	for _, s := range specs {
		v.vals[s.Name] = s.Default
	}
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		spec, ok := findSpec(specs, k)
		if !ok {
			return Values{}, fmt.Errorf("policy %s has no parameter %q%s (it has: %s)", policy, k, suggest.Hint(k, specList(specs)), specNames(specs))
		}
		norm, err := spec.Parse(set[k])
		if err != nil {
			return Values{}, err
		}
		v.vals[k] = norm
	}
	return v, nil
}

func findSpec(specs []ParamSpec, name string) (ParamSpec, bool) {
	for _, s := range specs {
		if s.Name == name {
			return s, true
		}
	}
	return ParamSpec{}, false
}

func specNames(specs []ParamSpec) string {
	return strings.Join(specList(specs), ", ")
}

func specList(specs []ParamSpec) []string {
	n := make([]string, len(specs))
	for i, s := range specs {
		n[i] = s.Name
	}
	return n
}

// Str returns a parameter's value as text.
func (v Values) Str(name string) string { return v.vals[name] }

// Text is a text parameter's value (a stub, a marker) with \n standing for
// a newline, so that such a text fits on a command line and in one CSV
// cell of `calib policies`.
func (v Values) Text(name string) string { return strings.ReplaceAll(v.vals[name], `\n`, "\n") }

// Int returns a parameter's integer value (validated by Resolve).
func (v Values) Int(name string) int {
	n, _ := strconv.Atoi(v.vals[name])
	return n
}

// Float returns a parameter's float value (validated by Resolve).
func (v Values) Float(name string) float64 {
	f, _ := strconv.ParseFloat(v.vals[name], 64)
	return f
}

// Bool returns a parameter's boolean value (validated by Resolve).
func (v Values) Bool(name string) bool { return v.vals[name] == "true" }

// List returns a list parameter's names.
func (v Values) List(name string) []string {
	if v.vals[name] == "" {
		return nil
	}
	return strings.Split(v.vals[name], ",")
}

// Params returns the resolved values in declaration order.
func (v Values) Params() Params {
	ps := make(Params, len(v.specs))
	for i, s := range v.specs {
		ps[i] = Param{Name: s.Name, Value: v.vals[s.Name]}
	}
	return ps
}

// ParseSet parses --set values: "k=v,k=v" pairs, repeated flags allowed. A
// comma not followed by "name=" continues the previous value, so list
// parameters read naturally: supersedable_tools=read_file,grep,window_turns=2.
func ParseSet(flags []string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range flags {
		var last string
		for _, part := range strings.Split(f, ",") {
			k, val, ok := strings.Cut(part, "=")
			k = strings.TrimSpace(k) // " max_tokens = 5" names max_tokens
			if !ok || strings.ContainsAny(k, " ") || k == "" {
				if last == "" {
					return nil, fmt.Errorf("%q: expected name=value pairs separated by commas", f)
				}
				out[last] += "," + part
				continue
			}
			out[k] = strings.TrimSpace(val)
			last = k
		}
	}
	return out, nil
}
