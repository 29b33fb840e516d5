package main

// The operating system's errors, in words: *fs.PathError repeats the path,
// which calib's message already starts with, and says nothing of what to
// do. Reading an input and creating an output each get one function, so
// every command words the same failure the same way.

import (
	"errors"
	"fmt"
	"io/fs"
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
