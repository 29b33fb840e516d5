package policy

import (
	"maps"
	"strings"
	"testing"
)

func TestParseSet(t *testing.T) {
	cases := []struct {
		flags []string
		want  map[string]string
		err   string
	}{
		{[]string{"max_tokens=1000,compact_at=0.7"}, map[string]string{"max_tokens": "1000", "compact_at": "0.7"}, ""},
		{[]string{"supersedable_tools=read_file,grep,window_turns=2"}, map[string]string{"supersedable_tools": "read_file,grep", "window_turns": "2"}, ""},
		{[]string{"a=1", "b=2", "a=3"}, map[string]string{"a": "3", "b": "2"}, ""},
		{[]string{" max_tokens = 5 "}, map[string]string{"max_tokens": "5"}, ""},
		{[]string{"summarizer=fixed:10"}, map[string]string{"summarizer": "fixed:10"}, ""},
		{[]string{"oops"}, nil, `"oops": expected name=value pairs separated by commas`},
	}
	for _, c := range cases {
		got, err := ParseSet(c.flags)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%v: err %v, want %s", c.flags, err, c.err)
			}
			continue
		}
		if err != nil || !maps.Equal(got, c.want) {
			t.Errorf("%v: %v %v, want %v", c.flags, got, err, c.want)
		}
	}
}

func TestParamSpecParseAndRange(t *testing.T) {
	cases := []struct {
		spec       ParamSpec
		in, out    string
		err, rangE string
	}{
		{ParamSpec{Name: "n", Kind: Int, Min: 1, Max: 10}, "1_0", "10", "", "int in [1, 10]"},
		{ParamSpec{Name: "n", Kind: Int, Min: 1, Max: 10}, "11", "", `parameter n="11": out of range (valid: int in [1, 10])`, ""},
		{ParamSpec{Name: "n", Kind: Int}, "-5", "-5", "", "int"},
		{ParamSpec{Name: "n", Kind: Int, Min: 1, Max: 10}, "99999999999999999999", "", `parameter n="99999999999999999999": out of range (valid: int in [1, 10])`, ""},
		{ParamSpec{Name: "n", Kind: Int, Min: 1, Max: 10}, "ten", "", `parameter n="ten": not an integer (valid: int in [1, 10])`, ""},
		// A whole number in exponent notation is one; a fraction is not.
		{ParamSpec{Name: "n", Kind: Int, Min: 1, Max: 1e9}, "2e5", "200000", "", "int in [1, 1e+09]"},
		{ParamSpec{Name: "n", Kind: Int, Min: 1, Max: 1e9}, "1.5e3", "1500", "", "int in [1, 1e+09]"},
		{ParamSpec{Name: "n", Kind: Int, Min: 1, Max: 1e9}, "4.0", "4", "", "int in [1, 1e+09]"},
		{ParamSpec{Name: "n", Kind: Int, Min: 1, Max: 1e9}, "1.5", "", `parameter n="1.5": not an integer (valid: int in [1, 1e+09])`, ""},
		{ParamSpec{Name: "n", Kind: Int, Min: 1, Max: 1e9}, "2e9", "", `parameter n="2e9": out of range (valid: int in [1, 1e+09])`, ""},
		{ParamSpec{Name: "n", Kind: Int}, "1e300", "", `parameter n="1e300": out of range (valid: int)`, ""},
		{ParamSpec{Name: "n", Kind: Int}, "NaN", "", `parameter n="NaN": not an integer (valid: int)`, ""},
		{ParamSpec{Name: "f", Kind: Float, Min: 0, Max: 1}, "0.50", "0.5", "", "float in [0, 1]"},
		{ParamSpec{Name: "f", Kind: Float, Min: 0, Max: 1}, "NaN", "", `parameter f="NaN": not a number (valid: float in [0, 1])`, ""},
		{ParamSpec{Name: "f", Kind: Float, Min: 0, Max: 1}, "1e309", "", `parameter f="1e309": out of range (valid: float in [0, 1])`, ""},
		{ParamSpec{Name: "f", Kind: Float}, "-Inf", "", `parameter f="-Inf": not a finite number (valid: float)`, ""},
		{ParamSpec{Name: "f", Kind: Float}, "1e309", "", `parameter f="1e309": out of range (valid: float)`, ""},
		{ParamSpec{Name: "b", Kind: Bool}, "1", "true", "", "true|false"},
		{ParamSpec{Name: "e", Kind: Enum, Choices: []string{"a", "b"}}, "b", "b", "", "a|b"},
		{ParamSpec{Name: "l", Kind: List}, "x, y+z", "x,y,z", "", "comma-separated names"},
		{ParamSpec{Name: "s", Kind: String, Canon: canonSummarizer}, "fail", "fail", "", "text"},
		// One spelling per summarizer: a grid of fixed:2000 and fixed:02000
		// ran the same set twice.
		{ParamSpec{Name: "s", Kind: String, Canon: canonSummarizer}, "fixed:02_000", "fixed:2000", "", "text"},
		{ParamSpec{Name: "s", Kind: String, Canon: canonSummarizer}, "ratio:0.50", "ratio:0.5", "", "text"},
		{ParamSpec{Name: "s", Kind: String, Canon: canonSummarizer}, "fixed:x", "", `parameter s="fixed:x": fixed needs a byte count >= 0, e.g. fixed:2000 (valid: text)`, ""},
		// auto or a bounded whole number: codex's context_window and
		// claude-code's output_reserve took 2^63 - 1 and wrapped the
		// trigger to a negative count.
		{ParamSpec{Name: "w", Kind: AutoInt, Min: 1, Max: 1e9}, "auto", "auto", "", "auto|int in [1, 1e+09]"},
		{ParamSpec{Name: "w", Kind: AutoInt, Min: 1, Max: 1e9}, "2e5", "200000", "", "auto|int in [1, 1e+09]"},
		{ParamSpec{Name: "w", Kind: AutoInt, Min: 1, Max: 1e9}, "9223372036854775807", "", `parameter w="9223372036854775807": not auto or an integer in range (valid: auto|int in [1, 1e+09])`, ""},
		{ParamSpec{Name: "w", Kind: AutoInt, Min: 1, Max: 1e9}, "0", "", `parameter w="0": not auto or an integer in range (valid: auto|int in [1, 1e+09])`, ""},
		{ParamSpec{Name: "w", Kind: AutoInt, Min: 1, Max: 1e9}, "Auto", "", `parameter w="Auto": not auto or an integer in range (valid: auto|int in [1, 1e+09])`, ""},
	}
	for _, c := range cases {
		got, err := c.spec.Parse(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s=%q: err %v, want %s", c.spec.Name, c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.out || c.spec.Range() != c.rangE {
			t.Errorf("%s=%q: %q %v range %q", c.spec.Name, c.in, got, err, c.spec.Range())
		}
	}
}

func TestResolveFillsDefaultsInOrder(t *testing.T) {
	d, err := Lookup("smith-staged")
	if err != nil {
		t.Fatal(err)
	}
	v, err := Resolve(d.Name, d.Specs, map[string]string{"window_turns": "2", "ratio": "1.50"})
	if err != nil {
		t.Fatal(err)
	}
	want := "max_tokens=120000,compact_at=0.8,compact_to=0.5,overhead_tokens=0,ratio=1.5,ratio_recorded=false,window_turns=2,thinking_window=1,old_result_bytes=512,supersedable_tools=read_file,grep,glob,image_tokens=1600,document_tokens=5000,summarizer=fixed:2000,meter=bytes4,stage_thinking=true,stage_attachments=true,stage_duplicates=true,stage_truncate=true,stage_summarize=true"
	if got := v.Params().String(); got != want {
		t.Fatalf("params:\n got %s\nwant %s", got, want)
	}
	if v.Int("window_turns") != 2 || v.Float("ratio") != 1.5 || !v.Bool("stage_truncate") || strings.Join(v.List("supersedable_tools"), " ") != "read_file grep glob" {
		t.Fatal("typed accessors disagree with the values")
	}
	if v.Params().Get("meter") != "bytes4" || v.Params().Get("nope") != "" {
		t.Fatal("Params.Get")
	}
}

func TestEveryDefaultIsValid(t *testing.T) {
	// Every policy builds from its defaults, and every default parses under
	// its own spec: `calib policies` never shows a value calib rejects.
	for _, d := range Defs() {
		for _, s := range d.Specs {
			if _, err := s.Parse(s.Default); err != nil {
				t.Errorf("%s: default: %v", d.Name, err)
			}
		}
		if _, err := New(d.Name, nil); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
	if _, err := Lookup("smith"); err == nil || !strings.Contains(err.Error(), `unknown policy "smith" (available: `) || !strings.Contains(err.Error(), "smith-staged, smith-legacy") {
		t.Fatalf("Lookup: %v", err)
	}
}
