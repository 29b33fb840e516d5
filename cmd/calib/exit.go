package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Exit codes, as documented in `calib --help` and README.md. They are chosen
// in one place, exitCode, from the type of the error a command returns.
const (
	exitOK          = 0
	exitFailed      = 1 // a gate or threshold failed (or calib could not finish)
	exitUsage       = 2 // bad usage or unreadable input
	exitOutput      = 3 // an output (--out, --plot, standard output) could not be written
	exitInterrupted = 130
)

// usageError is a bad flag, argument or flag value. main prints it with a
// pointer to --help and exits 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageErrorf returns a usage error (exit 2).
func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// inputError is input that could not be read. Its per-file messages have
// already been printed by loadSessions, so main prints nothing more and
// exits 2.
type inputError struct {
	failed int // number of inputs that failed
}

func (e *inputError) Error() string {
	return fmt.Sprintf("%d input(s) could not be read", e.failed)
}

// inputRefused is input calib read and refuses (a shard of another sweep,
// an interrupted one): exit 2 with its message, and no pointer to --help,
// which has nothing to say about it (CI logs showed one after "is an
// interrupted shard").
type inputRefused struct{ err error }

func (e *inputRefused) Error() string { return e.err.Error() }
func (e *inputRefused) Unwrap() error { return e.err }

// gateError is a gate or threshold that failed: the command ran and
// reported, and its verdict is "no" (exit 1). Msg is printed as
// "calib: Msg"; leave it empty when the report already says why.
type gateError struct{ Msg string }

func (e *gateError) Error() string {
	if e.Msg == "" {
		return "gate failed"
	}
	return e.Msg
}

// gateFailed returns a gate failure (exit 1) with a message for stderr.
func gateFailed(format string, args ...any) error {
	return &gateError{Msg: fmt.Sprintf(format, args...)}
}

// outputError is an output file or plot that could not be written (disk
// full, no permission): the command's input and flags were fine, so it is
// not exit 2. The message names the path.
type outputError struct{ err error }

// errStdout starts the error of a failed write to standard output (not
// --out or --plot), so readerGone can tell it from the others.
var errStdout = errors.New("standard output")

func (e *outputError) Error() string { return e.err.Error() }
func (e *outputError) Unwrap() error { return e.err }

// readerGone reports whether err is a write to standard output whose
// reader went away (calib ... | head -1): the reader has all it asked
// for, so calib stops quietly with success, as other Unix tools do (Main
// ignores SIGPIPE, which otherwise killed calib with status 141).
func readerGone(err error) bool {
	return errors.Is(err, errStdout) && errors.Is(err, syscall.EPIPE)
}

// exitCode maps a command's error to the process exit code.
func exitCode(err error) int {
	if readerGone(err) {
		return exitOK
	}
	var ue *usageError
	var ie *inputError
	var ir *inputRefused
	var ge *gateError
	var oe *outputError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &oe):
		return exitOutput
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &ue), errors.As(err, &ie), errors.As(err, &ir):
		return exitUsage
	case errors.As(err, &ge):
		return exitFailed
	}
	return exitFailed
}

// errorMessage is what main prints for err on stderr, without the
// "calib: " prefix; "" means print nothing (already reported).
func errorMessage(err error) string {
	var ie *inputError
	var ge *gateError
	switch {
	case err == nil, readerGone(err):
		return ""
	case errors.As(err, &ge) && ge.Msg != "" && errors.As(err, &ie):
		return fmt.Sprintf("%s; reached on what could be read (%d input(s) could not be), so the exit status is 2", ge.Msg, ie.failed)
	case errors.As(err, &ie):
		return ""
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.As(err, &ge):
		if ge.Msg == "" {
			return ""
		}
		return ge.Msg
	}
	return oneLineSuggestion(err.Error())
}

// oneLineSuggestion rewrites cobra's unknown-command message, whose
// suggestions come on lines of their own ("...\n\nDid you mean
// this?\n\treplay\n", printed with its newlines escaped), in calib's
// one-line style: `unknown command "replays" for "calib"; did you mean
// replay?`, as for a mistyped policy or parameter.
func oneLineSuggestion(msg string) string {
	head, rest, ok := strings.Cut(msg, "\n\nDid you mean this?\n")
	if !ok {
		return msg
	}
	var names []string
	for _, l := range strings.Split(rest, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			names = append(names, l)
		}
	}
	if len(names) == 0 {
		return head
	}
	return head + "; did you mean " + strings.Join(names, " or ") + "?"
}
