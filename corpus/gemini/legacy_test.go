package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// TestLineCounter: the counter gives the line bytes.Count from the start
// gives, for offsets asked in order, repeated, backwards, past the end and
// before the start.
func TestLineCounter(t *testing.T) {
	doc := []byte("{\n  \"a\": 1,\n\n  \"b\": [\n    2\n  ]\n}")
	c := &lineCounter{doc: doc}
	for _, off := range []int64{0, 1, 2, 2, 11, 12, 13, 30, 5, 0, 33, 34, 100, 3, -1} {
		want := 1 + bytes.Count(doc[:max(0, min(int(off), len(doc)))], []byte{'\n'})
		if got := c.at(off); got != want {
			t.Errorf("at(%d) = %d, want %d", off, got, want)
		}
	}
}

// writeLegacy writes a pretty-printed legacy chat of n messages, one per
// line from line 5 on, with a bad element (a number) after every
// badEvery-th message (0: none), and returns the path and, per message id,
// the line it starts on.
func writeLegacy(tb testing.TB, dir string, n, badEvery int) (string, map[string]int) {
	tb.Helper()
	var b strings.Builder
	b.WriteString("{\n  \"sessionId\": \"s1\",\n  \"projectHash\": \"p1\",\n  \"messages\": [\n")
	lines := map[string]int{}
	line := 5
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		id := fmt.Sprintf("m%d", i)
		typ, text := "user", fmt.Sprintf("please look at item %d", i)
		if i%2 == 1 {
			typ, text = "gemini", fmt.Sprintf("item %d is fine", i)
		}
		fmt.Fprintf(&b, "    {\"id\": %q, \"timestamp\": \"2026-01-05T09:00:01.000Z\", \"type\": %q, \"content\": %q}", id, typ, text)
		lines[id] = line
		line++
		if badEvery > 0 && (i+1)%badEvery == 0 {
			b.WriteString(",\n    7")
			lines[fmt.Sprintf("bad%d", i)] = line
			line++
		}
	}
	b.WriteString("\n  ]\n}\n")
	p := filepath.Join(dir, "session-2025-09-01T10-00-22222222.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p, lines
}

// TestLegacyLinesLong: in a long legacy document, every message and every
// warning names the line it starts on, each counted from the one before.
func TestLegacyLinesLong(t *testing.T) {
	p, lines := writeLegacy(t, t.TempDir(), 600, 97)
	ss, err := Load(p, corpus.Options{})
	if err != nil || len(ss) != 1 {
		t.Fatalf("load: %v, %d sessions", err, len(ss))
	}
	s := ss[0]
	if len(s.Messages) != 600 {
		t.Fatalf("%d messages, want 600", len(s.Messages))
	}
	for i, m := range s.Messages {
		if want := lines[fmt.Sprintf("m%d", i)]; m.Line != want {
			t.Errorf("message %d at line %d, want %d", i, m.Line, want)
		}
	}
	var want []string
	for i := 96; i < 600; i += 97 {
		want = append(want, fmt.Sprintf("%d: message is not a message record with an id (expected {id, timestamp, type, content}); skipped", lines[fmt.Sprintf("bad%d", i)]))
	}
	var got []string
	for _, w := range s.Warnings {
		got = append(got, fmt.Sprintf("%d: %s", w.Line, w.Message))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n got %q\nwant %q", got, want)
	}
}

// BenchmarkLoadLegacy loads pretty-printed legacy chats of growing length
// (each message indented over several lines, as JSON.stringify(c, null, 2)
// writes it) and reports the time per message, which must stay flat.
func BenchmarkLoadLegacy(b *testing.B) {
	for _, n := range []int{5000, 10000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			type msg struct {
				ID        string `json:"id"`
				Timestamp string `json:"timestamp"`
				Type      string `json:"type"`
				Content   string `json:"content"`
			}
			doc := struct {
				SessionID   string `json:"sessionId"`
				ProjectHash string `json:"projectHash"`
				Messages    []msg  `json:"messages"`
			}{SessionID: "s1", ProjectHash: "p1"}
			for i := range n {
				doc.Messages = append(doc.Messages, msg{fmt.Sprintf("m%d", i), "2026-01-05T09:00:01.000Z",
					[]string{"user", "gemini"}[i%2], fmt.Sprintf("item %d ", i) + strings.Repeat("x", 200)})
			}
			data, err := json.MarshalIndent(doc, "", "  ")
			if err != nil {
				b.Fatal(err)
			}
			p := filepath.Join(b.TempDir(), "session-2025-09-01T10-00-33333333.json")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				ss, err := Load(p, corpus.Options{})
				if err != nil || len(ss) != 1 || len(ss[0].Messages) != n {
					b.Fatalf("load: %v", err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/message")
		})
	}
}
