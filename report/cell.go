package report

import (
	"math"
	"strconv"
	"strings"
)

type cellKind uint8

const (
	kindEmpty cellKind = iota
	kindStr
	kindInt
	kindFloat
)

// Cell is one value of a table. It keeps numbers as numbers so that each
// writer can format them its own way: text adds thousands separators,
// markdown and CSV do not (CSV must stay machine-readable).
type Cell struct {
	kind cellKind
	s    string
	i    int64
	f    float64
	prec int
	// mark follows the value in text and markdown (a footnote marker);
	// dash shows "-" there instead of the value. CSV and JSON keep the
	// plain value, so a machine reads the number and a person its caveat.
	mark string
	dash bool
}

// Empty is an empty cell.
func Empty() Cell { return Cell{} }

// Str is a text cell.
func Str(s string) Cell { return Cell{kind: kindStr, s: s} }

// Int is an integer cell.
func Int[T ~int | ~int64 | ~int32 | ~uint32 | ~uint64 | ~uint](n T) Cell {
	return Cell{kind: kindInt, i: int64(n)}
}

// Float is a number with exactly prec digits after the point.
func Float(f float64, prec int) Cell { return Cell{kind: kindFloat, f: f, prec: prec} }

// Marked is c followed, in text and markdown, by a footnote marker
// ("1.9731*"); the table's Notes explain it. CSV and JSON write the plain
// value.
func (c Cell) Marked(mark string) Cell {
	c.mark = mark
	return c
}

// Dashed is c shown as "-" in text and markdown (a value that stands for
// nothing known, such as dollars with no price); CSV and JSON write the
// plain value.
func (c Cell) Dashed() Cell {
	c.dash = true
	return c
}

// shown is the cell as text and markdown print it: Format with its mark,
// or "-" for a Dashed cell.
func (c Cell) shown(thousands bool) string {
	if c.dash {
		return "-"
	}
	return c.Format(thousands) + c.mark
}

// IsNumber reports whether the cell holds a number.
func (c Cell) IsNumber() bool { return c.kind == kindInt || c.kind == kindFloat }

// Format renders the cell; thousands groups integer digits in threes.
func (c Cell) Format(thousands bool) string {
	switch c.kind {
	case kindStr:
		return c.s
	case kindInt:
		if thousands {
			return FormatInt(c.i)
		}
		return strconv.FormatInt(c.i, 10)
	case kindFloat:
		s := FormatFloat(c.f, c.prec)
		if thousands {
			return GroupDigits(s)
		}
		return s
	}
	return ""
}

// FormatInt formats n with comma thousands separators: 1234567 → "1,234,567".
func FormatInt(n int64) string {
	return GroupDigits(strconv.FormatInt(n, 10))
}

// FormatFloat formats f with exactly prec decimals. It never prints "-0"
// (a value that rounds to zero is "0.00", whatever its sign), and NaN and
// infinities as "NaN", "+Inf" and "-Inf", so output does not depend on how a
// result was reached.
func FormatFloat(f float64, prec int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	s := strconv.FormatFloat(f, 'f', prec, 64)
	if strings.HasPrefix(s, "-") && strings.Trim(s[1:], "0.") == "" {
		s = s[1:]
	}
	return s
}

// GroupDigits writes the integer part of a decimal number in groups of
// three with commas ("1234567.5" → "1,234,567.5"); a count too large for
// int64 (a range of every int64) is grouped the same.
func GroupDigits(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	if len(intPart) <= 3 || strings.Trim(intPart, "0123456789") != "" {
		return sign + s
	}
	var b strings.Builder
	pre := len(intPart) % 3
	if pre > 0 {
		b.WriteString(intPart[:pre])
	}
	for i := pre; i < len(intPart); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(intPart[i : i+3])
	}
	return sign + b.String() + frac
}

// Round rounds f to prec decimals, for JSON results that should not carry
// float noise (0.30000000000000004). NaN and infinities are returned as is.
func Round(f float64, prec int) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'f', prec, 64), 64)
	if err != nil {
		return f
	}
	return r
}
