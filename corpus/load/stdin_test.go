package load_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

// A log piped to "-" loads exactly as the same file given by path (only the
// file name differs): Claude Code and Codex logs are recognised by content,
// not read as smith transcripts.
func TestStdinIsSniffedLikeAFile(t *testing.T) {
	for _, p := range []string{
		filepath.Join("..", "claudecode", "testdata", "compact_2x.jsonl"),
		filepath.Join("..", "claudecode", "testdata", "sidechain_result.jsonl"),
		filepath.Join("..", "codex", "testdata", "rollout-2026-01-05T09-00-00-019c0000-aaaa-7bbb-8ccc-000000000001.jsonl"),
		filepath.Join("..", "smith", "testdata", "spec-lines.jsonl"),
	} {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			byPath, err := load.Load([]string{p}, corpus.Options{})
			if err != nil {
				t.Fatal(err)
			}
			byStdin, err := load.Load([]string{"-"}, corpus.Options{Stdin: bytes.NewReader(data)})
			if err != nil {
				t.Fatalf("stdin: %v", err)
			}
			if len(byStdin) != len(byPath) {
				t.Fatalf("stdin gave %d sessions, the path %d", len(byStdin), len(byPath))
			}
			for i := range byPath {
				want, got := *byPath[i], *byStdin[i]
				if got.Path != "-" {
					t.Errorf("session %d: path %q, want -", i, got.Path)
				}
				for j := range got.Warnings {
					if got.Warnings[j].File != "-" {
						t.Errorf("warning names %q, want -", got.Warnings[j].File)
					}
					got.Warnings[j].File = p
				}
				got.Path = p
				if want.Format == corpus.FormatSmithTranscript {
					got.ID = want.ID // a smith transcript records no id: the file name, or "stdin"
				}
				if !reflect.DeepEqual(want, got) {
					t.Errorf("session %d differs from the same file loaded by path:\n got %+v\nwant %+v", i, got, want)
				}
			}
			if byPath[0].Format != corpus.FormatSmithTranscript && len(byPath[0].Messages) == 0 {
				t.Errorf("no messages: the fixture should exercise the reader")
			}
		})
	}
}

// Bad standard input fails as a bad file does, with no session.
func TestStdinBadInput(t *testing.T) {
	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(i * 7)
	}
	tests := []struct {
		name, in, want string
	}{
		{"binary", string(bin), "-: binary content (NUL bytes or invalid UTF-8 near the start); expected a JSONL transcript, a session.json or a clai data.sqlite"},
		{"gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\xaaV*\xca\xcfIU", "-: gzip-compressed; calib reads logs uncompressed: decompress it first (gunzip -k FILE, or gunzip -c FILE | calib ... -)"},
		{"empty", " \n\n", "-: standard input is empty; expected a smith transcript or session.json, or a Claude Code, Codex or Gemini CLI log"},
		{"text", "just notes\n", "-: unrecognised content on standard input; expected a smith transcript or session.json, a Claude Code or Codex session log or a Gemini CLI chat"},
		// Judged from its first 8 KiB, which are blank: no session starts so.
		{"blank head", strings.Repeat(" ", 9000) + `{"role":"user","content":[{"type":"text","text":"hi"}]}` + "\n", "-: unrecognised content on standard input; expected a smith transcript or session.json, a Claude Code or Codex session log or a Gemini CLI chat"},
		{"sqlite", "SQLite format 3\x00" + strings.Repeat("\x00", 100), "-: standard input holds a SQLite database (a clai data.sqlite or an opencode.db), which is read only from a path; pass its path instead of -"},
		{"index.json", `[{"id":"s","first_prompt":"hi","message_count":2}]`, "-: standard input holds a smith index.json (it lists the session folders beside it), which is read only from a path; pass its path instead of -"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, err := load.Load([]string{"-"}, corpus.Options{Stdin: strings.NewReader(tt.in)})
			if len(ss) != 0 {
				t.Errorf("%d sessions, want none", len(ss))
			}
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// endless is standard input that never ends (/dev/zero, a pipe left
// open): it hands out fill bytes and fails once more than limit were read.
type endless struct {
	fill        byte
	read, limit int
}

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.limit {
		return 0, errors.New("read past the limit: the input was read on after its head was judged")
	}
	n := min(len(p), e.limit-e.read)
	for i := range p[:n] {
		p[i] = e.fill
	}
	e.read += n
	return n, nil
}

// Input that cannot be a session is refused from its head, without
// reading on: `calib replay - < /dev/zero` read until memory ran out.
func TestStdinJudgedFromItsHead(t *testing.T) {
	for _, tt := range []struct {
		name string
		fill byte
		want string
	}{
		{"zeros", 0, "-: binary content (NUL bytes or invalid UTF-8 near the start); expected a JSONL transcript, a session.json or a clai data.sqlite"},
		{"text", 'x', "-: unrecognised content on standard input; expected a smith transcript or session.json, a Claude Code or Codex session log or a Gemini CLI chat"},
	} {
		in := &endless{fill: tt.fill, limit: 64 << 10}
		_, err := load.Load([]string{"-"}, corpus.Options{Stdin: in})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
		if in.read > 8<<10 {
			t.Errorf("%s: read %d bytes before refusing, want at most the 8 KiB head", tt.name, in.read)
		}
	}
}

// A session.json piped in keeps its recorded id.
func TestStdinSessionFile(t *testing.T) {
	in := `{"id":"session-1786201234-a1b2c3","created_at":"2026-08-08T15:06:02+02:00","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`
	ss, err := load.Load([]string{"-"}, corpus.Options{Stdin: strings.NewReader(in)})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 || ss[0].ID != "session-1786201234-a1b2c3" || ss[0].Format != corpus.FormatSmithSession || len(ss[0].Messages) != 1 {
		t.Fatalf("got %+v", ss)
	}
}
