package jsonscan

import "os"

// Exists reports whether anything is at p.
func Exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// IsDir reports whether p is a directory.
func IsDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// AllSpace reports whether b holds only whitespace and newlines.
func AllSpace(b []byte) bool {
	for _, c := range b {
		if c != '\n' && c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
