//go:build !linux

package jsonscan

// hugePages is a no-op where calib does not know how to ask for huge
// pages.
func hugePages([]byte) {}
