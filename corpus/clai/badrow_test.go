package clai_test

import (
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
)

// TestClaiRowOfWrongType: SQLite does not enforce column types, so one row
// holding text where clai's schema has an integer (or, in a foreign schema
// without NOT NULL, a NULL where clai's has text) is skipped with a warning
// naming table, row, column, value and the type expected, and the rest of
// the database loads. Before, database/sql's scan error failed the whole
// database ("assistant_messages: sql: Scan error on column index 6 ...").
func TestClaiRowOfWrongType(t *testing.T) {
	p := synth.ClaiProfile{Sessions: 2, Turns: 2, ToolCalls: 1, UserBytes: 30, AssistantBytes: 30, ToolBytes: 30}
	for _, tc := range []struct {
		name    string
		surgery []string
		// messages each session keeps, minus what was written
		lost []int
		want string
	}{
		{
			name:    "message created_at text",
			surgery: []string{"UPDATE assistant_messages SET created_at = 'yesterday' WHERE rowid = 2"},
			lost:    []int{1, 0},
			want:    `2: assistant_messages row 2: created_at is the text "yesterday"; expected an integer (clai's schema); row skipped`,
		},
		{
			name:    "message created_at real",
			surgery: []string{"UPDATE assistant_messages SET created_at = 1e300 WHERE rowid = 2"},
			lost:    []int{1, 0},
			want:    `2: assistant_messages row 2: created_at is the real 1e+300; expected an integer (clai's schema); row skipped`,
		},
		{
			name: "message content NULL in a schema without NOT NULL",
			surgery: []string{
				"CREATE TABLE m2 AS SELECT * FROM assistant_messages ORDER BY rowid",
				"DROP TABLE assistant_messages",
				"ALTER TABLE m2 RENAME TO assistant_messages",
				"UPDATE assistant_messages SET content_json = NULL WHERE rowid = 2",
			},
			lost: []int{1, 0},
			want: `2: assistant_messages row 2: content_json is NULL; expected text, not NULL (clai's schema); row skipped`,
		},
		{
			name:    "session created_at blob",
			surgery: []string{"UPDATE assistant_sessions SET created_at = x'0001' WHERE rowid = 1"},
			lost:    []int{0, 0},
			want:    `1: assistant_sessions row 1: created_at is a 2-byte blob; expected an integer (clai's schema); the session's metadata is skipped, its messages still load`,
		},
		{
			name: "tool call started_at text",
			surgery: []string{`INSERT INTO assistant_tool_calls (id, session_id, tool_name, params_json, status, started_at)
				SELECT 'tc1', id, 'bash', '{}', '"completed"', 'x' FROM assistant_sessions WHERE rowid = 1`},
			lost: []int{0, 0},
			want: `1: assistant_tool_calls row 1: started_at is the text "x"; expected an integer or NULL (clai's schema); row skipped`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, hs := writeClai(t, p, 7)
			claiExec(t, path, false, tc.surgery...)
			ss := Load(t, path)
			if len(ss) != 2 {
				t.Fatalf("%d sessions, want 2", len(ss))
			}
			byID := map[string]*corpus.Session{}
			for _, s := range ss {
				byID[s.ID] = s
			}
			for i, h := range hs {
				s := byID[h.SessionID]
				if s == nil || len(s.Messages) != len(h.Messages)-tc.lost[i] {
					t.Fatalf("session %d: %v, want %d messages", i, s, len(h.Messages)-tc.lost[i])
				}
			}
			var got []string
			for _, s := range ss {
				for i, w := range warnings(s) {
					if w == tc.want && s.Warnings[i].File == path {
						got = append(got, w)
					}
				}
			}
			if want := []string{tc.want}; !reflect.DeepEqual(got, want) {
				t.Errorf("warnings %q %q\nwant among them once %q", warnings(ss[0]), warnings(ss[1]), tc.want)
			}
		})
	}
}

// TestClaiWarningsInRowOrder: a table's checks run in passes (a column's
// type, then the content's JSON), and their warnings came out pass by
// pass; a session's warnings are in table, then row, order, so the 20
// shown are the first 20 rows'.
func TestClaiWarningsInRowOrder(t *testing.T) {
	p := synth.ClaiProfile{Sessions: 1, Turns: 4, ToolCalls: 1, UserBytes: 30, AssistantBytes: 30, ToolBytes: 30}
	path, _ := writeClai(t, p, 7)
	claiExec(t, path, false,
		"UPDATE assistant_messages SET content_json = '[' WHERE rowid IN (3, 6)",
		"UPDATE assistant_messages SET created_at = 'yesterday' WHERE rowid IN (2, 5)")
	ss := Load(t, path)
	var rows []int
	for _, w := range ss[0].Warnings {
		rows = append(rows, w.Line)
	}
	if want := []int{2, 3, 5, 6}; !reflect.DeepEqual(rows, want) {
		t.Errorf("warnings at rows %v; want %v: %q", rows, want, warnings(ss[0]))
	}
}
