package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The write guard compares an output's folders with the input folders by
// identity (os.SameFile), not only by resolved name: on macOS and Windows,
// whose default file systems ignore case, SESSIONS/rows.jsonl is inside the
// input folder sessions, and no comparison of the strings says so. Linux
// file systems here do not ignore case, so these tests reach the same
// folder through a spelling the name comparison does not see:
// existingHolders is given the path unresolved, through a symbolic link,
// as a case-insensitive system would hand it another case. The whole guard
// (write_guard.txtar) still runs on real paths.
func TestExistingHoldersByIdentity(t *testing.T) {
	root := t.TempDir()
	in := filepath.Join(root, "sessions")
	other := filepath.Join(root, "elsewhere")
	for _, d := range []string{in, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(in, filepath.Join(root, "SESSIONS")); err != nil {
		t.Fatal(err)
	}
	inInfo, err := os.Stat(in)
	if err != nil {
		t.Fatal(err)
	}
	// rout is what the name comparison sees: here a resolved name that is
	// not under the input's, as SESSIONS/rows.jsonl is not under sessions
	// to a string comparison on macOS.
	rout := filepath.Join(root, "elsewhere-by-name", "rows.jsonl")
	for _, c := range []struct {
		out  string
		want bool
	}{
		{filepath.Join(root, "SESSIONS", "rows.jsonl"), true},
		{filepath.Join(root, "SESSIONS", "new", "deeper", "plots"), true}, // folders that do not exist yet
		{filepath.Join(in, "rows.jsonl"), true},
		{filepath.Join(other, "rows.jsonl"), false},
		{filepath.Join(root, "rows.jsonl"), false},
		{in, false}, // the folder itself is not inside itself (the guard's equality check covers it)
	} {
		if got := insideFolder(rout, existingHolders(c.out), in, inInfo); got != c.want {
			t.Errorf("%s inside the input folder: %v, want %v", strings.TrimPrefix(c.out, root), got, c.want)
		}
	}
	// And by name alone, with no folder of the output existing.
	if !insideFolder(filepath.Join(in, "a", "b"), nil, in, inInfo) {
		t.Error("a path under the input folder's name is not inside it")
	}
}

// A SQLite side file named in another case, in the database's own folder,
// is refused: SQLite on a file system that ignores case would take it for
// the real one. In another folder the same name is not a side file.
func TestSQLiteSideFileIgnoresCase(t *testing.T) {
	root := t.TempDir()
	db := filepath.Join(root, "data.sqlite")
	if err := os.WriteFile(db, []byte("SQLite format 3\x00rest of the header"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ out, want string }{
		{filepath.Join(root, "data.sqlite-wal"), "write-ahead log"},
		{filepath.Join(root, "DATA.SQLITE-WAL"), "write-ahead log"},
		{filepath.Join(root, "Data.sqlite-Journal"), "rollback journal"},
		{filepath.Join(sub, "data.sqlite-wal"), ""},
		{filepath.Join(root, "data.sqlite-wal.json"), ""},
	} {
		if got := sqliteSideFile(db, info, c.out); got != c.want {
			t.Errorf("sqliteSideFile(%s) = %q, want %q", strings.TrimPrefix(c.out, root), got, c.want)
		}
	}
}
