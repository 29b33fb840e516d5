package main

import (
	"io/fs"
	"os"
	"path/filepath"
)

// linkedInput finds the file an output about to be overwritten (out, its
// os.Stat) is, under another name, in an input folder: a hard link, which
// no comparison of paths or of the folders holding out can see (backups
// made with cp -al or rsnapshot are full of them). It returns that file
// and its input folder, or "" when out has a single link or none of the
// folders holds it. Only then are the folders walked, so an output with
// one link, nearly every one, costs nothing.
func linkedInput(out os.FileInfo, inputs []string) (file, folder string) {
	if !out.Mode().IsRegular() || links(out) < 2 {
		return "", ""
	}
	for _, in := range inputs {
		if fi, err := os.Stat(in); err != nil || !fi.IsDir() {
			continue // a file input is compared by refuseOverlap itself
		}
		found := ""
		// Walk errors (an unreadable folder) are loading's to report.
		_ = filepath.WalkDir(in, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if fi, err := os.Stat(p); err == nil && os.SameFile(fi, out) {
				found = p
				return fs.SkipAll
			}
			return nil
		})
		if found != "" {
			return found, in
		}
	}
	return "", ""
}
