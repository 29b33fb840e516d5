package replay

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
	_ "modernc.org/sqlite"
)

// claiLegacyCompact is clai HEAD's automatic compaction at a run start, as a
// synth.ClaiCompactFunc: the view from the latest compaction, the trigger,
// the window and the legacy digest, computed with calib's own
// implementation. edit changes the text of the compaction with that index
// before it is stored; statuses overrides a row's status.
func claiLegacyCompact(edit map[int]func(string) string, statuses map[int]string) synth.ClaiCompactFunc {
	return claiCompactAs(policy.ClaiLegacy, edit, statuses)
}

// claiCompactAs is claiLegacyCompact with the digests written by variant.
func claiCompactAs(variant string, edit map[int]func(string) string, statuses map[int]string) synth.ClaiCompactFunc {
	p := policy.ClaiDefaults(variant)
	return func(h synth.ClaiHistory) (synth.ClaiCompaction, bool) {
		var view []corpus.Message
		summary, to := "", ""
		for _, c := range h.Compactions {
			if c.Status == "" || c.Status == "completed" {
				summary, to = c.SummaryID, c.SourceTo
			}
		}
		view, _ = policy.ClaiHistoryView(h.Messages, summary, to)
		if !policy.ClaiShouldAutoCompact(view, p.MinMessages, p.TailMessages, p.TriggerChars) {
			return synth.ClaiCompaction{}, false
		}
		window, ok := policy.ClaiSelectCompactionWindow(view, false, p.MinMessages, p.TailMessages)
		if !ok {
			return synth.ClaiCompaction{}, false
		}
		text, _ := policy.ClaiDigestText(window, p.Digest())
		k := len(h.Compactions)
		if f := edit[k]; f != nil {
			text = f(text)
		}
		return synth.ClaiCompaction{SourceFrom: window[0].ID, SourceTo: window[len(window)-1].ID,
			InputMessages: len(window), Summary: text, Status: statuses[k]}, true
	}
}

func writeClaiDB(t *testing.T, p synth.ClaiProfile) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".clai", "data.sqlite")
	if err := synth.WriteClai(path, p, 7); err != nil {
		t.Fatal(err)
	}
	return path
}

func loadOne(t *testing.T, path string) *corpus.Session {
	t.Helper()
	ss, err := load.Load([]string{path}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 {
		t.Fatalf("%d sessions, want 1", len(ss))
	}
	return ss[0]
}

func claiProfile(provider string, f synth.ClaiCompactFunc) synth.ClaiProfile {
	return synth.ClaiProfile{Sessions: 1, Turns: 60, ToolCalls: 2, UserBytes: 400, AssistantBytes: 2500,
		ToolBytes: 4000, Provider: provider, Compact: f}
}

// The windows and chaining are rebuilt from the database's own rows, for
// the HTTP engine's shape (tool messages) and a CLI's (one assistant
// message per run). The stored digests here are written by policy's own
// digest function, so this checks window selection and chaining, not the
// digest bytes: TestRederiveClaiIndependentDigests checks those against
// digests rendered by an independent implementation.
func TestRederiveClaiMatchesStoredDigests(t *testing.T) {
	for _, provider := range []string{"anthropic", "claude-code"} {
		t.Run(provider, func(t *testing.T) {
			s := loadOne(t, writeClaiDB(t, claiProfile(provider, claiLegacyCompact(nil, nil))))
			if n := len(s.Recorded.Compactions); n < 3 {
				t.Fatalf("only %d compactions recorded; the fixture should chain at least 3", n)
			}
			rs := RederiveClai(s, policy.ClaiDefaults(policy.ClaiLegacy))
			for _, r := range rs {
				if r.Verdict != RederiveMatch || !r.WindowOK || r.FirstDiff != -1 || r.Text != s.Recorded.Compactions[r.Index].Summary {
					t.Errorf("compaction %d: verdict %s, window ok %v, first diff %d, notes %v", r.Index, r.Verdict, r.WindowOK, r.FirstDiff, r.Notes)
				}
				if len(r.Notes) != 0 {
					t.Errorf("compaction %d: unexpected notes %v", r.Index, r.Notes)
				}
			}
			// The chain nests one more copy of each preamble per rotation.
			last := s.Recorded.Compactions[len(rs)-1]
			t.Logf("%d messages, %d compactions re-derived, last digest %d bytes", len(s.Messages), len(rs), len(last.Summary))
			if last.P1 != len(rs) || last.P2 != len(rs) {
				t.Errorf("last stored digest nests P1=%d P2=%d, want %d", last.P1, last.P2, len(rs))
			}
			// The fixed variant would have written something else.
			for _, r := range RederiveClai(s, policy.ClaiDefaults(policy.ClaiFixed))[1:] {
				if r.Verdict != RederiveMismatch {
					t.Errorf("fixed re-derivation of compaction %d: %s, want mismatch", r.Index, r.Verdict)
				}
			}
		})
	}
}

// Rederive renders each stored digest in the variant that wrote it, told
// from the text (policy.ClaiWrittenVariant), whichever variant the run
// models: a database written as released (legacy) re-derives byte for byte
// under a fixed run, and one written with the fix under a legacy run.
func TestRederiveUsesTheWritingVariant(t *testing.T) {
	for _, wrote := range []string{policy.ClaiLegacy, policy.ClaiFixed} {
		s := loadOne(t, writeClaiDB(t, claiProfile("anthropic", claiCompactAs(wrote, nil, nil))))
		if len(s.Recorded.Compactions) < 3 {
			t.Fatalf("%s: only %d compactions recorded; the fixture should chain at least 3", wrote, len(s.Recorded.Compactions))
		}
		for _, run := range []string{policy.ClaiLegacy, policy.ClaiFixed} {
			p, err := policy.New(policy.ClaiRotationName, map[string]string{"variant": run})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range Rederive(s, p) {
				// The first digest has no earlier summary in its window:
				// both variants write it alike, and legacy is the default.
				want := wrote
				if r.Index == 0 {
					want = policy.ClaiLegacy
				}
				if r.Verdict != RederiveMatch || r.Variant != want {
					t.Errorf("written %s, run %s, compaction %d: verdict %s rendered as %q, want match as %s (notes %v)",
						wrote, run, r.Index, r.Verdict, r.Variant, want, r.Notes)
				}
			}
		}
	}
}

// One changed byte in the second stored digest is found at its offset; the
// third is still re-derived exactly, because it is rendered from the rows
// as stored (the changed digest is its message 0).
func TestRederiveClaiFindsOneChangedByte(t *testing.T) {
	const at = 1500
	edit := map[int]func(string) string{1: func(s string) string { return s[:at] + "#" + s[at+1:] }}
	s := loadOne(t, writeClaiDB(t, claiProfile("anthropic", claiLegacyCompact(edit, nil))))
	rs := RederiveClai(s, policy.ClaiDefaults(policy.ClaiLegacy))
	if len(rs) < 3 {
		t.Fatalf("%d compactions", len(rs))
	}
	want := []string{RederiveMatch, RederiveMismatch, RederiveMatch}
	for i, w := range want {
		if rs[i].Verdict != w {
			t.Errorf("compaction %d: %s, want %s (%v)", i, rs[i].Verdict, w, rs[i].Notes)
		}
	}
	if rs[1].FirstDiff != at || rs[1].DerivedBytes != rs[1].StoredBytes {
		t.Errorf("first difference at %d (derived %d, stored %d bytes), want %d", rs[1].FirstDiff, rs[1].DerivedBytes, rs[1].StoredBytes, at)
	}
}

// A hand-checked case: a manual compaction of three messages (window of 2
// with min_messages 2 and a 1-message tail) whose stored text has "E" for
// "e" at a byte counted by hand: P1 470 + 2 + P2 529 + 2, then
// "[user message u1]\n" 18, "hello" 5, "\n\n" 2, "[assistant message a1]\n"
// 23, "hi ther" 7 = 1 058.
func TestRederiveClaiHandChecked(t *testing.T) {
	ms := []corpus.Message{
		{ID: "u1", Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "hello"}}},
		{ID: "a1", Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "hi there"}}},
		{ID: "u2", Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "next"}}},
	}
	good := clai.SummaryPreamble + "\n\n" + clai.DigestPreamble + "\n\n[user message u1]\nhello\n\n[assistant message a1]\nhi there"
	bad := strings.Replace(good, "hi there", "hi therE", 1)
	for _, tc := range []struct {
		stored  string
		verdict string
		diff    int
	}{{good, RederiveMatch, -1}, {bad, RederiveMismatch, 1058}} {
		summary := corpus.Message{ID: "s1", Role: corpus.RoleSystem, Summary: true, Source: "clai-compaction",
			Blocks: []corpus.Block{{Kind: corpus.KindText, Text: tc.stored}}}
		s := &corpus.Session{ID: "hand", Messages: append(append([]corpus.Message(nil), ms...), summary)}
		s.Recorded.Compactions = []corpus.Compaction{{ID: "c1", Trigger: "manual", Status: "completed", SourceFrom: "u1",
			SourceTo: "a1", InputMessages: 2, SummaryID: "s1", Summary: tc.stored, Kind: clai.ClassifySummary(tc.stored)}}
		p := policy.ClaiDefaults(policy.ClaiLegacy)
		p.MinMessages, p.TailMessages = 2, 1
		r := RederiveClai(s, p)[0]
		if r.Verdict != tc.verdict || r.FirstDiff != tc.diff || !r.WindowOK {
			t.Errorf("verdict %s first diff %d window ok %v, want %s %d true (%v)", r.Verdict, r.FirstDiff, r.WindowOK, tc.verdict, tc.diff, r.Notes)
		}
	}
}

// Bad input: each broken row is reported, none panics, and the rows around
// it are still checked.
func TestRederiveClaiBadRows(t *testing.T) {
	t.Run("no compactions", func(t *testing.T) {
		s := loadOne(t, writeClaiDB(t, claiProfile("anthropic", nil)))
		if rs := RederiveClai(s, policy.ClaiDefaults(policy.ClaiLegacy)); len(rs) != 0 {
			t.Errorf("%d results for a session with no compactions", len(rs))
		}
	})
	t.Run("dangling running row", func(t *testing.T) {
		s := loadOne(t, writeClaiDB(t, claiProfile("anthropic", claiLegacyCompact(nil, map[int]string{1: "running"}))))
		rs := RederiveClai(s, policy.ClaiDefaults(policy.ClaiLegacy))
		if rs[1].Verdict != RederiveSkipped || !strings.Contains(strings.Join(rs[1].Notes, " "), "\"running\"") {
			t.Errorf("running row: %s %v", rs[1].Verdict, rs[1].Notes)
		}
		// The next compaction chains from the last completed one.
		if rs[0].Verdict != RederiveMatch || rs[2].Verdict != RederiveMatch {
			t.Errorf("rows around it: %s, %s (%v)", rs[0].Verdict, rs[2].Verdict, rs[2].Notes)
		}
	})
	t.Run("deleted summary", func(t *testing.T) {
		path := writeClaiDB(t, claiProfile("anthropic", claiLegacyCompact(nil, nil)))
		s0 := loadOne(t, path)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`DELETE FROM assistant_messages WHERE id = ?`, s0.Recorded.Compactions[1].SummaryID); err != nil {
			t.Fatal(err)
		}
		db.Close()
		s := loadOne(t, path)
		rs := RederiveClai(s, policy.ClaiDefaults(policy.ClaiLegacy))
		notes := strings.Join(rs[1].Notes, " ")
		if rs[1].Verdict != RederiveSkipped || !rs[1].WindowOK || !strings.Contains(notes, "deleted") {
			t.Errorf("deleted summary: %s window ok %v %v", rs[1].Verdict, rs[1].WindowOK, rs[1].Notes)
		}
		// Compaction 3's view needs summary 2: clai falls back to every
		// non-summary message, so its window no longer starts there.
		notes = strings.Join(rs[2].Notes, " ")
		if rs[2].Verdict != RederiveWindow || !strings.Contains(notes, "falls back") {
			t.Errorf("compaction after the deleted summary: %s %v", rs[2].Verdict, rs[2].Notes)
		}
	})
	t.Run("old-version and model summaries", func(t *testing.T) {
		edit := map[int]func(string) string{
			0: func(string) string { return synth.ClaiOldDigestText("[user message x]\nhello") },
			1: func(string) string { return synth.ClaiSummaryText("## Goal\nFix the routing bug.") },
		}
		s := loadOne(t, writeClaiDB(t, claiProfile("anthropic", claiLegacyCompact(edit, nil))))
		rs := RederiveClai(s, policy.ClaiDefaults(policy.ClaiLegacy))
		for i, want := range []string{"v26.6.10", "model-written"} {
			if rs[i].Verdict != RederiveSkipped || !rs[i].WindowOK || !strings.Contains(strings.Join(rs[i].Notes, " "), want) {
				t.Errorf("compaction %d: %s window ok %v %v", i, rs[i].Verdict, rs[i].WindowOK, rs[i].Notes)
			}
		}
		if rs[2].Verdict != RederiveMatch {
			t.Errorf("a digest chained from a model summary: %s %v", rs[2].Verdict, rs[2].Notes)
		}
	})
	t.Run("unlinked chain", func(t *testing.T) {
		s := loadOne(t, writeClaiDB(t, claiProfile("anthropic", claiLegacyCompact(nil, nil))))
		s.Recorded.Compactions[2].SourceFrom = s.Messages[0].ID
		rs := RederiveClai(s, policy.ClaiDefaults(policy.ClaiLegacy))
		if rs[2].Verdict != RederiveWindow || !strings.Contains(strings.Join(rs[2].Notes, " "), "does not link") {
			t.Errorf("unlinked: %s %v", rs[2].Verdict, rs[2].Notes)
		}
	})
}

// Rederive renders the stored digests with clai's constants, whatever the
// run sets: a run exploring another tail or budget still finds each digest
// clai wrote byte for byte (each was a mismatch blamed on the rows).
func TestRederiveIgnoresTheRunsSettings(t *testing.T) {
	s := loadOne(t, writeClaiDB(t, claiProfile("anthropic", claiLegacyCompact(nil, nil))))
	for _, set := range []map[string]string{{"tail_messages": "8"}, {"budget": "48000"}, {"head_share": "1/2", "tool_result_cap": "100"}} {
		p, err := policy.New(policy.ClaiRotationName, set)
		if err != nil {
			t.Fatal(err)
		}
		rs := Rederive(s, p)
		if len(rs) < 3 {
			t.Fatalf("%v: %d compactions re-derived", set, len(rs))
		}
		for _, r := range rs {
			if r.Verdict != RederiveMatch {
				t.Errorf("%v: compaction %d: %s (notes %v), want match", set, r.Index, r.Verdict, r.Notes)
			}
		}
	}
}
