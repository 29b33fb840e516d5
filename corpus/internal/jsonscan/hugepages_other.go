//go:build !linux

package jsonscan

// hugePages is a no-op where calib does not know how to ask for huge
// pages.
func hugePages([]byte) {}

// populate is a no-op where calib does not know how to map pages ahead.
func populate([]byte) {}
