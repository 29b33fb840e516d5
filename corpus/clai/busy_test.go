package clai

import (
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus"
)

// TestClaiLockedDatabaseTimesOut: a writer holding the database in
// exclusive locking mode blocks every reader. Loading gives up after the
// busy timeout with an error that says what happened and what to do, and
// leaves the files as they were. (The writer is TestClaiHelperProcess in
// clai_live_test.go, run as a separate process.)
func TestClaiLockedDatabaseTimesOut(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a writer process")
	}
	path := filepath.Join(t.TempDir(), "data.sqlite")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`CREATE TABLE assistant_sessions (id TEXT PRIMARY KEY, kind TEXT NOT NULL, title TEXT, context_json TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
		CREATE TABLE assistant_messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, content_json TEXT NOT NULL, provider_metadata_json TEXT, created_at INTEGER NOT NULL);
		INSERT INTO assistant_sessions VALUES ('s1', '"interactive"', NULL, '{}', 1, 1)`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	WriterProcess(t, "exclusive", path, "s1")

	hash := func() string {
		var out []string
		for _, suffix := range []string{"", "-wal", "-shm"} {
			b, err := os.ReadFile(path + suffix)
			out = append(out, fmt.Sprintf("%x/%v", sha256.Sum256(b), err))
		}
		return strings.Join(out, " ")
	}
	before := hash()
	start := time.Now()
	_, err = loadBusy(path, corpus.Options{}, 300*time.Millisecond)
	elapsed := time.Since(start)
	if elapsed > 5*time.Second {
		t.Errorf("gave up after %v; the busy timeout is 300ms", elapsed)
	}
	var fe *corpus.FileError
	if !errors.As(err, &fe) || fe.Path != path {
		t.Fatalf("error %v; want a FileError for %s", err, path)
	}
	want := path + ": the database is locked by another process (gave up after waiting 300ms): clai may be holding it in exclusive mode or recovering it; retry when clai is idle, or copy the workspace's .clai folder and load the copy (database is locked (5) (SQLITE_BUSY))"
	if err.Error() != want {
		t.Errorf("error\n got %s\nwant %s", err, want)
	}
	if after := hash(); after != before {
		t.Errorf("files changed:\nbefore %s\nafter  %s", before, after)
	}
}
