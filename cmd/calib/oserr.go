package main

// The operating system's errors, in words: *fs.PathError repeats the path,
// which calib's message already starts with, and says nothing of what to
// do. Reading an input and creating an output each get one function, so
// every command words the same failure the same way.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/calib-dev/calib/corpus"
)

// fileErrorText is what to print after "calib: FILE: " for a file that
// could not be read. The operating system's errors (*fs.PathError) repeat
// the path, which the line already starts with: print the failure once,
// in words, with what to do about it.
func fileErrorText(err error) string {
	var fw *corpus.FatalWarning
	if errors.As(err, &fw) {
		if fw.Count == 0 {
			return fw.Message + " (--strict makes warnings fatal)"
		}
		return fmt.Sprintf("%s (--strict makes warnings fatal; %d warning(s) in this session)", fw.Message, fw.Count)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	var what string
	switch {
	case errors.Is(pe.Err, fs.ErrPermission):
		what = "permission denied; make it readable by this user (chmod +r, or for a folder +rx) or run calib as a user who can read it"
	case errors.Is(pe.Err, syscall.ENOTDIR):
		what = "not a directory: a part of the path before the last is a file; check the path"
	case errors.Is(pe.Err, syscall.EISDIR):
		what = "is a directory where a file was expected; give the file or its folder"
	case errors.Is(pe.Err, fs.ErrNotExist):
		what = "no such file or directory; check the path"
	default:
		what = fmt.Sprintf("cannot %s it: %v; check that the path exists and can be read", pe.Op, pe.Err)
	}
	// Keep what the loader wrapped around it ("reading: ...").
	return strings.Replace(err.Error(), pe.Error(), what, 1)
}

// createErrorText is what to print after "--out PATH: " for a file that
// could not be created: the failure in words, once, and what to do.
func createErrorText(path string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "its folder does not exist; create it first or give another path"
	case errors.Is(err, syscall.EISDIR):
		return "is a folder; give a file path such as " + filepath.Join(path, "rows.jsonl")
	case errors.Is(err, fs.ErrPermission):
		return "permission denied; give a path in a folder you can write to"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error() + "; give another path"
}

// readFlagFile reads the file an input flag (--grid-file, --baseline)
// names, refusing one of more than max bytes, whose hint says what such a
// file should hold: os.ReadFile read /dev/zero, or a pipe that never
// ends, until memory ran out. A file it cannot read is a usage error
// naming the flag and the path once, with the failure in words (it
// printed Go's "open nope.csv: no such file or directory", or "read dir:
// is a directory" after the path).
func readFlagFile(flag, path string, max int64, hint string) ([]byte, error) {
	f, err := openFlagFile(flag, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooBig := func(size string) error {
		return usageErrorf("--%s %s: %s, over its %s limit; %s", flag, path, size, byteSize(max), hint)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > max {
		return nil, tooBig(fmt.Sprintf("%d bytes", fi.Size()))
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, flagFileError(flag, path, err)
	}
	if int64(len(data)) > max {
		return nil, tooBig(fmt.Sprintf("more than %d bytes", max))
	}
	return data, nil
}

// openFlagFile opens the file an input flag names, for a reader that
// bounds what it reads itself (--prices), with readFlagFile's errors.
func openFlagFile(flag, path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, flagFileError(flag, path, err)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, flagFileError(flag, path, syscall.EISDIR)
	}
	return f, nil
}

func flagFileError(flag, path string, err error) error {
	if errors.Is(err, syscall.EISDIR) {
		return usageErrorf("--%s %s: a folder; expected a file", flag, path)
	}
	return usageErrorf("--%s %s: %s", flag, path, fileErrorText(err))
}

// byteSize words a limit of whole KiB, MiB or GiB.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
