package main

// The files input flags name (--prices, --grid-file, --baseline): read
// within a limit each, with the failure worded once after the flag.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

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
