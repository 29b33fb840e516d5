package cache

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	tab := NewPrices(BuiltinPrices())
	for _, c := range []struct {
		model string
		want  string
		ok    bool
	}{
		{"claude-opus-4-5-20251101", "claude-opus-4-5", true},
		{"claude-opus-4-20250514", "claude-opus-4", true},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", true},
		{"claude-haiku-4-5-20251001", "claude-haiku-4-5", true},
		{"gpt-5.2-codex", "gpt-5.2-codex", true},
		{"gpt-5-mini", "", false},
		{"claude-opus-4-6-20260101", "", false},
		{"<synthetic>", "", false},
	} {
		p, ok := tab.Lookup(c.model)
		if ok != c.ok || p.Model != c.want {
			t.Errorf("%s: %q %v, want %q %v", c.model, p.Model, ok, c.want, c.ok)
		}
	}
	// Anthropic's ratios are exact: 1.25×, 2×, 0.1×, output 5×.
	p, _ := tab.Lookup("claude-opus-4-5")
	if p.Input != 5 || p.Write5m != 6.25 || p.Write1h != 10 || p.Read != 0.5 || p.Output != 25 || !p.Verified {
		t.Fatalf("opus 4.5: %+v", p)
	}
	// b3533c53's recorded usage at Opus 4.5 prices.
	usd := p.USD(Tokens{Uncached: 27941, Write5m: 263914, Read: 658423, Output: 21})
	if want := (27941*5 + 263914*6.25 + 658423*0.5 + 21*25) / 1e6; math.Abs(usd-want) > 1e-12 {
		t.Fatalf("usd %v want %v", usd, want)
	}
	for _, r := range BuiltinPrices() {
		if r.Date == "" || r.Source == "" {
			t.Errorf("%s: every row needs a date and a source", r.Model)
		}
		if r.Verified == strings.Contains(r.Source, "unverified") {
			t.Errorf("%s: Verified=%v but source %q", r.Model, r.Verified, r.Source)
		}
	}
	if err := error(&MissingPriceError{Model: "x-model", File: "p.csv"}); !strings.Contains(err.Error(), `"x-model"`) || !strings.Contains(err.Error(), "p.csv") {
		t.Fatalf("missing price: %v", err)
	}
}

func TestParsePrices(t *testing.T) {
	good := "# my prices\nmodel,provider,input,cache_write_5m,cache_write_1h,cache_read,output,date,source\n" +
		"claude-opus-4-5,anthropic,4,5,8,0.4,20,2027-01-01,contract\n" +
		"my-model,openai,1,1,1,0.1,8,,\n"
	rows, err := ParsePrices("p.csv", strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Input != 4 || rows[0].Write1h != 8 || rows[1].Provider != OpenAI {
		t.Fatalf("rows: %+v", rows)
	}
	if bom, err := ParsePrices("p.csv", strings.NewReader("\ufeff"+strings.TrimPrefix(good, "# my prices\n"))); err != nil || len(bom) != 2 {
		t.Fatalf("a file starting with a byte order mark (Excel's CSV UTF-8): %v, %d rows", err, len(bom))
	}
	tab := NewPrices(BuiltinPrices(), rows)
	if p, _ := tab.Lookup("claude-opus-4-5-20251101"); p.Input != 4 {
		t.Fatalf("the file overrides the built-in row: %+v", p)
	}
	head := "model,provider,input,cache_write_5m,cache_write_1h,cache_read,output\n"
	for _, c := range []struct{ name, in, want string }{
		{"missing field", head + "m1,anthropic,3,3.75,,0.3,15\n", `p.csv:2: model "m1": field cache_write_1h: missing`},
		{"short row", head + "m1,anthropic,3,3.75\n", `p.csv:2: model "m1": field cache_write_1h: missing`},
		{"bad number", head + "m1,anthropic,3,x,6,0.3,15\n", `p.csv:2: model "m1": field cache_write_5m: "x" is not`},
		{"negative", head + "m1,anthropic,-3,3.75,6,0.3,15\n", `field input: "-3" is not a non-negative`},
		{"absurd", head + "m1,anthropic,3,3.75,6,0.3,1e308\n", `p.csv:2: model "m1": field output: "1e308" USD per million tokens is above 1e+06, far above any real price`},
		{"infinite", head + "m1,anthropic,3,3.75,6,Inf,15\n", `field cache_read: "Inf" is not a non-negative`},
		{"bad provider", head + "m1,acme,3,3.75,6,0.3,15\n", `model "m1": field provider: "acme" is not a provider`},
		{"no model", head + ",anthropic,3,3.75,6,0.3,15\n", `p.csv:2: field model: empty`},
		{"duplicate", head + "m1,anthropic,3,3.75,6,0.3,15\nm1,anthropic,3,3.75,6,0.3,15\n", `p.csv:3: model "m1": listed twice (first at line 2)`},
		{"missing column", "model,provider,input,cache_write_5m,cache_read,output\nm,anthropic,1,1,1,1\n", `p.csv:1: field cache_write_1h: missing column`},
		{"unknown column", "model,provider,price\n", `field price: unknown column`},
		{"empty", "", "p.csv:1: empty file"},
		{"NUL bytes", "\x00\x00\x00\x00\n", "p.csv:1: binary content (NUL bytes, control characters or invalid UTF-8), not a CSV text file; expected a header line model,"},
		{"invalid UTF-8", "\xff\xfemodel,provider\n", "p.csv:1: binary content"},
		{"header only", head, "no price rows"},
		{"bad quoting", head + "m1,\"anthropic,3\n", "p.csv:"},
	} {
		_, err := ParsePrices("p.csv", strings.NewReader(c.in))
		var pe *PriceFileError
		if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a PriceFileError containing %q", c.name, err, c.want)
		}
	}
}

// TestParsePricesCap: a price file over MaxPriceFileBytes is refused with
// its size and the limit, from the size alone for a file (the rows after
// the header are not valid CSV, so a parse would fail differently) and
// after reading past the cap for a stream; a table just under the cap
// loads.
func TestParsePricesCap(t *testing.T) {
	head := "model,provider,input,cache_write_5m,cache_write_1h,cache_read,output\n"
	big := head + strings.Repeat("\"", MaxPriceFileBytes)
	path := filepath.Join(t.TempDir(), "big.csv")
	if err := os.WriteFile(path, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	_, err = ParsePrices("big.csv", fh)
	want := fmt.Sprintf("big.csv: %d bytes, over the 1048576-byte (1 MiB) limit of a price table; ", len(big))
	var pe *PriceFileError
	if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "keep only their rows") {
		t.Errorf("file over the cap: %v, want a PriceFileError starting %q", err, want)
	}

	_, err = ParsePrices("-", io.MultiReader(strings.NewReader(priceTable(1)), strings.NewReader(strings.Repeat("#\n", MaxPriceFileBytes))))
	want = "-: more than 1048576 bytes, over the 1048576-byte (1 MiB) limit"
	if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("stream over the cap: %v, want a PriceFileError starting %q", err, want)
	}

	in := priceTable(10_000)
	if len(in) > MaxPriceFileBytes {
		t.Fatalf("the fixture is %d bytes, over the cap", len(in))
	}
	if rows, err := ParsePrices("p.csv", strings.NewReader(in)); err != nil || len(rows) != 10_000 {
		t.Errorf("10,000 rows under the cap: %d rows, %v", len(rows), err)
	}
}
