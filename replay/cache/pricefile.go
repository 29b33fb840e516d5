package cache

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPriceFileBytes caps a --prices file at 1 MiB: about 10,000 rows of
// 100 bytes, where a price table lists the few dozen models a corpus
// uses (the built-in one has 12). Without a cap, a million-row file
// (65 MB) held 693 MB while calib built its table; under it, parsing
// keeps a few MB. A bigger file is refused before a row is parsed.
const MaxPriceFileBytes = 1 << 20

// priceColumns are the columns of a --prices file, in the order calib
// writes them. date and source are optional; every price is required.
var priceColumns = []string{"model", "provider", "input", "cache_write_5m", "cache_write_1h", "cache_read", "output", "date", "source"}

// PriceFileError is a bad --prices file: it names the file, line, model
// and field, and is exit status 2 (bad input) for the CLI.
type PriceFileError struct {
	File  string
	Line  int
	Model string
	Field string
	Msg   string
}

func (e *PriceFileError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Model != "" {
		fmt.Fprintf(&b, ": model %q", e.Model)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": field %s", e.Field)
	}
	fmt.Fprintf(&b, ": %s", e.Msg)
	return b.String()
}

// ParsePrices reads a --prices file: CSV with a header line naming the
// columns (any order; model, provider and the five prices required), one
// row per model, prices in USD per million tokens. Providers without a
// write premium (openai, gemini) give their input price as the write
// prices. Lines starting with # are comments.
//
// A file over MaxPriceFileBytes is refused: up front from its size when r
// can say it (an *os.File), else when reading passes the cap (a pipe).
func ParsePrices(file string, r io.Reader) ([]Price, error) {
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxPriceFileBytes {
			return nil, priceFileTooBig(file, fi.Size())
		}
	}
	lr := &io.LimitedReader{R: r, N: MaxPriceFileBytes + 1}
	rows, err := parsePrices(file, lr)
	if lr.N <= 0 {
		return nil, priceFileTooBig(file, -1)
	}
	return rows, err
}

// priceFileTooBig is the refusal of a price file over the cap; size is -1
// when only "more than the cap" is known.
func priceFileTooBig(file string, size int64) error {
	what := fmt.Sprintf("more than %d bytes", MaxPriceFileBytes)
	if size >= 0 {
		what = fmt.Sprintf("%d bytes", size)
	}
	return &PriceFileError{File: file, Msg: fmt.Sprintf("%s, over the %d-byte (1 MiB) limit of a price table; "+
		"a price table lists the models your logs use (the built-in one has %d rows): keep only their rows",
		what, MaxPriceFileBytes, len(BuiltinPrices()))}
}

func parsePrices(file string, r io.Reader) ([]Price, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	// A record's fields are copied into the Price kept, so the reader
	// may reuse one slice for every row.
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &PriceFileError{File: file, Line: 1, Msg: "empty file: expected a header line " + strings.Join(priceColumns, ",")}
		}
		return nil, csvError(file, err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if i == 0 {
			// A spreadsheet saved as "CSV UTF-8" starts with a byte
			// order mark, which would make the first column unknown
			// under a name that prints like "model".
			h = strings.TrimPrefix(h, "\ufeff")
		}
		if !known(h) {
			line, _ := cr.FieldPos(0)
			if !utf8.ValidString(h) || strings.ContainsFunc(h, unicode.IsControl) {
				// Printed as a column name, a binary file's bytes would
				// go to the terminal raw.
				return nil, &PriceFileError{File: file, Line: line, Msg: "binary content (NUL bytes, control characters or invalid UTF-8), not a CSV text file; expected a header line " + strings.Join(priceColumns, ",")}
			}
			return nil, &PriceFileError{File: file, Line: line, Field: h, Msg: "unknown column (expected: " + strings.Join(priceColumns, ",") + ")"}
		}
		col[h] = i
	}
	for _, need := range priceColumns[:7] {
		if _, ok := col[need]; !ok {
			line, _ := cr.FieldPos(0)
			return nil, &PriceFileError{File: file, Line: line, Field: need, Msg: "missing column in the header"}
		}
	}
	var out []Price
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(file, err)
		}
		line, _ := cr.FieldPos(0)
		get := func(name string) string {
			i, ok := col[name]
			if !ok || i >= len(rec) {
				return ""
			}
			return strings.TrimSpace(rec[i])
		}
		p := Price{Model: get("model"), Provider: Provider(get("provider")), Date: get("date"), Source: get("source"), Verified: true}
		if p.Model == "" {
			return nil, &PriceFileError{File: file, Line: line, Field: "model", Msg: "empty: every row names a model id as logs spell it"}
		}
		if prev, dup := seen[p.Model]; dup {
			return nil, &PriceFileError{File: file, Line: line, Model: p.Model, Msg: fmt.Sprintf("listed twice (first at line %d)", prev)}
		}
		seen[p.Model] = line
		switch p.Provider {
		case Anthropic, OpenAI, Gemini:
		default:
			return nil, &PriceFileError{File: file, Line: line, Model: p.Model, Field: "provider",
				Msg: fmt.Sprintf("%q is not a provider (expected anthropic, openai or gemini)", p.Provider)}
		}
		for _, f := range []struct {
			name string
			dst  *float64
		}{{"input", &p.Input}, {"cache_write_5m", &p.Write5m}, {"cache_write_1h", &p.Write1h}, {"cache_read", &p.Read}, {"output", &p.Output}} {
			v := get(f.name)
			if v == "" {
				return nil, &PriceFileError{File: file, Line: line, Model: p.Model, Field: f.name, Msg: "missing: give USD per million tokens (providers without a write premium: their input price)"}
			}
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, &PriceFileError{File: file, Line: line, Model: p.Model, Field: f.name, Msg: fmt.Sprintf("%q is not a non-negative number of USD per million tokens", v)}
			}
			if x > MaxPrice {
				return nil, &PriceFileError{File: file, Line: line, Model: p.Model, Field: f.name,
					Msg: fmt.Sprintf("%q USD per million tokens is above %g, far above any real price (the dearest are in the hundreds): check the column and its unit", v, float64(MaxPrice))}
			}
			*f.dst = x
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, &PriceFileError{File: file, Line: 1, Msg: "no price rows after the header"}
	}
	return out, nil
}

// MaxPrice is the most USD per million tokens a price file may give. Real
// prices are in the hundreds at most; a finite but absurd one (1e308)
// made a corpus's bill overflow to +Inf, which JSON cannot hold, and the
// report died after the run with an output error instead of a bad input.
// At this cap a bill stays finite for any corpus calib can load.
const MaxPrice = 1e6

func known(col string) bool {
	for _, c := range priceColumns {
		if c == col {
			return true
		}
	}
	return false
}

func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &PriceFileError{File: file, Line: pe.Line, Msg: pe.Err.Error()}
	}
	return &PriceFileError{File: file, Msg: err.Error()}
}
