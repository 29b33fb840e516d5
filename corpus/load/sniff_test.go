package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSniffBytes(t *testing.T) {
	smithLine := `{"role":"user","content":[{"type":"text","text":"hi"}],"synthetic":false,"id":"3f9a0c51d2e87b46"}`
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"sqlite", "SQLite format 3\x00rest", "clai"},
		{"smith transcript", smithLine + "\n", "smith-transcript"},
		{"smith transcript with BOM and blank lines", "\xef\xbb\xbf\n\n" + smithLine + "\n", "smith-transcript"},
		{"smith line, keys reordered", `{"content":[],"role":"assistant"}` + "\n", "smith-transcript"},
		{"smith line cut by the window", smithLine[:40], "smith-transcript"},
		{"damaged first line", "garbage\n" + smithLine + "\n", "smith-transcript"},
		{"truncated first line", `{"role":"assistant","content":[{"type":` + "\n" + smithLine + "\n", "smith-transcript"},
		{"only a damaged line", "garbage\n", ""},
		{"damaged line then a cut line", "garbage\n" + smithLine[:30], ""},
		{"session.json", `{"id":"session-1786201234-a1b2c3","created_at":"2026-08-08T15:06:02+02:00","messages":[]}`, "smith-session"},
		{"index.json", `[{"id":"s","created_at":"x","updated_at":"x","first_prompt":"hi","message_count":2}]`, "smith-index"},
		{"empty index.json", "[]", "smith-index"},
		{"other array", "[1,2,3]", ""},
		{"a session.json on a later line is not one", "garbage\n" + `{"id":"s","messages":[]}` + "\n", ""},
		{"plain text", "hello world\n", ""},
	}
	for _, tt := range tests {
		got := ""
		if f := sniffBytes([]byte(tt.in)); f != nil {
			got = f.name
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestSniffFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		path string
		want string // "" = no error
	}{
		{write("empty", ""), "empty file; expected at least one JSON line or a SQLite database"},
		{write("spaces", " \n\t\n"), "empty file; expected at least one JSON line or a SQLite database"},
		{write("nul", "abc\x00def"), "binary content (NUL bytes or invalid UTF-8 near the start); expected a JSONL transcript, a session.json or a clai data.sqlite"},
		{write("latin1", strings.Repeat("caf\xe9 ", 10)), "binary content (NUL bytes or invalid UTF-8 near the start); expected a JSONL transcript, a session.json or a clai data.sqlite"},
		{write("text", "just notes\n"), ""},
		{write("long", `{"role":"tool","content":[{"type":"tool_result","text":"`+strings.Repeat("é", sniffLen)+`"}]}`), ""},
	}
	for _, tt := range tests {
		_, err := sniffFile(tt.path)
		got := ""
		if err != nil {
			got = strings.TrimPrefix(err.Error(), tt.path+": ")
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", filepath.Base(tt.path), got, tt.want)
		}
	}
}
