package main

import (
	"errors"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagError is the root's flag error func: every flag error is a usage
// error (exit 2), and a value that does not parse as the flag's type says
// which flag, the value and what was expected, in words. pflag's own text
// ends in strconv's ("strconv.ParseInt: parsing \"abc\": invalid syntax"),
// which names a Go function, not the flag's type.
func flagError(_ *cobra.Command, err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		return &usageError{err}
	}
	f, v := ive.GetFlag(), ive.GetValue()
	want, ok := flagTypeWords(f.Value.Type())
	if !ok {
		// A flag type of calib's own says what it expects in its error.
		return usageErrorf("--%s %q: %v", f.Name, v, errors.Unwrap(err))
	}
	var ne *strconv.NumError
	if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
		return usageErrorf("--%s %s: out of range; expected %s", f.Name, v, want)
	}
	if strings.TrimSpace(v) == "" {
		return usageErrorf("--%s: no value; expected %s", f.Name, want)
	}
	return usageErrorf("--%s %q: expected %s", f.Name, v, want)
}

// flagTypeWords says what a value of each pflag type calib uses looks
// like; ok is false for another type.
func flagTypeWords(typ string) (string, bool) {
	switch typ {
	case "int", "int64":
		return "a whole number", true
	case "uint", "uint64":
		return "a whole number, 0 or more", true
	case "float64":
		return "a number", true
	case "bool":
		return "true or false (or the flag alone for true)", true
	}
	return "", false
}
