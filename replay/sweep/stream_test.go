package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeStream writes rows to a --out file the way a sweep does.
func writeStream(t *testing.T, path string, h Header, v View, rows []Row, complete bool) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStream(f, h, v)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		s.Add(i, r)
	}
	if err := s.Close(complete); err != nil {
		t.Fatal(err)
	}
}

// The --out stream reads back as the report it was written from: header,
// view, every row, complete; and builds the same sets.
func TestStreamRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.jsonl")
	h, v := header("1/1"), View{Sort: "tokens_sent"}
	rows := sweepRows(1, 1)
	writeStream(t, path, h, v, rows, true)
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Complete || !reflect.DeepEqual(got.Header, h) || !reflect.DeepEqual(got.View, v) || !reflect.DeepEqual(got.Rows, rows) {
		t.Fatalf("read back\n got %+v\nwant header %+v view %+v rows %+v", got, h, v, rows)
	}
	want, err := Build(h, v, true, sweepRows(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	back, err := Build(got.Header, got.View, got.Complete, got.Rows)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, want) {
		t.Fatalf("built from the stream\n got %+v\nwant %+v", back, want)
	}
}

// A stream is complete only with a complete trailer that counts every row:
// an interrupted sweep, a file cut short, or a trailer whose count differs.
func TestStreamIncomplete(t *testing.T) {
	dir := t.TempDir()
	rows := sweepRows(1, 1)
	interrupted := filepath.Join(dir, "interrupted.jsonl")
	writeStream(t, interrupted, header("1/1"), View{}, rows, false)
	full := filepath.Join(dir, "full.jsonl")
	writeStream(t, full, header("1/1"), View{}, rows, true)
	data, _ := os.ReadFile(full)
	lines := strings.SplitAfter(string(data), "\n")
	cut := filepath.Join(dir, "cut.jsonl")
	os.WriteFile(cut, []byte(strings.Join(lines[:len(lines)-2], "")), 0o644) // no trailer
	lost := filepath.Join(dir, "lost.jsonl")
	os.WriteFile(lost, []byte(lines[0]+lines[1]+lines[len(lines)-2]), 0o644) // trailer counts rows not there
	for _, p := range []string{interrupted, cut, lost} {
		r, err := ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if r.Complete {
			t.Errorf("%s: read as complete", filepath.Base(p))
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(lines[0]+lines[1]+"{\"set\": 1, \"par\n"), 0o644)
	if _, err := ReadFile(bad); err == nil || !strings.Contains(err.Error(), "bad.jsonl:3: expected a sweep row") {
		t.Errorf("damaged line: %v", err)
	}
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct {
	n      int
	closed bool
}

var errDiskFull = errors.New("no space left on device")

func (w *failAfter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, errDiskFull
	}
	w.n -= len(p)
	return len(p), nil
}

func (w *failAfter) Close() error { w.closed = true; return nil }

// A write that fails mid-sweep is not dropped: Close reports it.
func TestStreamWriteError(t *testing.T) {
	w := &failAfter{n: 1000}
	s, err := NewStream(w, header("1/1"), View{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range sweepRows(1, 1) {
		s.Add(i, r)
	}
	if err := s.Close(true); !errors.Is(err, errDiskFull) || !w.closed {
		t.Fatalf("Close = %v (closed %v), want the write error", err, w.closed)
	}
	if _, err := NewStream(&failAfter{}, header("1/1"), View{}); !errors.Is(err, errDiskFull) {
		t.Fatalf("header write error: %v", err)
	}
}

// A --format json report that does not parse is named with the line where
// it breaks when it is a JSON object cut short or damaged (a shard killed
// mid-write), and as not a report otherwise.
func TestReadFileDamagedReport(t *testing.T) {
	dir := t.TempDir()
	report := "{\n  \"policy\": \"smith-staged\",\n  \"shard\": \"1/2\",\n  \"sets\": [\n"
	for _, c := range []struct{ name, data, want string }{
		{"cut.json", report, "cut.json:5: not complete JSON (unexpected end of JSON input); expected the whole output of calib sweep --format json: run the shard again"},
		{"damaged.json", report + "  {]\n", "damaged.json:5: not complete JSON ("},
		{"empty.json", "\n", "empty.json: empty file; expected the output of calib sweep --format json or --out"},
		// Judged by their first bytes, before the file is read whole.
		{"nul.json", "\x00\x00", `nul.json: not a sweep report (it starts "\x00\x00"); expected`},
		{"other.json", `{"name": "x"}`, `other.json: not a sweep report (it starts "{\"name\": \"x\"}"); expected`},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

// rowLines reads the rows of a --out file as "set/session", in file order.
func rowLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r Row
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Session != "" {
			got = append(got, fmt.Sprintf("%d/%s", r.Set, r.Session))
		}
	}
	return got
}

// Rows finished out of job order are written in job order, so a sweep's
// --out file does not depend on --jobs or on when each session loaded; an
// interrupted sweep's waiting rows are written at Close, in order, with the
// gaps of the rows that never finished.
func TestStreamWritesJobOrder(t *testing.T) {
	rows := sweepRows(1, 1) // 12 rows: set 0..5 × sessions b, a
	job := func(idx ...int) []string {
		var s []string
		for _, i := range idx {
			s = append(s, fmt.Sprintf("%d/%s", rows[i].Set, rows[i].Session))
		}
		return s
	}
	for _, tc := range []struct {
		name     string
		finish   []int // job indexes in the order they finish
		complete bool
		want     []string
	}{
		{"in order", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, true, job(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)},
		{"loading order", []int{1, 3, 5, 0, 2, 4, 7, 6, 9, 8, 11, 10}, true, job(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)},
		{"reversed", []int{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, true, job(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)},
		{"interrupted with gaps", []int{5, 0, 3, 1, 9}, false, job(0, 1, 3, 5, 9)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rows.jsonl")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewStream(f, header("1/1"), View{})
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range tc.finish {
				s.Add(i, rows[i])
			}
			if err := s.Close(tc.complete); err != nil {
				t.Fatal(err)
			}
			if got := rowLines(t, path); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("rows %v, want %v", got, tc.want)
			}
			rep, err := ReadFile(path)
			if err != nil {
				t.Fatalf("the file does not read back: %v", err)
			}
			if rep.Complete != tc.complete {
				t.Errorf("complete %v, want %v", rep.Complete, tc.complete)
			}
		})
	}
}
