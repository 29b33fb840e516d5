package synth

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/policy"
)

// The expected values below are clai's own, from specs/clai.md §2.4, §2.7
// and §4 (measured by compiling clai's functions).

func TestClaiHeadAndTailMatchesClai(t *testing.T) {
	if got := claiHeadAndTail([]string{"a", "b", "c"}, 10_000); got != "a\n\nb\n\nc" {
		t.Errorf("within budget: %q", got)
	}
	var msgs []string
	for i := range 20 {
		msgs = append(msgs, "MESSAGE-"+string(rune('0'+i/10))+string(rune('0'+i%10))+"-xxxxxxxxxxxxxxxxx")
	}
	want := msgs[0] + "\n\n[... 17 middle messages omitted during compaction; recover the full verbatim history with the read-only `history_query` tool (`.clai/data.sqlite`) ...]\n\n" + msgs[18] + "\n\n" + msgs[19]
	if got := claiHeadAndTail(msgs, 120); got != want || len(got) != 241 {
		t.Errorf("head and tail (%d bytes):\n got %q\nwant %q", len(got), got, want)
	}
	// The two holes that let the digest grow.
	sized := func(ns ...int) []string {
		var out []string
		for _, n := range ns {
			out = append(out, strings.Repeat("x", n))
		}
		return out
	}
	for _, tc := range []struct {
		in   []string
		want int
	}{
		{sized(50_000, 10, 10, 70_000), 120_154},
		{sized(200_000, 1_000), 201_002},
	} {
		if got := len(claiHeadAndTail(tc.in, 96_000)); got != tc.want {
			t.Errorf("%d messages: %d bytes, want %d", len(tc.in), got, tc.want)
		}
	}
}

func TestClaiWindowMatchesClai(t *testing.T) {
	hist := func(n int) ClaiHistory {
		var h ClaiHistory
		for i := range n {
			h.Messages = append(h.Messages, corpus.Message{ID: fmt.Sprintf("m%d", i), Role: corpus.RoleUser})
		}
		return h
	}
	for _, tc := range []struct {
		n     int
		force bool
		want  int // window length; 0 = none
	}{
		{41, false, 25}, {39, false, 0}, {2, true, 2}, {10, true, 2}, {1, true, 0},
	} {
		if got := len(claiWindow(hist(tc.n), tc.force)); got != tc.want {
			t.Errorf("%d messages force=%v: window %d, want %d", tc.n, tc.force, got, tc.want)
		}
	}
	// A chained window starts with the previous summary and skips what it
	// compacted.
	h := hist(30)
	h.Messages = append(h.Messages[:10], append([]corpus.Message{{ID: "S1", Role: corpus.RoleSystem, Summary: true}}, h.Messages[10:]...)...)
	h.Compactions = []ClaiCompaction{{Status: "completed", SummaryID: "S1", SourceTo: h.Messages[7].ID}}
	w := claiWindow(h, true)
	if w[0].ID != "S1" || len(w) != 1+(31-9)-16 {
		t.Errorf("chained window starts %s, %d messages", w[0].ID, len(w))
	}
}

func TestClaiLegacyDigestMatchesClai(t *testing.T) {
	text := func(id string, role corpus.Role, s string) corpus.Message {
		return corpus.Message{ID: id, Role: role, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: s}}}
	}
	hello := claiLegacyDigest([]corpus.Message{text("m1", corpus.RoleUser, "hello")})
	if len(hello) != 470+2+554 {
		t.Errorf("hello digest: %d bytes, want %d", len(hello), 470+2+554)
	}
	result := corpus.Message{ID: "m2", Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult,
		ToolCallID: "t1", Payload: claiObject(nil, "stdout", strings.Repeat("X", 50_000))}}}
	d := claiLegacyDigest([]corpus.Message{text("m1", corpus.RoleUser, "Original goal: fix the routing bug"), result})
	if len(d) != 1504 || !strings.Contains(d, "Original goal") || !strings.Contains(d, "[truncated]") {
		t.Errorf("truncating digest: %d bytes, want 1504", len(d))
	}
	if clai.ClassifySummary(d) != corpus.DigestDeterministic {
		t.Errorf("classified %q", clai.ClassifySummary(d))
	}
}

func TestClaiStringIsSerde(t *testing.T) {
	in := "q\" b\\ n\n t\t r\r \b \f \x01 \x1f del\x7f <>& \u2028 é 🚀"
	want := `"q\" b\\ n\n t\t r\r \b \f \u0001 \u001f del` + "\x7f" + ` <>& ` + "\u2028" + ` é 🚀"`
	if got := string(claiString(nil, in)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := string(claiObject(nil, "a", 1, "b", true, "c", "x", "d", []byte(`[1]`))); got != `{"a":1,"b":true,"c":"x","d":[1]}` {
		t.Errorf("object %s", got)
	}
}

func TestWriteClaiSchema(t *testing.T) {
	for _, protocol := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "data.sqlite")
		p := ClaiProfile{Sessions: 1, Turns: 2, ToolCalls: 1, UserBytes: 50, AssistantBytes: 50, ToolBytes: 50,
			Provider: "codex", ProtocolID: protocol}
		if err := WriteClai(path, p, 1); err != nil {
			t.Fatal(err)
		}
		if err := WriteClai(path, p, 1); err == nil {
			t.Error("WriteClai overwrote an existing database")
		}
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var mode string
		if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("journal_mode %q %v, want wal", mode, err)
		}
		col := "provider_id"
		if protocol {
			col = "protocol_id"
		}
		for _, table := range []string{"assistant_runs", "assistant_compactions"} {
			var n int
			if err := db.QueryRow("SELECT count(*) FROM pragma_table_info(?) WHERE name = ?", table, col).Scan(&n); err != nil || n != 1 {
				t.Errorf("%s has no %s column", table, col)
			}
		}
		var ddl string
		db.QueryRow("SELECT sql FROM sqlite_master WHERE name = 'assistant_compactions'").Scan(&ddl)
		if !strings.Contains(ddl, `CHECK (trigger IN ('"manual"', '"automatic"', '"error_recovery"'))`) {
			t.Errorf("compactions DDL lacks clai's CHECK: %s", ddl)
		}
		uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
		rows, err := db.Query("SELECT id, role, created_at FROM assistant_messages ORDER BY rowid")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, role string
			var at int64
			rows.Scan(&id, &role, &at)
			if !uuid.MatchString(id) || (role != `"user"` && role != `"assistant"`) || at < 1_700_000_000_000 {
				t.Errorf("row %s %s %d", id, role, at)
			}
		}
		rows.Close()
	}
}

func TestWriteDemoClai(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, dir := range dirs {
		paths, err := writeDemoClai(dir)
		if err != nil || len(paths) != 1 || paths[0] != dir {
			t.Fatalf("writeDemoClai: %v %v", paths, err)
		}
	}
	a, _ := os.ReadFile(filepath.Join(dirs[0], ".clai", "data.sqlite"))
	b, _ := os.ReadFile(filepath.Join(dirs[1], ".clai", "data.sqlite"))
	if len(a) == 0 || string(a) != string(b) {
		t.Error("the clai demo differs between runs")
	}
	ss, err := load.Load([]string{dirs[0]}, corpus.Options{Strict: true})
	if err != nil || len(ss) != 2 {
		t.Fatalf("%d sessions, %v", len(ss), err)
	}
	var rotations, models int
	for _, s := range ss {
		for i, c := range s.Recorded.Compactions {
			switch c.Kind {
			case corpus.DigestDeterministic:
				rotations++
				if c.Strategy != "session_rotation_summary" || c.P1 != i+1 || c.P2 != i+1 || c.Chained != (i > 0) {
					t.Errorf("rotation %d: %s p1 %d p2 %d chained %v", i, c.Strategy, c.P1, c.P2, c.Chained)
				}
				// The stored digest is exactly what clai computes for its window.
				h := ClaiHistory{Messages: s.Messages[:c.AtMessage]}
				for _, prev := range s.Recorded.Compactions[:i] {
					h.Compactions = append(h.Compactions, ClaiCompaction{Status: prev.Status, SummaryID: prev.SummaryID, SourceTo: prev.SourceTo})
				}
				w := claiWindow(h, true)
				if c.SourceFrom != w[0].ID || c.SourceTo != w[len(w)-1].ID || c.InputMessages != len(w) || c.Summary != claiLegacyDigest(w) {
					t.Errorf("rotation %d does not re-derive", i)
				}
				// And the policy's legacy digest, written independently
				// from the same spec, agrees byte for byte.
				if d, _ := policy.ClaiDigestText(w, policy.ClaiDefaults(policy.ClaiLegacy).Digest()); d != c.Summary {
					t.Errorf("rotation %d: policy's legacy digest (%d bytes) differs from synth's (%d bytes)", i, len(d), len(c.Summary))
				}
			case corpus.DigestModel:
				models++
			}
		}
	}
	last := ss[0].Recorded.Compactions
	if ss[0].Meta.Provider != "claude-code" {
		last = ss[1].Recorded.Compactions
	}
	if rotations != 5 || models != 2 || len(last[len(last)-1].Summary) <= 96_000 {
		t.Errorf("%d rotations, %d model summaries, last digest %d bytes", rotations, models, len(last[len(last)-1].Summary))
	}
}
