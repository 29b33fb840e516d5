// Package sqlitero opens an agent's SQLite database strictly read-only:
// calib never writes to what it reads, also while the agent is running and
// writing (clai's data.sqlite, opencode's opencode.db). Both agents keep
// their databases in WAL mode.
package sqlitero

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

// DB is an open, read-only view of one database.
type DB struct {
	*sql.DB
	// cleanup removes the private copy made for a WAL without its -shm.
	cleanup func()
	// Immutable is set when the file was opened without locks because no
	// process had it open (no -wal, no -shm): see Open. A caller that finds
	// a -wal or -shm after reading re-reads through the live path.
	Immutable bool
}

// Close closes the database and removes any private copy.
func (c *DB) Close() {
	c.DB.Close()
	if c.cleanup != nil {
		c.cleanup()
	}
}

// Open opens a database strictly read-only, choosing the mode that leaves
// the database and its -wal and -shm files byte-identical, whatever state
// the agent left them in (measured with SQLite 3.54 through modernc):
//
//   - WAL database with a -shm (the agent is running, or crashed): mode=ro
//     plus readonly_shm=1. A plain mode=ro reader writes read marks into the
//     -shm, and when no process holds it, truncates and rebuilds it; with
//     readonly_shm it maps the -shm read-only (or reads the WAL into private
//     memory when no writer is live) and still sees every committed row.
//   - WAL database without a -wal (closed cleanly, or a -shm left behind
//     alone): immutable=1. mode=ro would create an empty -wal and a -shm
//     (or, beside a -shm, the -wal alone) and, lacking write locks, leave
//     them behind. With no -wal there are no WAL frames to miss, and no
//     process has the database open: a connection in WAL mode holds its
//     -wal. Read re-reads through the live path if a -wal appeared
//     meanwhile (the agent started while we read).
//   - WAL database with a -wal but no -shm (unusual): the db and -wal are
//     copied into a private temp dir and the copy is opened.
//   - rollback-journal database: mode=ro, which creates no files.
//
// Never immutable=1 on a live WAL database: it ignores the WAL and misses
// the rows the agent committed since the last checkpoint.
func Open(p string, busy time.Duration) (*DB, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	wal, err := isWAL(abs)
	if err != nil {
		return nil, err
	}
	q := url.Values{"mode": {"ro"}}
	c := &DB{}
	if wal {
		hasWAL, hasSHM := jsonscan.Exists(abs+"-wal"), jsonscan.Exists(abs+"-shm")
		switch {
		case hasWAL && hasSHM:
			q.Set("readonly_shm", "1")
		case hasWAL:
			dir, err := copyWAL(abs)
			if err != nil {
				return nil, fmt.Errorf("the database has a -wal file but no -shm file, and copying both to read them safely failed: %w", err)
			}
			abs = filepath.Join(dir, filepath.Base(abs))
			c.cleanup = func() { os.RemoveAll(dir) }
			q = url.Values{} // a private copy: SQLite may recover its WAL
		default:
			q.Set("immutable", "1")
			c.Immutable = true
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
	// so they all see the same snapshot of a database being written.
	db.SetMaxOpenConns(1)
	c.DB = db
	return c, nil
}

// errShort is a file too short to hold a SQLite header (an empty file a
// crashed agent left, say); Explain names what was expected.
var errShort = errors.New("not a SQLite database")

// shortFile is errShort with the file's size.
func shortFile(n int) error {
	if n == 0 {
		return fmt.Errorf("%w: the file is empty (0 bytes)", errShort)
	}
	return fmt.Errorf("%w: the file is %d bytes, shorter than a SQLite header", errShort, n)
}

// isWAL reports whether the database header says WAL mode (file format
// read/write versions, bytes 18 and 19, are 2).
func isWAL(p string) (bool, error) {
	f, err := jsonscan.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var h [20]byte
	if n, err := io.ReadFull(f, h[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return false, shortFile(n)
		}
		return false, fmt.Errorf("reading the SQLite header: %w", err)
	}
	return h[18] == 2 || h[19] == 2, nil
}

// copyWAL copies the database and its -wal into a new temp dir.
func copyWAL(abs string) (string, error) {
	dir, err := os.MkdirTemp("", "calib-sqlite-")
	if err != nil {
		return "", err
	}
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(abs+suffix, filepath.Join(dir, filepath.Base(abs)+suffix)); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

func copyFile(src, dst string) error {
	in, err := jsonscan.Open(src)
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

// Read opens p (Open), starts the one read transaction a whole load runs
// in (BeginRead) and hands it to read. A database read without locks
// (DB.Immutable) beside which a -wal appeared meanwhile (an agent opened
// it) is read again through the live path, at most twice: read must start
// afresh at each call.
func Read(p string, busy time.Duration, read func(ctx context.Context, tx *sql.Tx) error) error {
	for attempt := 0; ; attempt++ {
		immutable, err := readOnce(p, busy, read)
		if immutable && attempt < 2 && jsonscan.Exists(p+"-wal") {
			continue
		}
		return err
	}
}

func readOnce(p string, busy time.Duration, read func(ctx context.Context, tx *sql.Tx) error) (immutable bool, err error) {
	c, err := Open(p, busy)
	if err != nil {
		return false, err
	}
	defer c.Close()
	ctx := context.Background()
	tx, err := BeginRead(ctx, c)
	if err != nil {
		return c.Immutable, err
	}
	defer tx.Rollback()
	return c.Immutable, read(ctx, tx)
}

// BeginRead starts the read transaction a whole load runs in.
func BeginRead(ctx context.Context, c *DB) (*sql.Tx, error) {
	tx, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
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

// Tables returns the columns of every table whose name is in want, read
// from the schema; a table absent from the database is absent from the map.
func Tables(ctx context.Context, tx *sql.Tx, want ...string) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	for _, t := range want {
		rows, err := tx.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", t)
		if err != nil {
			return nil, err
		}
		cols := map[string]bool{}
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				rows.Close()
				return nil, err
			}
			cols[c] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if len(cols) > 0 {
			out[t] = cols
		}
	}
	return out, nil
}
