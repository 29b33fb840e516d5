package clai

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
	_ "modernc.org/sqlite" // driver "sqlite"
)

// claiBusyTimeout bounds how long a load waits for a lock held by another
// process (clai itself sets 5 s on its own connections). Readers of a WAL
// database are never blocked by an ordinary writer; this only matters when
// clai holds the database in exclusive mode or is recovering it.
const claiBusyTimeout = 5 * time.Second

// claiDB is an open, read-only view of one clai database.
type claiDB struct {
	db *sql.DB
	// cleanup removes the private copy made for a WAL without its -shm.
	cleanup func()
	// immutable is set when the file was opened without locks because no
	// process had it open (no -wal, no -shm): see openClai.
	immutable bool
}

func (c *claiDB) Close() {
	c.db.Close()
	if c.cleanup != nil {
		c.cleanup()
	}
}

// openClai opens a clai database strictly read-only, choosing the mode that
// leaves the database and its -wal and -shm files byte-identical, whatever
// state clai left them in (measured with SQLite 3.54 through modernc):
//
//   - WAL database with a -shm (clai is running, or crashed): mode=ro plus
//     readonly_shm=1. A plain mode=ro reader writes read marks into the -shm,
//     and when no process holds it, truncates and rebuilds it; with
//     readonly_shm it maps the -shm read-only (or reads the WAL into private
//     memory when no writer is live) and still sees every committed row.
//   - WAL database with neither -wal nor -shm (clai closed it cleanly):
//     immutable=1. mode=ro would create an empty -wal and a -shm and, lacking
//     write locks, leave both behind. The caller re-reads through the live
//     path if a -wal appeared meanwhile (clai started while we read).
//   - WAL database with a -wal but no -shm (unusual): the db and -wal are
//     copied into a private temp dir and the copy is opened.
//   - rollback-journal database (not clai's mode, but any SQLite file may be
//     passed): mode=ro, which creates no files.
//
// Never immutable=1 on a live WAL database: it ignores the WAL and misses
// the rows clai committed since the last checkpoint.
func openClai(p string, busy time.Duration) (*claiDB, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	wal, err := claiIsWAL(abs)
	if err != nil {
		return nil, err
	}
	q := url.Values{"mode": {"ro"}}
	c := &claiDB{}
	if wal {
		hasWAL, hasSHM := jsonscan.Exists(abs+"-wal"), jsonscan.Exists(abs+"-shm")
		switch {
		case hasSHM:
			q.Set("readonly_shm", "1")
		case hasWAL:
			dir, err := claiCopyWAL(abs)
			if err != nil {
				return nil, fmt.Errorf("the database has a -wal file but no -shm file, and copying both to read them safely failed: %w", err)
			}
			abs = filepath.Join(dir, filepath.Base(abs))
			c.cleanup = func() { os.RemoveAll(dir) }
			q = url.Values{} // a private copy: SQLite may recover its WAL
		default:
			q.Set("immutable", "1")
			c.immutable = true
		}
	}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	if len(q["mode"]) > 0 {
		q.Add("_pragma", "query_only(1)")
	}
	dsn := (&url.URL{Scheme: "file", Path: abs, RawQuery: q.Encode()}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		if c.cleanup != nil {
			c.cleanup()
		}
		return nil, err
	}
	// One connection: every query of a load runs in one read transaction,
	// so they all see the same snapshot of a database clai is writing.
	db.SetMaxOpenConns(1)
	c.db = db
	return c, nil
}

// claiIsWAL reports whether the database header says WAL mode (file format
// read/write versions, bytes 18 and 19, are 2).
func claiIsWAL(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var h [20]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return false, fmt.Errorf("reading the SQLite header: %w", err)
	}
	return h[18] == 2 || h[19] == 2, nil
}

// claiCopyWAL copies the database and its -wal into a new temp dir.
func claiCopyWAL(abs string) (string, error) {
	dir, err := os.MkdirTemp("", "calib-clai-")
	if err != nil {
		return "", err
	}
	for _, suffix := range []string{"", "-wal"} {
		if err := claiCopyFile(abs+suffix, filepath.Join(dir, filepath.Base(abs)+suffix)); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

func claiCopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// claiBeginRead starts the read transaction a whole load runs in.
func claiBeginRead(ctx context.Context, c *claiDB) (*sql.Tx, error) {
	tx, err := c.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	// BEGIN is deferred: the first statement takes the snapshot and is where
	// a lock held by another process shows up.
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n); err != nil {
		tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// claiExplain turns SQLite's terse errors into ones that say what to do.
func claiExplain(err error, busy time.Duration) error {
	if err == nil {
		return nil
	}
	var se interface{ Code() int }
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff { // primary result code
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
		return fmt.Errorf("the database is locked by another process (gave up after waiting %v): clai may be holding it in exclusive mode or recovering it; retry when clai is idle, or copy the workspace's .clai folder and load the copy (%w)", busy, err)
	case 26: // SQLITE_NOTADB
		return fmt.Errorf("not a readable SQLite database (corrupt or encrypted); expected a clai .clai/data.sqlite (%w)", err)
	case 11: // SQLITE_CORRUPT
		return fmt.Errorf("the SQLite database is damaged; expected an intact clai .clai/data.sqlite (%w)", err)
	case 14: // SQLITE_CANTOPEN
		return fmt.Errorf("SQLite could not open the database read-only (check that the file and its -wal/-shm files are readable) (%w)", err)
	}
	return err
}
