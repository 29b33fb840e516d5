package clai_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/synth"
)

// TestClaiHelperProcess is not a test: the live-database tests run the test
// binary again as a separate process that plays clai, a writer holding the
// database open (SQLite locks are per process, so a connection in the test
// process itself would not be a faithful writer).
//
//	CALIB_CLAI_HELPER=writer|exclusive|journal CALIB_CLAI_DB=path CALIB_CLAI_SESSION=id
//
// It commits one message, then opens a write transaction with two more
// uncommitted messages, prints "ready" and waits for its stdin to close. In
// exclusive mode it holds the database in locking_mode=EXCLUSIVE, which
// blocks every reader. In journal mode it turns the database to a rollback
// journal, rewrites every message in a transaction with a cache too small
// to hold it (so the database file is written before the commit), prints
// "ready" and waits: killed then, it leaves a hot journal.
func TestClaiHelperProcess(t *testing.T) {
	mode := os.Getenv("CALIB_CLAI_HELPER")
	if mode == "" {
		t.Skip("helper process for the live clai database tests")
	}
	if err := claiHelper(mode, os.Getenv("CALIB_CLAI_DB"), os.Getenv("CALIB_CLAI_SESSION")); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func claiHelper(mode, path, sid string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM assistant_messages").Scan(&n); err != nil {
		return err
	}
	if mode == "journal" {
		for _, q := range []string{"PRAGMA journal_mode=DELETE", "PRAGMA cache_size=2", "BEGIN IMMEDIATE",
			`UPDATE assistant_messages SET content_json = '[{"type":"text","text":"' || hex(randomblob(3000)) || '"}]'`} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
		return nil
	}
	if mode == "exclusive" {
		if _, err := conn.ExecContext(ctx, "PRAGMA locking_mode=EXCLUSIVE"); err != nil {
			return err
		}
	}
	ins := `INSERT INTO assistant_messages (id, session_id, role, content_json, provider_metadata_json, created_at)
		VALUES (?, ?, '"user"', '[{"type":"text","text":"written while clai runs"}]', NULL, 4102444800000)`
	if _, err := conn.ExecContext(ctx, ins, "committed-by-writer", sid); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	for _, id := range []string{"uncommitted-1", "uncommitted-2"} {
		if _, err := conn.ExecContext(ctx, ins, id, sid); err != nil {
			return err
		}
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	_, err = conn.ExecContext(ctx, "ROLLBACK")
	return err
}

// claiHashes returns the sha256 of the database and its -wal and -shm
// ("absent" for a missing file).
func claiHashes(t *testing.T, path string) [3]string {
	t.Helper()
	var out [3]string
	for i, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		if os.IsNotExist(err) {
			out[i] = "absent"
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out[i] = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	return out
}

func claiIDs(s *corpus.Session) map[string]bool {
	ids := map[string]bool{}
	for _, m := range s.Messages {
		ids[m.ID] = true
	}
	return ids
}

// TestClaiLiveWriterInputsUntouched: clai is running and holds an open
// write transaction. Loading sees every committed row (the newest only in
// the -wal), none of the uncommitted ones, returns promptly, and leaves the
// database, -wal and -shm byte-identical. Then the writer crashes, leaving
// a stale -wal and -shm: the same holds.
func TestClaiLiveWriterInputsUntouched(t *testing.T) {
	path, hs := writeClai(t, claiSmall, 21)
	cmd, _ := clai.WriterProcess(t, "writer", path, hs[0].SessionID)

	for _, phase := range []string{"live writer", "after a crash"} {
		before := claiHashes(t, path)
		if before[1] == "absent" || before[2] == "absent" {
			t.Fatalf("%s: expected -wal and -shm files, got %v", phase, before)
		}
		start := time.Now()
		ss, err := load.Load([]string{path}, corpus.Options{})
		elapsed := time.Since(start)
		if err != nil {
			t.Fatalf("%s: %v", phase, err)
		}
		if elapsed > 3*time.Second {
			t.Errorf("%s: loading took %v; it must not wait for the writer", phase, elapsed)
		}
		ids := claiIDs(ss[0])
		if !ids["committed-by-writer"] || ids["uncommitted-1"] || ids["uncommitted-2"] || len(ss[0].Messages) != len(hs[0].Messages)+1 {
			t.Errorf("%s: %d messages; committed %v, uncommitted %v %v", phase, len(ss[0].Messages), ids["committed-by-writer"], ids["uncommitted-1"], ids["uncommitted-2"])
		}
		if after := claiHashes(t, path); after != before {
			t.Errorf("%s: files changed by loading:\nbefore %v\nafter  %v", phase, before, after)
		}
		if phase == "live writer" {
			cmd.Process.Kill() // a crash: the -wal and -shm stay behind
			cmd.Wait()
		}
	}
}

// TestClaiClosedDatabaseUntouched: a database clai closed cleanly has no
// -wal or -shm; loading must not create them (a plain mode=ro open would,
// and would leave them behind).
func TestClaiClosedDatabaseUntouched(t *testing.T) {
	path, hs := writeClai(t, claiSmall, 22)
	before := claiHashes(t, path)
	if before[1] != "absent" || before[2] != "absent" {
		t.Fatalf("generator left %v", before)
	}
	ss := Load(t, path)
	if len(ss) != len(hs) {
		t.Fatalf("%d sessions", len(ss))
	}
	if after := claiHashes(t, path); after != before {
		t.Errorf("files changed by loading:\nbefore %v\nafter  %v", before, after)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"data.sqlite"}) {
		t.Errorf("folder holds %v after loading", names)
	}
}

// liveCopy writes a small clai database (seed), opens it in a writer
// process, and copies the files named by suffixes ("" for the database)
// into a fresh folder while the writer holds it: a database left in that
// state. It returns the copy's path and the history written.
func liveCopy(t *testing.T, seed uint64, suffixes ...string) (string, []synth.ClaiHistory) {
	t.Helper()
	path, hs := writeClai(t, synth.ClaiProfile{Sessions: 1, Turns: 2, UserBytes: 20, AssistantBytes: 20}, seed)
	copyPath := filepath.Join(t.TempDir(), "data.sqlite")
	_, _ = clai.WriterProcess(t, "writer", path, hs[0].SessionID)
	for _, suffix := range suffixes {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(copyPath+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return copyPath, hs
}

// TestClaiWALWithoutSHM: a -wal with no -shm (clai opened the database in
// exclusive mode) is read from a private copy; rows only in the -wal are
// seen and nothing is created beside the database.
func TestClaiWALWithoutSHM(t *testing.T) {
	// A database whose last commit lives only in the -wal: the files of a
	// live writer, the -shm left out.
	copyPath, _ := liveCopy(t, 23, "", "-wal")
	before := claiHashes(t, copyPath)
	ss := Load(t, copyPath)
	if !claiIDs(ss[0])["committed-by-writer"] {
		t.Error("the row committed only to the -wal was not read")
	}
	if after := claiHashes(t, copyPath); after != before {
		t.Errorf("files changed:\nbefore %v\nafter  %v", before, after)
	}
}

// TestClaiSHMWithoutWAL: a -shm left behind alone (no -wal: no process has
// the database open, and no WAL frames wait) is read without creating a
// -wal beside it. The reader opened it as a live database, readonly_shm,
// and SQLite created an empty -wal next to the input.
func TestClaiSHMWithoutWAL(t *testing.T) {
	copyPath, hs := liveCopy(t, 24, "", "-shm")
	before := claiHashes(t, copyPath)
	ss := Load(t, copyPath)
	if len(ss) != 1 || len(ss[0].Messages) != len(hs[0].Messages) {
		t.Errorf("%d sessions; want 1 with the %d messages committed to the database file", len(ss), len(hs[0].Messages))
	}
	if after := claiHashes(t, copyPath); after != before {
		t.Errorf("files changed:\nbefore %v\nafter  %v", before, after)
	}
	entries, _ := os.ReadDir(filepath.Dir(copyPath))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"data.sqlite", "data.sqlite-shm"}) {
		t.Errorf("folder holds %v after loading; want the database and its -shm alone", names)
	}
}

// TestClaiHotJournal: a writer killed in the middle of a transaction on a
// rollback-journal database leaves a hot -journal, which a read-only
// reader cannot roll back. The error says so and what to do (it was
// SQLite's "attempt to write a readonly database (776)", which reads as
// calib trying to write), and the files stay as they were.
func TestClaiHotJournal(t *testing.T) {
	path, hs := writeClai(t, synth.ClaiProfile{Sessions: 1, Turns: 4, UserBytes: 200, AssistantBytes: 200}, 25)
	cmd, _ := clai.WriterProcess(t, "journal", path, hs[0].SessionID)
	cmd.Process.Kill()
	cmd.Wait()
	journal, err := os.ReadFile(path + "-journal")
	if err != nil || len(journal) == 0 {
		t.Fatalf("no hot journal left behind: %d bytes, %v", len(journal), err)
	}
	db, _ := os.ReadFile(path)
	_, err = load.Load([]string{path}, corpus.Options{})
	want := "a hot rollback journal (-journal) lies beside the database: a writer stopped in the middle of a transaction"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "copy the workspace's .clai folder (with the -journal)") {
		t.Errorf("load: %v; want an error saying %q", err, want)
	}
	if after, _ := os.ReadFile(path + "-journal"); !bytes.Equal(after, journal) {
		t.Error("the -journal changed")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, db) {
		t.Error("the database changed")
	}
}
