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

// stdioFlags are the flags that name a file or folder calib reads (in) or
// writes (out). None of them takes "-" for a standard stream: standard
// input is a PATH argument's, standard output the report's.
func stdioFlags() map[string]string {
	return map[string]string{"out": "out", "plot": "out", "baseline": "in", "grid-file": "in", "prices": "in"}
}

// checkFlagValues refuses, before any work, a string flag given an empty
// value, which pflag accepts and the commands took for the flag left out
// (--plot "" drew nothing, --prices "" used the built-in table) or for the
// current folder, and "-" where no standard stream is read or written,
// which became a file named "-".
func checkFlagValues(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		v := f.Value.String()
		if typ := f.Value.Type(); typ == "string" && v == "" || typ == "stringSlice" && v == "[]" {
			want, _ := pflag.UnquoteUsage(f)
			if want == "" || want == "string" || want == "strings" {
				want = "a value"
			}
			err = usageErrorf("--%s \"\": an empty value; expected %s (or drop the flag)", f.Name, want)
			return
		}
		switch stdioFlags()[f.Name] {
		case "out":
			if v == "-" {
				err = usageErrorf("--%s -: --%s does not write to standard output (the report goes there); give a path (./- for one named -)", f.Name, f.Name)
			}
		case "in":
			if v == "-" {
				err = usageErrorf("--%s -: --%s does not read standard input (only a PATH argument - does); give a file path (./- for one named -)", f.Name, f.Name)
			}
		}
	})
	return err
}
