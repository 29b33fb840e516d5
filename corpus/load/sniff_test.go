package load

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
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
		// Re-serialised with separators ", " and ": " (Python's json.dumps,
		// as a redaction script writes), or indented keys.
		{"codex, spaced", `{"timestamp": "2026-02-10T10:00:00.000Z", "type": "session_meta", "payload": {"id": "s"}}` + "\n", "codex"},
		{"claude code, spaced", `{"parentUuid": null, "isSidechain": false, "sessionId": "s", "type": "user", "message": {"role": "user", "content": "hi"}, "uuid": "u1"}` + "\n", "claude-code"},
		{"smith transcript, spaced", `{ "role" : "user", "content": [{"type": "text", "text": "hi"}]}` + "\n", "smith-transcript"},
		// Spaces inside a string stay: a value that reads like a key is
		// still a value.
		{"key-like text in a string", `{"text": "\"type\": \"session_meta\", \"payload\": 1"}` + "\n", ""},
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
		// Archived logs: gzip and zip written by the standard library,
		// zstd and xz as their documented magic numbers and binary bytes.
		{write("log.jsonl.gz", gzipped(t, `{"type":"user"}`+"\n")), "gzip-compressed; calib reads logs uncompressed: decompress it first (gunzip -k FILE, or gunzip -c FILE | calib ... -)"},
		{write("logs.zip", zipped(t, "log.jsonl", `{"type":"user"}`+"\n")), "zip-compressed; calib reads logs uncompressed: decompress it first (unzip FILE)"},
		{write("log.jsonl.zst", "\x28\xb5\x2f\xfd\x04\x00\x51\x00\x00\xff"), "zstd-compressed; calib reads logs uncompressed: decompress it first (zstd -d FILE, or zstd -dc FILE | calib ... -)"},
		{write("log.jsonl.xz", "\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46"), "xz-compressed; calib reads logs uncompressed: decompress it first (xz -dk FILE, or xz -dc FILE | calib ... -)"},
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

func gzipped(t *testing.T, text string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func zipped(t *testing.T, name, text string) string {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	f, err := w.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestCompactLine(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{"{ \"a\" :\t1 ,\r\"b\": [1, 2] }", `{"a":1,"b":[1,2]}`},
		{`{"t": "x y \" z\\", "u": 2}`, `{"t":"x y \" z\\","u":2}`},
		{`{"t": "cut by the win`, `{"t":"cut by the win`},
	} {
		if got := string(compactLine([]byte(tt.in))); got != tt.want {
			t.Errorf("compactLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
