//go:build unix

package main

import (
	"os"
	"syscall"
)

// links is the number of names the file has (its hard links); 1 when the
// system does not say.
func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
