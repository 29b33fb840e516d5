package sqlitero

import (
	"errors"
	"fmt"
	"time"
)

// Owner says whose database a reader opens, for the errors Explain writes:
// Agent is the program that writes it ("clai"), File what the reader
// expected ("a clai .clai/data.sqlite"), Intact the same with "an intact"
// ("an intact clai .clai/data.sqlite") and Copy how to copy it for a load
// while the agent holds it.
type Owner struct {
	Agent, File, Intact, Copy string
}

// Explain turns SQLite's terse errors into ones that say what to do; err
// stays wrapped. busy is how long the open waited for a lock.
func Explain(err error, busy time.Duration, o Owner) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, errShort) {
		return fmt.Errorf("%w; expected %s", err, o.File)
	}
	var se interface{ Code() int }
	if !errors.As(err, &se) {
		return err
	}
	if se.Code() == 776 { // SQLITE_READONLY_ROLLBACK
		// Said, or the user reads "attempt to write a readonly database"
		// as calib trying to write.
		return fmt.Errorf("a hot rollback journal (-journal) lies beside the database: a writer stopped in the middle of a transaction, and reading needs that transaction rolled back, which calib, reading only, does not do; open the database once with %s or sqlite3 to roll it back, or %s (with the -journal) and load the copy (%w)", o.Agent, o.Copy, err)
	}
	switch se.Code() & 0xff { // primary result code
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
		return fmt.Errorf("the database is locked by another process (gave up after waiting %v): %s may be holding it in exclusive mode or recovering it; retry when %s is idle, or %s and load the copy (%w)", busy, o.Agent, o.Agent, o.Copy, err)
	case 26: // SQLITE_NOTADB
		return fmt.Errorf("not a readable SQLite database (corrupt or encrypted); expected %s (%w)", o.File, err)
	case 11: // SQLITE_CORRUPT
		return fmt.Errorf("the SQLite database is damaged; expected %s (%w)", o.Intact, err)
	case 14: // SQLITE_CANTOPEN
		return fmt.Errorf("SQLite could not open the database read-only (check that the file and its -wal/-shm files are readable) (%w)", err)
	}
	return err
}
