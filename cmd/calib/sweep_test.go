package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/calib-dev/calib/replay/sweep"
	"github.com/calib-dev/calib/report"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a command
// and reads of a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.b.Bytes()...)
}

// An interrupted sweep stops promptly, writes a report of the rows it
// finished (marked incomplete) and exits 130. The test cancels once the
// --out stream shows that rows are being produced. Sets that did not
// finish every session never rank: with --sort and --top they follow the
// ranked sets, marked incomplete.
func TestSweepInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a long sweep")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream := filepath.Join(t.TempDir(), "rows.jsonl")
	var out, errOut syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"sweep", "--demo", "-p", "smith-staged", "--grid", "compact_at=0.6..0.9:0.001",
			"--format", "json", "--out", stream, "--jobs", "2", "--sort", "tokens_sent", "--top", "3"}, &IO{In: bytes.NewReader(nil), Out: &out, ErrOut: &errOut})
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		data, _ := os.ReadFile(stream)
		// The demo has 5 sessions and rows stream in job order (set by
		// set), so a header plus 11 rows means at least two whole sets
		// have finished: one must be ranked, whatever the timing after it.
		if bytes.Count(data, []byte("\n")) >= 12 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sweep produced no rows in 60s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	start := time.Now()
	var code int
	select {
	case code = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the sweep did not stop within 20s of Ctrl-C")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to stop", d)
	}
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, errOut.Bytes())
	}
	var rep struct {
		Complete *bool            `json:"complete"`
		Rows     []map[string]any `json:"rows"`
		Sessions []string         `json:"sessions"`
		Sets     []struct {
			Set        int                `json:"set"`
			Incomplete bool               `json:"incomplete"`
			Metrics    map[string]float64 `json:"metrics"`
		} `json:"sets"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("no report on stdout: %v\n%s", err, out.Bytes())
	}
	if rep.Complete == nil || *rep.Complete || len(rep.Rows) == 0 || len(rep.Rows) >= 301*5 {
		t.Fatalf("complete=%v with %d rows; want an incomplete report of the rows finished", rep.Complete, len(rep.Rows))
	}
	ranked, partial := 0, 0
	for _, s := range rep.Sets {
		full := int(s.Metrics["sessions"]) == len(rep.Sessions)
		switch {
		case full && s.Incomplete, !full && !s.Incomplete:
			t.Fatalf("set %d: %v of %d sessions, incomplete=%v", s.Set, s.Metrics["sessions"], len(rep.Sessions), s.Incomplete)
		case full && partial > 0:
			t.Fatalf("complete set %d listed after an incomplete one", s.Set)
		case full:
			ranked++
		default:
			partial++
		}
	}
	if ranked == 0 || ranked > 3 {
		t.Fatalf("%d ranked sets, want 1..3 (--top 3)", ranked)
	}
	data, _ := os.ReadFile(stream)
	if !bytes.Contains(data, []byte(`{"complete":false`)) {
		t.Fatalf("the --out stream does not end with complete=false")
	}
}

// TestSweepDocFormats: --format json writes the report itself and builds
// no table; every other format gets the tables it prints.
func TestSweepDocFormats(t *testing.T) {
	h := sweep.Header{Policy: "smith-staged", Sessions: []string{"a"}, Points: 1, Shard: "1/1"}
	rep, err := sweep.Build(h, sweep.View{}, true, []sweep.Row{{Session: "a", Metrics: map[string]float64{"tokens_sent": 1}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []report.Format{report.JSON, report.Text, report.Markdown, report.CSV, report.GitHub} {
		doc := sweepDoc(rep, true, nil, f)
		if doc.JSON != rep {
			t.Errorf("%s: the JSON is not the report", f)
		}
		if want := f != report.JSON; (len(doc.Tables) > 0) != want {
			t.Errorf("%s: %d tables built, want tables %v", f, len(doc.Tables), want)
		}
	}
}
