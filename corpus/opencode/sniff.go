package opencode

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/calib-dev/calib/corpus/internal/jsonscan"
	"github.com/calib-dev/calib/corpus/internal/sqlitero"
)

// IsDatabase reports whether the SQLite file at p is an opencode database:
// it has the session, message and part tables with the columns calib
// reads. The file is opened read-only like any database calib reads.
func IsDatabase(p string) bool {
	c, err := sqlitero.Open(p, 100*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	ctx := context.Background()
	tx, err := sqlitero.BeginRead(ctx, c)
	if err != nil {
		return false
	}
	defer tx.Rollback()
	cols, err := sqlitero.Tables(ctx, tx, "session", "message", "part")
	return err == nil && schemaError(cols) == nil
}

// IsSessionFile recognises a storage session file by its start (head):
// JSON.stringify(info, null, 2) of an object whose id is a session id
// ("ses_…") and that names its project.
func IsSessionFile(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	has := func(s string) bool { return bytes.Contains(head, []byte(s)) }
	return (has(`"id": "ses_`) && has(`"projectID": "`)) || (has(`"id":"ses_`) && has(`"projectID":"`))
}

// IsStorage reports whether dir is an opencode storage folder: session/
// and message/ folders, session/<project>/<id>.json files, and a part/
// folder or one session file that reads as one. Any one will do: judged
// by the first file alone, a storage folder whose first session file was
// cut mid-write was walked as a plain folder, where that file, no longer
// recognisable, was skipped in silence with its messages; read as
// storage, LoadStorage names it.
func IsStorage(dir string) bool {
	if fi, err := os.Stat(filepath.Join(dir, "message")); err != nil || !fi.IsDir() {
		return false
	}
	files, _ := filepath.Glob(filepath.Join(dir, "session", "*", "*.json"))
	if len(files) == 0 {
		return false
	}
	if fi, err := os.Stat(filepath.Join(dir, "part")); err == nil && fi.IsDir() {
		return true
	}
	buf := make([]byte, 4096)
	for _, p := range files {
		f, err := jsonscan.Open(p)
		if err != nil {
			continue
		}
		n, _ := io.ReadFull(f, buf)
		f.Close()
		if IsSessionFile(buf[:n]) {
			return true
		}
	}
	return false
}
