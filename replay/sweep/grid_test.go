package sweep

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/policy"
)

func TestParseAxis(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"compact_at=0.7,0.8,0.9", "0.7 0.8 0.9"},
		{"compact_at=0.6..0.9:0.1", "0.6 0.7 0.8 0.9"},
		{"window_turns=1..6", "1 2 3 4 5 6"},
		{"old_result_bytes=256..1024:256", "256 512 768 1024"},
		{"compact_at=0.6..0.95:0.05", "0.60 0.65 0.70 0.75 0.80 0.85 0.90 0.95"},
		{"x=1,3..5,9", "1 3 4 5 9"},
	}
	for _, tt := range tests {
		a, err := ParseAxis(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if got := strings.Join(a.Values, " "); got != tt.want {
			t.Errorf("%s = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Each error starts with the axis, never a flag: the command puts --grid
// in front, a grid file "parameter" and its line.
func TestParseAxisErrors(t *testing.T) {
	for in, want := range map[string]string{
		"novalue":       `"novalue": expected name=v1,v2 or name=a..b:step`,
		"x=":            "x: no values (expected name=v1,v2 or name=a..b:step)",
		"x=5..1":        `x: range "5..1": the end is below the start; a range counts up: write 1..5:1`,
		"x=1..5:0":      `x: range "1..5:0": the step must be positive; a step of 0 never reaches the end`,
		"x=a..b":        `x: range "a..b": expected a..b or a..b:step with numbers`,
		"x=0..1e9:1e-3": `x: range "0..1e9:1e-3" has 1e+12 values; a sweep holds at most 1,000,000 rows: use a larger step`,
		// The count overflows int: this panicked (makeslice: len out of range).
		"x=0.1..0.9:1e-300": `x: range "0.1..0.9:1e-300" has 8e+299 values; a sweep holds at most 1,000,000 rows: use a larger step`,
		"x=-1e308..1e308":   `x: range "-1e308..1e308" has +Inf values; a sweep holds at most 1,000,000 rows: use a larger step`,
		"x=NaN..1":          `x: range "NaN..1": expected a..b or a..b:step with numbers`,
		"x=0..Inf:1":        `x: range "0..Inf:1": expected a..b or a..b:step with numbers`,
		"x=1,,3":            `x: an empty value in "1,,3" (remove the extra comma)`,
		"x=1,":              `x: an empty value in "1," (remove the extra comma)`,
		"x=0.6,0.6":         "x: value 0.6 is given twice, which would run the same parameter set twice",
		"x=1..3,2":          "x: value 2 is given twice, which would run the same parameter set twice",
		// No step is a step of 1, for whole numbers only: this swept 0.6
		// alone, exit 0.
		"x=0.6..0.9": `x: range "0.6..0.9" has no step; a range of fractions needs one: write 0.6..0.9:0.1, say`,
		"x=1..2.5":   `x: range "1..2.5" has no step; a range of fractions needs one: write 1..2.5:0.1, say`,
	} {
		_, err := ParseAxis(in)
		if err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %q", in, err, want)
		}
	}
}

func TestGridSetOrderAndPoints(t *testing.T) {
	g := Grid{{Name: "a", Values: []string{"1", "2"}}, {Name: "b", Values: []string{"x", "y", "z"}}}
	if g.Points() != 6 {
		t.Fatalf("points = %d", g.Points())
	}
	var got []string
	for i := range g.Points() {
		s := g.Set(i, map[string]string{"c": "k"})
		got = append(got, s["a"]+s["b"]+s["c"])
	}
	if strings.Join(got, " ") != "1xk 1yk 1zk 2xk 2yk 2zk" {
		t.Fatalf("order = %v", got)
	}
	huge := Grid{}
	for range 30 {
		huge = append(huge, Axis{Name: "p", Values: make([]string, 100)})
	}
	if huge.Points() != math.MaxInt64 {
		t.Fatal("points must saturate")
	}
}

func TestGridFileKeepsKeyOrder(t *testing.T) {
	g, err := ParseGridFile([]byte(`{"window_turns":[1,2],"compact_at":"0.7..0.8:0.1","summarizer":["fixed:100","ratio:0.1"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if g.String() != "window_turns=1,2 compact_at=0.7,0.8 summarizer=fixed:100,ratio:0.1" {
		t.Fatalf("grid = %s", g)
	}
	if _, err := ParseGridFile([]byte(`[1,2]`)); err == nil {
		t.Fatal("a non-object grid file must fail")
	}
}

func TestGridValidate(t *testing.T) {
	def := policy.Def{Name: "p", Specs: []policy.ParamSpec{
		{Name: "compact_at", Kind: policy.Float, Default: "0.8", Min: 0, Max: 1},
	}}
	if err := (Grid{}).Validate(def, nil); err == nil || !strings.Contains(err.Error(), "empty grid") {
		t.Errorf("empty grid: %v", err)
	}
	if err := (Grid{{Name: "nope", Values: []string{"1"}}}).Validate(def, nil); err == nil || !strings.Contains(err.Error(), `no parameter "nope"`) {
		t.Errorf("unknown name: %v", err)
	}
	if err := (Grid{{Name: "compact_at", Values: []string{"0.5", "1.5"}}}).Validate(def, nil); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("out of range: %v", err)
	}
	if err := (Grid{{Name: "compact_at", Values: []string{"0.5"}}}).Validate(def, map[string]string{"compact_at": "0.6"}); err == nil ||
		err.Error() != "parameter compact_at is both swept and set to a fixed value" {
		t.Errorf("a parameter both swept and fixed: %v", err)
	}
	if err := (Grid{{Name: "compact_at", Values: []string{"0.5"}}, {Name: "compact_at", Values: []string{"0.6"}}}).Validate(def, nil); err == nil ||
		err.Error() != "parameter compact_at is given twice" {
		t.Errorf("an axis twice: %v", err)
	}
	// Two spellings of one value would run one parameter set twice, as
	// 1,1 would (ParseAxis refuses that one).
	var same *SameValuesError
	if err := (Grid{{Name: "compact_at", Values: []string{"0.7", "0.8", "0.70"}}}).Validate(def, nil); !errors.As(err, &same) ||
		err.Error() != "compact_at: values 0.7 and 0.70 are the same value, which would run the same parameter set twice" {
		t.Errorf("one value spelled twice: %v", err)
	}
	if err := (Grid{{Name: "compact_at", Values: []string{"0.7", "0.75"}}}).Validate(def, nil); err != nil {
		t.Errorf("different values: %v", err)
	}
}

func TestShard(t *testing.T) {
	for _, bad := range []string{"0/3", "4/3", "1/0", "a/b", "3"} {
		if _, err := ParseShard(bad); err == nil || err.Error() != fmt.Sprintf("%q: expected k/n with 1 <= k <= n, e.g. 1/3", bad) {
			t.Errorf("ParseShard(%q) = %v, want the text and what was expected", bad, err)
		}
	}
	seen := map[int64]int{}
	for k := 1; k <= 3; k++ {
		s, _ := ParseShard(strings.Join([]string{string(rune('0' + k)), "3"}, "/"))
		for i := range int64(10) {
			if s.Has(i) {
				seen[i]++
			}
		}
	}
	for i := range int64(10) {
		if seen[i] != 1 {
			t.Fatalf("set %d is in %d shards", i, seen[i])
		}
	}
}

func TestParseGridFileErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"compact_at": [0.7, 0.8`:  "grid file ends early (truncated?)",
		`{"compact_at": [0.7, 0.8]`: "grid file ends early (truncated?)",
		"":                          "grid file is empty",
		`{"x": [1 2]}`:              "invalid JSON at byte 10",
		`[1, 2]`:                    "expected a JSON object",
	} {
		_, err := ParseGridFile([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", in, err, want)
		}
	}
}

// A grid file's error names the line it is on, and a range's bad step
// says what is wrong with it.
func TestGridFileErrorLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		line int
		want string
	}{
		{"{\n  \"a\": [1, 2],\n  \"b\": \"x..y\"\n}", 3, `parameter b: range "x..y": expected a..b or a..b:step with numbers`},
		{"{\n  \"a\": [1],\n  \"a\": [2]\n}", 3, "parameter a is given twice (first on line 2)"},
		{"{\n  \"a\": {\"x\": 1}\n}", 2, "parameter a: expected a list of values or a range string"},
		{"{\n  \"a\": [1, \n}\n", 3, "invalid JSON at byte 15: invalid character '}' looking for beginning of value"},
		{"{\n  \"a\": \"1..5:0\"\n}", 2, `parameter a: range "1..5:0": the step must be positive; a step of 0 never reaches the end`},
		{"{\n  \"a\": \"1..5:-1\"\n}", 2, `parameter a: range "1..5:-1": the step must be positive; a range counts up from its start to its end`},
		{"{\n  \"a\": \"5..1:1\"\n}", 2, `parameter a: range "5..1:1": the end is below the start; a range counts up: write 1..5:1`},
	} {
		_, err := ParseGridFile([]byte(tc.in))
		var ge *GridFileError
		if !errors.As(err, &ge) || ge.Line != tc.line || ge.Err.Error() != tc.want {
			t.Errorf("%q: err = %v, want line %d: %s", tc.in, err, tc.line, tc.want)
		}
	}
	g, err := ParseGridFile([]byte("{\"a\": [1],\n\"b\": [2]}"))
	if err != nil || g[0].Line != 1 || g[1].Line != 2 {
		t.Errorf("lines of %v: %v", g, err)
	}
}

// TestIntegerRangesStayExact: a range of integers is expanded in integer
// arithmetic, so values past 2^53 are the ones written (through float64
// 9007199254740993..9007199254740997 gave 9007199254740992 twice), up to
// the largest int64; a float range still works as before.
func TestIntegerRangesStayExact(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"n=9007199254740993..9007199254740997:2", []string{"9007199254740993", "9007199254740995", "9007199254740997"}},
		{"n=9223372036854775806..9223372036854775807", []string{"9223372036854775806", "9223372036854775807"}},
		{"n=-3..3:3", []string{"-3", "0", "3"}},
		{"n=0.5..1:0.25", []string{"0.50", "0.75", "1.00"}},
	} {
		a, err := ParseAxis(c.in)
		if err != nil || !slices.Equal(a.Values, c.want) {
			t.Errorf("%s: %v %v; want %v", c.in, a.Values, err, c.want)
		}
	}
	if _, err := ParseAxis("n=-9223372036854775808..9223372036854775807"); err == nil || !strings.Contains(err.Error(), "has 18,446,744,073,709,551,616 values; a sweep holds at most 1,000,000 rows") {
		t.Errorf("the whole int64 range: %v", err)
	}
}
