package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sync"
)

// Stream writes a sweep's rows as JSON lines as they finish (--out): a
// header line, one line per row in job order (Plan.Jobs), and a trailer
// saying whether the sweep completed and how many rows it wrote. A reader
// (ReadFile) counts the rows against the trailer, so a file cut short is
// never taken for a complete shard.
//
// Rows are written in job order, not in the order they finish, so that a
// sweep's file is the same bytes whatever --jobs and the timing (jobs start
// while the corpus loads, in an order the loading decides). A row that
// finishes before the rows ahead of it waits in pending; the Runner runs
// jobs in job order once the corpus is sealed, so few wait. An interrupted
// sweep's waiting rows are written at Close, in job order, gaps skipped.
//
// Add may be called from several workers. The first write error is kept:
// later rows are not written, and Close reports it.
type Stream struct {
	mu      sync.Mutex
	w       io.WriteCloser
	enc     *json.Encoder
	n       int
	err     error
	next    int         // the job index the file waits for
	pending map[int]Row // rows finished ahead of next, by job index
}

// NewStream writes the header line to w; nil w gives a Stream that writes
// nothing (no --out).
func NewStream(w io.WriteCloser, h Header, v View) (*Stream, error) {
	if w == nil {
		return &Stream{}, nil
	}
	s := &Stream{w: w, enc: json.NewEncoder(w)}
	s.enc.SetEscapeHTML(false)
	if err := s.enc.Encode(streamHead{Header: h, View: v}); err != nil {
		w.Close()
		return nil, err
	}
	return s, nil
}

type streamHead struct {
	Header Header `json:"header"`
	View   View   `json:"view"`
}

type streamTrailer struct {
	Complete *bool `json:"complete"`
	Rows     int   `json:"rows"`
}

// Add takes the finished row of job i (Job.Index) and writes it with
// every waiting row it lets through.
func (s *Stream) Add(i int, r Row) {
	if s.w == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if i != s.next {
		if s.pending == nil {
			s.pending = map[int]Row{}
		}
		s.pending[i] = r
		return
	}
	s.write(r)
	for s.next++; len(s.pending) > 0; s.next++ {
		r, ok := s.pending[s.next]
		if !ok {
			break
		}
		delete(s.pending, s.next)
		s.write(r)
	}
}

// write encodes one row unless a write has failed.
func (s *Stream) write(r Row) {
	if s.err != nil {
		return
	}
	if s.err = s.enc.Encode(r); s.err == nil {
		s.n++
	}
}

// Close writes the trailer and closes the writer. It returns the first
// error of any write or of the close itself (where a full disk shows).
func (s *Stream) Close(complete bool) error {
	if s.w == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, i := range slices.Sorted(maps.Keys(s.pending)) {
		s.write(s.pending[i])
	}
	s.pending = nil
	if s.err == nil {
		s.err = s.enc.Encode(streamTrailer{Complete: &complete, Rows: s.n})
	}
	if err := s.w.Close(); s.err == nil {
		s.err = err
	}
	return s.err
}

// ReadFile reads a sweep's --format json report or its --out JSON lines.
// Errors name the file (and the line, for JSON lines).
func ReadFile(path string) (*Report, error) {
	if err := looksLikeShard(path); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte(`{"header":`)) {
		return readStream(path, data)
	}
	var r Report
	err = json.Unmarshal(data, &r)
	var syn *json.SyntaxError
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return nil, fmt.Errorf("%s: empty file; expected the output of calib sweep --format json or --out", path)
	case errors.As(err, &syn) && bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")):
		// A report cut short (a sweep killed mid-write, a disk that
		// filled) is still recognisably one: say where it breaks and
		// what to do, rather than that it is something else.
		line := 1 + bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n"))
		return nil, fmt.Errorf("%s:%d: not complete JSON (%v); expected the whole output of calib sweep --format json: run the shard again", path, line, err)
	case err != nil || r.Policy == "" || r.Shard == "":
		return nil, fmt.Errorf("%s: not a sweep report; expected the output of calib sweep --format json or --out", path)
	}
	return &r, nil
}

// looksLikeShard refuses, from its first bytes, a file that cannot be a
// sweep's output: a report opens {"policy" (its header's first field, the
// JSON indented or not) and a stream {"header". Read whole first, a 300 MB
// file of NUL bytes or of another tool's JSON took 300 MB to be refused.
func looksLikeShard(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 256)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return err
	}
	b := bytes.TrimLeft(head[:n], " \t\r\n")
	if len(b) == 0 {
		return nil // empty, or only white space: ReadFile says so
	}
	if b[0] == '{' {
		b = bytes.TrimLeft(b[1:], " \t\r\n")
		if bytes.HasPrefix(b, []byte(`"policy"`)) || bytes.HasPrefix(b, []byte(`"header"`)) || len(b) == 0 {
			return nil
		}
	}
	return fmt.Errorf("%s: not a sweep report (it starts %q); expected the output of calib sweep --format json or --out", path, head[:min(n, 16)])
}

func readStream(path string, data []byte) (*Report, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<30)
	r := &Report{Rows: []Row{}}
	var trailer streamTrailer
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			var head streamHead
			if err := json.Unmarshal(b, &head); err != nil {
				return nil, fmt.Errorf("%s:1: expected the sweep header line: %v", path, err)
			}
			r.Header, r.View = head.Header, head.View
			continue
		}
		if bytes.HasPrefix(b, []byte(`{"complete":`)) {
			if err := json.Unmarshal(b, &trailer); err != nil {
				return nil, fmt.Errorf("%s:%d: expected the trailer {\"complete\": ..., \"rows\": N}: %v", path, line, err)
			}
			continue
		}
		var row Row
		if err := json.Unmarshal(b, &row); err != nil {
			return nil, fmt.Errorf("%s:%d: expected a sweep row (the file is damaged; run the shard again): %v", path, line, err)
		}
		r.Rows = append(r.Rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", path, line+1, err)
	}
	r.Complete = trailer.Complete != nil && *trailer.Complete && trailer.Rows == len(r.Rows)
	return r, nil
}
