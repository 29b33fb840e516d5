package clai_test

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/synth"
)

// claiSmall is a small HTTP-engine profile: thinking, tool messages, ties.
var claiSmall = synth.ClaiProfile{Sessions: 2, Turns: 4, ToolCalls: 2, UserBytes: 300,
	AssistantBytes: 500, ToolBytes: 2000, ThinkingBytes: 200}

// writeClai generates a database in a temp dir and returns its path and
// what was written.
func writeClai(t *testing.T, p synth.ClaiProfile, seed uint64) (string, []synth.ClaiHistory) {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".clai", "data.sqlite")
	hs, err := synth.WriteClaiSessions(path, p, seed)
	if err != nil {
		t.Fatal(err)
	}
	return path, hs
}

func Load(t *testing.T, path string) []*corpus.Session {
	t.Helper()
	ss, err := load.Load([]string{path}, corpus.Options{})
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return ss
}

// claiRW opens a generated database read-write for surgery.
func claiRW(t *testing.T, path string, foreignKeys bool) *sql.DB {
	t.Helper()
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", fmt.Sprintf("foreign_keys(%v)", foreignKeys))
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

func claiExec(t *testing.T, path string, foreignKeys bool, stmts ...string) {
	t.Helper()
	db := claiRW(t, path, foreignKeys)
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func warnings(s *corpus.Session) []string {
	var out []string
	for _, w := range s.Warnings {
		out = append(out, fmt.Sprintf("%d: %s", w.Line, w.Message))
	}
	return out
}

func TestClaiLoadsWhatWasWritten(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    synth.ClaiProfile
	}{
		{"http", claiSmall},
		{"cli", synth.ClaiProfile{Sessions: 1, Turns: 3, ToolCalls: 3, UserBytes: 200, AssistantBytes: 300,
			ToolBytes: 1500, ThinkingBytes: 100, Provider: "claude-code", Model: "claude-opus-4-1"}},
		{"protocol_id", synth.ClaiProfile{Sessions: 1, Turns: 2, ToolCalls: 1, UserBytes: 100, AssistantBytes: 100,
			ToolBytes: 100, Provider: "codex", Model: "gpt-5-codex", ProtocolID: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, hs := writeClai(t, tc.p, 7)
			ss := Load(t, path)
			if len(ss) != len(hs) {
				t.Fatalf("got %d sessions, want %d", len(ss), len(hs))
			}
			for i, s := range ss {
				h := hs[i]
				if s.ID != h.SessionID || s.Format != corpus.FormatClai || s.Path != path {
					t.Errorf("session %d: id %s format %s path %s; want %s clai %s", i, s.ID, s.Format, s.Path, h.SessionID, path)
				}
				model := tc.p.Model
				if model == "" {
					model = "claude-sonnet-4-5" // the generator's default
				}
				if s.Meta.Provider != h.Provider || s.Meta.Kind != "interactive" || s.Meta.Model != model {
					t.Errorf("session %d meta: %+v", i, s.Meta)
				}
				if !reflect.DeepEqual(s.Messages, h.Messages) {
					for j := range min(len(s.Messages), len(h.Messages)) {
						if !reflect.DeepEqual(s.Messages[j], h.Messages[j]) {
							t.Fatalf("session %d message %d:\n got %+v\nwant %+v", i, j, s.Messages[j], h.Messages[j])
						}
					}
					t.Fatalf("session %d: %d messages, want %d", i, len(s.Messages), len(h.Messages))
				}
				if len(s.Warnings) != 0 {
					t.Errorf("warnings: %v", warnings(s))
				}
				cli := synth.ClaiIsCLI(h.Provider)
				wantCalls := 0
				if cli {
					wantCalls = tc.p.Turns * tc.p.ToolCalls
				}
				if len(s.Recorded.ToolCalls) != wantCalls {
					t.Errorf("%d tool calls, want %d", len(s.Recorded.ToolCalls), wantCalls)
				}
				for _, tcall := range s.Recorded.ToolCalls {
					if tcall.Status != "completed" || len(tcall.Result) == 0 || tcall.Name == "" {
						t.Errorf("tool call %+v", tcall)
					}
				}
			}
		})
	}
}

// TestClaiMessageOrder: created_at first, then rowid, as clai's index scan
// returns equal timestamps; neither id order nor table order.
func TestClaiMessageOrder(t *testing.T) {
	path, hs := writeClai(t, synth.ClaiProfile{Sessions: 1, Turns: 1, UserBytes: 10, AssistantBytes: 10}, 1)
	sid := hs[0].SessionID
	ins := func(id string, at int) string {
		return fmt.Sprintf(`INSERT INTO assistant_messages (id, session_id, role, content_json, provider_metadata_json, created_at)
			VALUES ('%s', '%s', '"user"', '[{"type":"text","text":"%s"}]', NULL, %d)`, id, sid, id, at)
	}
	base := int(hs[0].Messages[1].Time.UnixMilli())
	claiExec(t, path, true, ins("zz-late", base+300), ins("mm-tie", base+200), ins("aa-tie", base+200), ins("bb-early", base+100))
	s := Load(t, path)[0]
	var got []string
	for _, m := range s.Messages[2:] {
		got = append(got, fmt.Sprintf("%s@%d", m.ID, m.Line))
	}
	want := []string{"bb-early@6", "mm-tie@4", "aa-tie@5", "zz-late@3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// digestOf builds a deterministic digest the way legacy clai chains them:
// the previous summary rendered whole as message 0, fresh P1 and P2 on top.
func digestOf(h synth.ClaiHistory, window []corpus.Message) string {
	var b strings.Builder
	b.WriteString(clai.DigestPreamble + "\n\n")
	for i, m := range window {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "[%s message %s]\n", m.Role, m.ID)
		for _, bl := range m.Blocks {
			if bl.Kind == corpus.KindText {
				b.WriteString(bl.Text)
			}
		}
	}
	return synth.ClaiSummaryText(b.String())
}

// chain returns a Compact func that compacts before every turn from the
// second, with a window starting at the previous summary (or the first
// message), as clai's select_compaction_window does; broken makes the
// third compaction start elsewhere.
func chain(kind string, broken bool) synth.ClaiCompactFunc {
	return func(h synth.ClaiHistory) (synth.ClaiCompaction, bool) {
		start := 0
		if n := len(h.Compactions); n > 0 {
			last := h.Compactions[n-1]
			for i, m := range h.Messages {
				if m.ID == last.SummaryID {
					start = i
				}
			}
			if broken && n == 2 {
				start = 0
			}
		}
		window := h.Messages[start : len(h.Messages)-1]
		c := synth.ClaiCompaction{SourceFrom: window[0].ID, SourceTo: window[len(window)-1].ID, InputMessages: len(window)}
		switch kind {
		case "digest":
			c.Summary = digestOf(h, window)
		case "old":
			c.Summary = synth.ClaiOldDigestText("[user message " + window[0].ID + "]\nhello")
		case "model":
			c.Summary = synth.ClaiSummaryText("## Goal\nFix the routing bug.\n\n## State\nTests pass.")
		}
		return c, true
	}
}

func TestClaiRotationChain(t *testing.T) {
	p := synth.ClaiProfile{Sessions: 1, Turns: 5, ToolCalls: 1, UserBytes: 100, AssistantBytes: 100, ToolBytes: 100,
		Provider: "claude-code", Compact: chain("digest", false)}
	path, hs := writeClai(t, p, 3)
	s := Load(t, path)[0]
	if len(s.Warnings) != 0 {
		t.Fatalf("warnings: %v", warnings(s))
	}
	want := hs[0].Compactions
	if len(s.Recorded.Compactions) != 4 || len(want) != 4 {
		t.Fatalf("%d compactions, want 4", len(s.Recorded.Compactions))
	}
	for i, c := range s.Recorded.Compactions {
		w := want[i]
		if c.Index != i || c.ID != w.ID || c.Strategy != "session_rotation_summary" || c.Trigger != "automatic" ||
			c.Status != "completed" || c.SourceFrom != w.SourceFrom || c.SourceTo != w.SourceTo ||
			c.InputMessages != w.InputMessages || c.SummaryID != w.SummaryID || c.Summary != w.Summary || c.SummaryMissing {
			t.Errorf("compaction %d: %+v\nwant %+v", i, c, w)
		}
		if c.Line != i+1 || s.Messages[c.AtMessage].ID != w.SummaryID || !s.Messages[c.AtMessage].Summary {
			t.Errorf("compaction %d: line %d at %d", i, c.Line, c.AtMessage)
		}
		// Each rotation nests one more copy of both preambles.
		if c.Kind != corpus.DigestDeterministic || c.P1 != i+1 || c.P2 != i+1 || c.Chained != (i > 0) {
			t.Errorf("compaction %d: kind %q p1 %d p2 %d chained %v; want digest %d %d %v", i, c.Kind, c.P1, c.P2, c.Chained, i+1, i+1, i > 0)
		}
		if c.CompletedAt.Before(c.CreatedAt) || c.CreatedAt.IsZero() {
			t.Errorf("compaction %d times %v %v", i, c.CreatedAt, c.CompletedAt)
		}
	}
}

func TestClaiClassification(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		want   corpus.DigestKind
		p1, p2 int
	}{
		{"digest", corpus.DigestDeterministic, 1, 1},
		{"old", corpus.DigestOld, 1, 1},
		{"model", corpus.DigestModel, 1, 0},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			p := synth.ClaiProfile{Sessions: 1, Turns: 2, UserBytes: 50, AssistantBytes: 50, Compact: chain(tc.kind, false)}
			path, _ := writeClai(t, p, 5)
			s := Load(t, path)[0]
			c := s.Recorded.Compactions[0]
			if c.Kind != tc.want || c.P1 != tc.p1 || c.P2 != tc.p2 || c.Strategy != "local_summary" {
				t.Errorf("kind %q p1 %d p2 %d strategy %s; want %q %d %d local_summary", c.Kind, c.P1, c.P2, c.Strategy, tc.want, tc.p1, tc.p2)
			}
			if len(s.Warnings) != 0 {
				t.Errorf("warnings: %v", warnings(s))
			}
		})
	}
}

// unconstrained rebuilds table without its constraints (as a hand repair
// or an export may), its rows kept in order, running edit (on the copy,
// t2) before the copy takes the table's name.
func unconstrained(table, edit string) []string {
	return []string{"CREATE TABLE t2 AS SELECT * FROM " + table, edit, "DROP TABLE " + table, "ALTER TABLE t2 RENAME TO " + table}
}

// TestClaiBadInput: each damaged database loads, keeps everything else and
// says exactly what it found.
func TestClaiBadInput(t *testing.T) {
	small := synth.ClaiProfile{Sessions: 1, Turns: 4, UserBytes: 50, AssistantBytes: 50}
	for _, tc := range []struct {
		name    string
		p       synth.ClaiProfile
		surgery func(t *testing.T, path string, h synth.ClaiHistory)
		check   func(t *testing.T, s *corpus.Session, h synth.ClaiHistory)
		want    func(h synth.ClaiHistory) []string
	}{
		{
			name: "no compactions",
			p:    small,
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				if len(s.Recorded.Compactions) != 0 || len(s.Messages) != 8 {
					t.Errorf("%d compactions, %d messages", len(s.Recorded.Compactions), len(s.Messages))
				}
			},
			want: func(synth.ClaiHistory) []string { return nil },
		},
		{
			name: "dangling running compaction",
			p: withCompact(small, func(h synth.ClaiHistory) (synth.ClaiCompaction, bool) {
				return synth.ClaiCompaction{Status: "running", SourceFrom: h.Messages[0].ID, SourceTo: h.Messages[1].ID, InputMessages: 2}, len(h.Compactions) == 0
			}),
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				c := s.Recorded.Compactions[0]
				if c.Status != "running" || !c.SummaryMissing || c.AtMessage != -1 || c.Summary != "" || c.Kind != "" || !c.CompletedAt.IsZero() {
					t.Errorf("%+v", c)
				}
			},
			want: func(h synth.ClaiHistory) []string {
				return []string{fmt.Sprintf(`1: assistant_compactions row 1 (id %s): status "running" and no summary was completed: a dangling compaction (clai stopped during it, or is compacting right now); expected "completed" with a summary_message_id`, h.Compactions[0].ID)}
			},
		},
		{
			// SQLite checks the CHECK constraint only on write; a hand
			// edit or a later clai may leave another value.
			name: "unknown compaction status",
			p:    withCompact(small, chain("model", false)),
			surgery: func(t *testing.T, path string, h synth.ClaiHistory) {
				claiExec(t, path, false, "PRAGMA ignore_check_constraints = 1", `UPDATE assistant_compactions SET status = '"paused"' WHERE rowid = 3`)
			},
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				if c := s.Recorded.Compactions[2]; c.Status != "paused" {
					t.Errorf("%+v", c)
				}
			},
			want: func(h synth.ClaiHistory) []string {
				return []string{fmt.Sprintf(`3: assistant_compactions row 3 (id %s): status "paused" is not one clai writes; expected "running", "completed" or "failed" (quoted JSON strings); not counted as a completed compaction`, h.Compactions[2].ID)}
			},
		},
		{
			// '' fits TEXT PRIMARY KEY; clai writes UUIDs.
			name: "empty session id",
			p:    small,
			surgery: func(t *testing.T, path string, h synth.ClaiHistory) {
				claiExec(t, path, false, `UPDATE assistant_sessions SET id = ''`, `UPDATE assistant_messages SET session_id = ''`)
			},
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				if s.ID != "" || len(s.Messages) != 8 {
					t.Errorf("id %q, %d messages; want the empty id and 8", s.ID, len(s.Messages))
				}
			},
			want: func(synth.ClaiHistory) []string {
				return []string{`1: assistant_sessions row 1: id is empty; expected clai's session id (a UUID); the session and its rows load under the empty id`}
			},
		},
		{
			// A table rebuilt without its PRIMARY KEY (a hand repair, an
			// export) can hold an id twice; its rows went to the second
			// session and the first, empty, was the one reported.
			name: "session id twice",
			p:    small,
			surgery: func(t *testing.T, path string, h synth.ClaiHistory) {
				claiExec(t, path, false, unconstrained("assistant_sessions", "INSERT INTO t2 SELECT * FROM assistant_sessions")...)
			},
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				if s.ID != h.SessionID || len(s.Messages) != 8 {
					t.Errorf("id %q, %d messages; want %s and 8", s.ID, len(s.Messages), h.SessionID)
				}
			},
			want: func(h synth.ClaiHistory) []string {
				return []string{fmt.Sprintf(`2: assistant_sessions row 2: id %s is row 1's too; expected unique session ids (clai's PRIMARY KEY); this row is skipped and the session's rows load once, under row 1`, h.SessionID)}
			},
		},
		{
			name: "summary deleted with foreign keys on",
			p:    withCompact(small, chain("model", false)),
			surgery: func(t *testing.T, path string, h synth.ClaiHistory) {
				claiExec(t, path, true, "DELETE FROM assistant_messages WHERE id = '"+h.Compactions[1].SummaryID+"'")
			},
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				c := s.Recorded.Compactions[1]
				if c.SummaryID != "" || !c.SummaryMissing || c.AtMessage != -1 || c.Summary != "" {
					t.Errorf("%+v", c)
				}
				// The next compaction's window began with the deleted summary:
				// ON DELETE SET NULL left its source_from NULL.
				if s.Recorded.Compactions[2].SourceFrom != "" || s.Recorded.Compactions[2].Chained {
					t.Errorf("%+v", s.Recorded.Compactions[2])
				}
			},
			want: func(h synth.ClaiHistory) []string {
				return []string{
					fmt.Sprintf(`2: assistant_compactions row 2 (id %s): status "completed" but summary_message_id is NULL: the summary message was deleted (ON DELETE SET NULL); expected the id of a "clai-compaction" message`, h.Compactions[1].ID),
					fmt.Sprintf(`3: assistant_compactions row 3 (id %s): source_from_message_id NULL is not the previous compaction's summary message %s (row 1): the rotation chain does not link here; expected the window to start with the previous summary`, h.Compactions[2].ID, h.Compactions[0].SummaryID),
				}
			},
		},
		{
			name: "summary row gone without cascade",
			p:    withCompact(small, chain("model", false)),
			surgery: func(t *testing.T, path string, h synth.ClaiHistory) {
				claiExec(t, path, false, "DELETE FROM assistant_messages WHERE id = '"+h.Compactions[2].SummaryID+"'")
			},
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				c := s.Recorded.Compactions[2]
				if c.SummaryID != h.Compactions[2].SummaryID || !c.SummaryMissing || c.AtMessage != -1 {
					t.Errorf("%+v", c)
				}
			},
			want: func(h synth.ClaiHistory) []string {
				return []string{fmt.Sprintf(`3: assistant_compactions row 3 (id %s): summary_message_id %s has no row in assistant_messages of session %s: the summary message was deleted; expected a "clai-compaction" message`, h.Compactions[2].ID, h.Compactions[2].SummaryID, h.SessionID)}
			},
		},
		{
			name: "chain does not link",
			p:    withCompact(small, chain("digest", true)),
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				var got []bool
				for _, c := range s.Recorded.Compactions {
					got = append(got, c.Chained)
				}
				if !reflect.DeepEqual(got, []bool{false, true, false}) {
					t.Errorf("chained %v", got)
				}
			},
			want: func(h synth.ClaiHistory) []string {
				return []string{fmt.Sprintf(`3: assistant_compactions row 3 (id %s): source_from_message_id %s is not the previous compaction's summary message %s (row 2): the rotation chain does not link here; expected the window to start with the previous summary`, h.Compactions[2].ID, h.Messages[0].ID, h.Compactions[1].SummaryID)}
			},
		},
		{
			name: "older clai preambles",
			p:    withCompact(small, chain("old", false)),
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				for _, c := range s.Recorded.Compactions {
					if c.Kind != corpus.DigestOld || c.P1 != 1 || c.P2 != 1 {
						t.Errorf("%+v", c)
					}
				}
			},
			want: func(synth.ClaiHistory) []string { return nil },
		},
		{
			name: "invalid content_json",
			p:    small,
			surgery: func(t *testing.T, path string, h synth.ClaiHistory) {
				claiExec(t, path, true, "UPDATE assistant_messages SET content_json = '[{\"type\":\"text\",' WHERE rowid = 3")
			},
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				m := s.Messages[2]
				want := []corpus.Block{{Kind: corpus.KindUnknown, Payload: []byte(`[{"type":"text",`)}}
				if m.Line != 3 || !reflect.DeepEqual(m.Blocks, want) || len(s.Messages) != 8 {
					t.Errorf("%+v", m)
				}
			},
			want: func(h synth.ClaiHistory) []string {
				return []string{fmt.Sprintf("3: assistant_messages row 3 (id %s): content_json is not a JSON array of content parts (unexpected end of JSON input); kept as one unknown block", h.Messages[2].ID)}
			},
		},
		{
			name: "image part",
			p:    small,
			surgery: func(t *testing.T, path string, h synth.ClaiHistory) {
				claiExec(t, path, true, `UPDATE assistant_messages SET content_json = '[{"type":"text","text":"see"},{"type":"image","id":"img-1","path":"/w/.clai/images/img-1.png","media_type":"image/png","filename":"shot.png","width":640,"height":480}]' WHERE rowid = 1`)
			},
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				want := []corpus.Block{{Kind: corpus.KindText, Text: "see"},
					{Kind: corpus.KindImage, MediaRef: "img-1", Source: "/w/.clai/images/img-1.png", MediaType: "image/png"}}
				if !reflect.DeepEqual(s.Messages[0].Blocks, want) {
					t.Errorf("%+v", s.Messages[0].Blocks)
				}
			},
			want: func(synth.ClaiHistory) []string { return nil },
		},
		{
			// NOT NULL holds only in clai's schema: a rebuilt table (a hand
			// repair, an export) can hold a NULL role; it was reported as
			// unknown role "".
			name: "null role",
			p:    small,
			surgery: func(t *testing.T, path string, h synth.ClaiHistory) {
				claiExec(t, path, false, unconstrained("assistant_messages", "UPDATE t2 SET role = NULL WHERE rowid = 3")...)
			},
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				if len(s.Messages) != 8 || s.Messages[2].Role != "" {
					t.Errorf("%d messages, the third's role %q; want 8 and none", len(s.Messages), s.Messages[2].Role)
				}
			},
			want: func(h synth.ClaiHistory) []string {
				return []string{fmt.Sprintf(`3: assistant_messages row 3 (id %s): role is NULL; expected one of "system", "user", "assistant", "tool" (kept without a role)`, h.Messages[2].ID)}
			},
		},
		{
			// A message id twice (a table rebuilt without its PRIMARY
			// KEY): said, where a compaction window naming it found the
			// later row and blamed rows "deleted or edited since".
			name: "message id twice",
			p:    small,
			surgery: func(t *testing.T, path string, h synth.ClaiHistory) {
				claiExec(t, path, false, unconstrained("assistant_messages", "UPDATE t2 SET id = '"+h.Messages[1].ID+"' WHERE rowid = 5")...)
			},
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				if len(s.Messages) != 8 {
					t.Errorf("%d messages; want 8", len(s.Messages))
				}
			},
			want: func(h synth.ClaiHistory) []string {
				return []string{fmt.Sprintf(`5: assistant_messages row 5: id %s is row 2's too; expected unique message ids (clai's PRIMARY KEY); compactions that name it read row 2`, h.Messages[1].ID)}
			},
		},
		{
			name: "unknown part type and role",
			p:    small,
			surgery: func(t *testing.T, path string, h synth.ClaiHistory) {
				claiExec(t, path, true, `UPDATE assistant_messages SET role = '"developer"', content_json = '[{"type":"audio","id":"a1","seconds":3},{"type":"text","text":"hi"}]' WHERE rowid = 4`)
			},
			check: func(t *testing.T, s *corpus.Session, h synth.ClaiHistory) {
				m := s.Messages[3]
				want := []corpus.Block{{Kind: corpus.KindUnknown, Payload: []byte(`{"type":"audio","id":"a1","seconds":3}`)}, {Kind: corpus.KindText, Text: "hi"}}
				if m.Role != "developer" || !reflect.DeepEqual(m.Blocks, want) {
					t.Errorf("%+v", m)
				}
			},
			want: func(h synth.ClaiHistory) []string {
				id := h.Messages[3].ID
				return []string{
					fmt.Sprintf(`4: assistant_messages row 4 (id %s): unknown role "developer"; expected one of "system", "user", "assistant", "tool" (kept as is)`, id),
					fmt.Sprintf(`4: assistant_messages row 4 (id %s): content part 0 has unknown type "audio"; expected text, thinking, tool_use, tool_result or image (kept as an unknown block)`, id),
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, hs := writeClai(t, tc.p, 11)
			if tc.surgery != nil {
				tc.surgery(t, path, hs[0])
			}
			ss := Load(t, path)
			if len(ss) != 1 {
				t.Fatalf("%d sessions", len(ss))
			}
			tc.check(t, ss[0], hs[0])
			if got, want := warnings(ss[0]), tc.want(hs[0]); !reflect.DeepEqual(got, want) {
				t.Errorf("warnings:\n got %q\nwant %q", got, want)
			}
			for _, w := range ss[0].Warnings {
				if w.File != path {
					t.Errorf("warning file %s, want %s", w.File, path)
				}
			}
			// --strict turns the first warning into an error naming the row.
			if _, err := load.Load([]string{path}, corpus.Options{Strict: true}); (err != nil) != (len(ss[0].Warnings) > 0) {
				t.Errorf("strict: %v", err)
			}
		})
	}
}

func withCompact(p synth.ClaiProfile, f synth.ClaiCompactFunc) synth.ClaiProfile {
	p.Compact = f
	return p
}

func TestClaiNotAClaiDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.sqlite")
	db := claiRW(t, path, false)
	if _, err := db.Exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); CREATE TABLE assistant_messages (id TEXT)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := load.Load([]string{path}, corpus.Options{})
	var fe *corpus.FileError
	if !errors.As(err, &fe) || fe.Path != path {
		t.Fatalf("error %v, want a FileError for %s", err, path)
	}
	want := path + ": not a clai database: missing table(s) assistant_sessions, assistant_compactions, assistant_session_links (tables found: assistant_messages, notes); expected a clai workspace database (.clai/data.sqlite)"
	if err.Error() != want {
		t.Errorf("error\n got %s\nwant %s", err, want)
	}
}

func TestClaiWorkspaceFolderAndLinks(t *testing.T) {
	p := synth.ClaiProfile{Sessions: 3, Turns: 1, UserBytes: 20, AssistantBytes: 20, Links: map[int]int{2: 1}}
	path, hs := writeClai(t, p, 2)
	ws := filepath.Dir(filepath.Dir(path))
	ss := Load(t, ws)
	if len(ss) != 3 {
		t.Fatalf("%d sessions", len(ss))
	}
	if ss[2].Meta.Parent != hs[1].SessionID || ss[0].Meta.Parent != "" || ss[1].Meta.Parent != "" {
		t.Errorf("parents %q %q %q", ss[0].Meta.Parent, ss[1].Meta.Parent, ss[2].Meta.Parent)
	}
}

func TestClaiOrphanRowsAreKept(t *testing.T) {
	path, hs := writeClai(t, synth.ClaiProfile{Sessions: 2, Turns: 1, UserBytes: 20, AssistantBytes: 20}, 4)
	claiExec(t, path, false, "DELETE FROM assistant_sessions WHERE id = '"+hs[0].SessionID+"'")
	ss := Load(t, path)
	if len(ss) != 2 || ss[0].ID != hs[1].SessionID || ss[1].ID != hs[0].SessionID || len(ss[1].Messages) != 2 {
		t.Fatalf("sessions %v", ss)
	}
	want := []string{fmt.Sprintf("1: assistant_messages row 1 belongs to session %s, which has no assistant_sessions row (deleted without cascade); loaded as a session without metadata", hs[0].SessionID)}
	if got := warnings(ss[1]); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestClaiGeneratorIsDeterministic(t *testing.T) {
	p := withCompact(claiSmall, chain("digest", false))
	a, _ := writeClai(t, p, 9)
	b, _ := writeClai(t, p, 9)
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if len(ba) == 0 || string(ba) != string(bb) {
		t.Errorf("two writes with the same seed differ (%d, %d bytes)", len(ba), len(bb))
	}
}

// TestClaiPathNeedsEscaping: the file: URI must escape what SQLite would
// read as URI syntax (a space, '#', '?', '%').
func TestClaiPathNeedsEscaping(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my ws #1 ?x=%20")
	path := filepath.Join(dir, ".clai", "data.sqlite")
	if err := synth.WriteClai(path, synth.ClaiProfile{Sessions: 1, Turns: 1, UserBytes: 10, AssistantBytes: 10}, 1); err != nil {
		t.Fatal(err)
	}
	ss := Load(t, dir)
	if len(ss) != 1 || len(ss[0].Messages) != 2 {
		t.Fatalf("%d sessions", len(ss))
	}
}

// TestClaiOlderAndEmptyDatabases: a database from before compaction
// existed (no assistant_compactions, no links) loads; one with no sessions
// is an error that says so.
func TestClaiOlderAndEmptyDatabases(t *testing.T) {
	path, hs := writeClai(t, claiSmall, 31)
	claiExec(t, path, false, "DROP TABLE assistant_compactions", "DROP TABLE assistant_session_links", "DROP TABLE assistant_tool_calls", "DROP TABLE assistant_runs")
	ss := Load(t, path)
	if len(ss) != 2 || len(ss[0].Messages) != len(hs[0].Messages) || ss[0].Meta.Provider != "" || len(ss[0].Warnings) != 0 {
		t.Errorf("old database: %d sessions, meta %+v, warnings %v", len(ss), ss[0].Meta, warnings(ss[0]))
	}

	path, _ = writeClai(t, claiSmall, 32)
	claiExec(t, path, true, "DELETE FROM assistant_sessions")
	_, err := load.Load([]string{path}, corpus.Options{})
	if !errors.Is(err, corpus.ErrNoSessions) || err.Error() != path+": no sessions found: the clai database has no rows in assistant_sessions" {
		t.Errorf("empty database: %v", err)
	}
}

// TestClaiDamagedFile: a file that starts like SQLite but is damaged fails
// alone, with an error naming it, and costs no other input.
func TestClaiDamagedFile(t *testing.T) {
	good, _ := writeClai(t, claiSmall, 41)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "data.sqlite")
	damaged := append([]byte{}, data[:100]...)
	damaged = append(damaged, bytes.Repeat([]byte{0xA5}, len(data)-100)...)
	if err := os.WriteFile(bad, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	ss, err := load.Load([]string{bad, good}, corpus.Options{})
	if len(ss) != 2 || ss[0].Path != good {
		t.Errorf("the good database was not loaded: %d sessions", len(ss))
	}
	var fe *corpus.FileError
	if !errors.As(err, &fe) || fe.Path != bad || !strings.Contains(err.Error(), "expected an intact clai .clai/data.sqlite") {
		t.Errorf("error %v", err)
	}
}

// TestClaiEmptyFile: a workspace whose .clai/data.sqlite is empty (clai
// created it and died) or shorter than a SQLite header fails alone with an
// error saying so and what was expected (before: "reading the SQLite
// header: EOF"), and costs no other input.
func TestClaiEmptyFile(t *testing.T) {
	good, _ := writeClai(t, claiSmall, 41)
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{nil, "not a SQLite database: the file is empty (0 bytes); expected a clai .clai/data.sqlite"},
		{[]byte("SQLite"), "not a SQLite database: the file is 6 bytes, shorter than a SQLite header; expected a clai .clai/data.sqlite"},
	} {
		ws := t.TempDir()
		bad := filepath.Join(ws, ".clai", "data.sqlite")
		if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bad, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		ss, err := load.Load([]string{ws, good}, corpus.Options{})
		if len(ss) != 2 || ss[0].Path != good {
			t.Errorf("the good database was not loaded: %d sessions", len(ss))
		}
		var fe *corpus.FileError
		if !errors.As(err, &fe) || fe.Path != bad || err.Error() != bad+": "+tc.want {
			t.Errorf("error %v\nwant %s: %s", err, bad, tc.want)
		}
	}
}
