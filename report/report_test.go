package report

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sampleDoc exercises what the writers must get right: numeric columns
// right-aligned, thousands separators, negative numbers, empty cells,
// characters that need escaping in markdown/CSV/JSON, control characters,
// and two tables.
func sampleDoc() Doc {
	t := NewTable("sessions", TextCol("id"), Col("format"), Col("messages"), Col("bytes"), Col("ratio"), Col("note"))
	t.AddRow(Str("s1"), Str("smith-transcript"), Int(12), Int(1234567), Float(0.5, 3), Str("a|b <c> & \"d\""))
	t.AddRow(Str("0042"), Str("clai"), Int(3), Int(-9876), Float(-0.0001, 2), Str("line1\nline2, with comma"))
	t.AddRow(Str("s3"), Str("codex"), Int(0), Empty(), Float(1234.5, 1))
	// An escape sequence in a session id: escaped in text and markdown,
	// which a terminal shows; kept in CSV and JSON, which are data.
	t.AddRow(Str("s4\x1b[31m"), Str("gemini\u009b"), Int(1), Int(2), Float(0, 1), Str("bell\a"))
	u := NewTable("recorded compactions", Col("session"), Col("index"), Col("p1"))
	u.AddRow(Str("0042"), Int(0), Int(1))
	return Doc{
		Tables: []*Table{t, u},
		Annotations: []Annotation{
			{Level: LevelError, File: "demo/a,b.jsonl", Line: 7, Title: "digest: growth", Message: "grew 10%\nover budget"},
			{Message: "plain"},
		},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file (go test ./report -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestWriteGolden(t *testing.T) {
	for _, f := range Formats() {
		t.Run(string(f), func(t *testing.T) {
			var a, b bytes.Buffer
			if err := Write(&a, f, sampleDoc()); err != nil {
				t.Fatal(err)
			}
			if err := Write(&b, f, sampleDoc()); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatal("two writes of the same doc differ")
			}
			for i, line := range strings.Split(a.String(), "\n") {
				if strings.TrimRight(line, " ") != line {
					t.Errorf("line %d has trailing spaces: %q", i+1, line)
				}
			}
			golden(t, "sample."+string(f), a.Bytes())
		})
	}
}

func TestWriteJSONTyped(t *testing.T) {
	type row struct {
		Zeta  string         `json:"zeta"`
		Alpha int            `json:"alpha"`
		Map   map[string]int `json:"map"`
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, row{Zeta: "<a&b>", Alpha: 1, Map: map[string]int{"b": 2, "a": 1}}); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"zeta\": \"<a&b>\",\n  \"alpha\": 1,\n  \"map\": {\n    \"a\": 1,\n    \"b\": 2\n  }\n}\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats() {
		if got, err := ParseFormat(string(f)); err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	_, err := ParseFormat("yaml")
	want := `invalid format "yaml": valid values are text|markdown|csv|json|github`
	if err == nil || err.Error() != want {
		t.Errorf("ParseFormat(yaml) error = %v, want %q", err, want)
	}
}

func TestFormatNumbers(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{FormatInt(0), "0"},
		{FormatInt(999), "999"},
		{FormatInt(1000), "1,000"},
		{FormatInt(-1234567), "-1,234,567"},
		{FormatInt(100000), "100,000"},
		{FormatFloat(0.125, 2), "0.12"}, // round half to even, as strconv does
		{FormatFloat(-0.0001, 2), "0.00"},
		{FormatFloat(-1.5, 1), "-1.5"},
		{FormatFloat(1.0/3, 3), "0.333"},
		// A plot's whole number rounds half away from zero, as a table's
		// count does (columns.go, math.Round): a heat-map cell read
		// 586,298 where the table read 586,299.
		{formatNumber(586298.5, 0), "586,299"},
		{formatNumber(-2.5, 0), "-3"},
		{formatNumber(0.125, 2), "0.12"},
		{Float(12345.678, 1).Format(true), "12,345.7"},
		{Float(12345.678, 1).Format(false), "12345.7"},
		{Int(1234).Format(false), "1234"},
		{Empty().Format(true), ""},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: got %q, want %q", i, tt.got, tt.want)
		}
	}
	if Round(0.1+0.2, 2) != 0.3 {
		t.Errorf("Round(0.1+0.2, 2) = %v", Round(0.1+0.2, 2))
	}
}

func TestAddRowTooManyCellsPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("AddRow with too many cells did not panic")
		}
	}()
	NewTable("t", Col("a")).AddRow(Str("x"), Str("y"))
}

// BenchmarkWriteText renders a 10,000-row table as text.
func BenchmarkWriteText(b *testing.B) {
	t := NewTable("rows", TextCol("id"), Col("n"), Col("f"))
	for i := 0; i < 10000; i++ {
		t.AddRow(Str("session-"+strings.Repeat("a", i%7)), Int(i*1000), Float(float64(i)/7, 3))
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteText(io.Discard, t); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMarksAndNotes: a Marked or Dashed cell and a table's Notes are for
// people (text, markdown); CSV keeps the plain values and no notes, and
// markdown escapes a note's leading marker so it is not a list item.
func TestMarksAndNotes(t *testing.T) {
	tb := NewTable("bill", TextCol("set"), NumCol("usd"))
	tb.AddRow(Str("a"), Float(1234.5, 1).Marked("*"))
	tb.AddRow(Str("b"), Float(0, 1).Dashed())
	tb.Notes = []string{"* covers 2 of 5", "- none priced"}
	want := map[Format]string{
		Text:     "bill\nset       usd\na    1,234.5*\nb           -\n* covers 2 of 5\n- none priced\n",
		Markdown: "### bill\n\n| set |     usd |\n|:----|--------:|\n| a   | 1234.5* |\n| b   |       - |\n\n\\* covers 2 of 5\n\n\\- none priced\n",
		CSV:      "set,usd\na,1234.5\nb,0.0\n",
	}
	for f, w := range want {
		var buf bytes.Buffer
		if err := Write(&buf, f, Doc{Tables: []*Table{tb}}); err != nil {
			t.Fatal(err)
		}
		if buf.String() != w {
			t.Errorf("%s:\n got %q\nwant %q", f, buf.String(), w)
		}
	}
}
