package load_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/realcorpus"
)

// rewriteLines writes each line of src to dst as line writes it (line
// numbers from 0; line ends each with its newline).
func rewriteLines(t *testing.T, src, dst string, line func(out *bytes.Buffer, i int, b []byte)) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for i := 0; sc.Scan(); i++ {
		line(&out, i, sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// spaced writes each line of src to dst with a space after every ':' and
// ',' between tokens, as Python's json.dumps separates them by default (a
// redaction script re-serialises logs so before sharing them).
func spaced(t *testing.T, src, dst string) {
	rewriteLines(t, src, dst, func(out *bytes.Buffer, _ int, b []byte) {
		in, esc := false, false
		for _, c := range b {
			out.WriteByte(c)
			switch {
			case in && esc:
				esc = false
			case in && c == '\\':
				esc = true
			case c == '"':
				in = !in
			case !in && (c == ':' || c == ','):
				out.WriteByte(' ')
			}
		}
		out.WriteByte('\n')
	})
}

func TestSpacedLogsLoadTheSame(t *testing.T) { realLogsLoadTheSame(t, spaced) }

// realLogsLoadTheSame rewrites every real Claude Code and Codex log with
// rewrite and requires each to load as its original does, both strictly
// (a warning fails it).
func realLogsLoadTheSame(t *testing.T, rewrite func(t *testing.T, src, dst string)) {
	var files []string
	for _, glob := range []string{"claude-code/*.jsonl", "codex/*.jsonl"} {
		fs, _ := filepath.Glob(filepath.Join(realcorpus.Dir(t), glob))
		files = append(files, fs...)
	}
	if len(files) < 6 {
		t.Fatalf("%d real logs, want the 5 Claude Code logs and the Codex rollout", len(files))
	}
	dir := t.TempDir()
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			rw := filepath.Join(dir, filepath.Base(f))
			rewrite(t, f, rw)
			want, err := load.Load([]string{f}, corpus.Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			got, err := load.Load([]string{rw}, corpus.Options{Strict: true})
			if err != nil {
				t.Fatalf("rewritten: %v", err)
			}
			if a, b := shape(got), shape(want); !slices.Equal(a, b) {
				t.Errorf("rewritten log loads as %d lines of shape, want %d; first difference at %d", len(a), len(b), firstDiff(a, b))
			}
		})
	}
}

// shape is each session's format and id, then each message's role, line
// and blocks (kind, tool call, text), and the recorded events' counts.
func shape(ss []*corpus.Session) []string {
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%s %s %d messages, %d compactions, %d usage", s.Format, s.ID,
			len(s.Messages), len(s.Recorded.Compactions), len(s.Recorded.Usage)))
		for _, m := range s.Messages {
			for _, b := range m.Blocks {
				out = append(out, fmt.Sprintf("%s@%d %s %s %q", m.Role, m.Line, b.Kind, b.ToolCallID, b.Text))
			}
		}
		for _, u := range s.Recorded.Usage {
			out = append(out, fmt.Sprintf("usage@%d %d %d %d %d", u.AtMessage, u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens))
		}
	}
	return out
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
