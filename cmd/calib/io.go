package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IO is the process's standard streams, injected into every command so
// that tests run commands against buffers (as cli/cli's iostreams does).
// Commands never touch os.Stdout or os.Stderr directly.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// StdinTTY, StdoutTTY and StderrTTY say whether each stream is a
	// terminal. Progress bars are shown only when StderrTTY is true and
	// --quiet is not set; data formats never depend on them, so piped
	// output is byte-identical to what a terminal shows.
	StdinTTY  bool
	StdoutTTY bool
	StderrTTY bool
}

// systemIO is the real standard streams.
func systemIO() *IO {
	return &IO{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}
