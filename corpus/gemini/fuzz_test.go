package gemini

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// FuzzRead checks the reader against encoding/json on any input: it never
// panics and returns one session; every warning names the file and a line
// that exists; a JSONL line is reported as invalid JSON exactly when
// encoding/json rejects it (the reader validates with jsonscan.Valid and
// decodes with the scanner or encoding/json, so a line it takes as valid
// must be valid, and a valid line whose fields have other types is
// reported as such, not as invalid JSON); and there are
// never more user messages than lines that say "type":"user". The seeds
// (the testdata fixtures, written from the documented format, and edge
// cases) run as part of go test.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"session-2026-01-05T09-00-0a1b2c3d.jsonl", "session-2025-09-01T10-00-11111111.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`{"sessionId":"s","projectHash":"p"}` + "\n" + `{"id":"u","timestamp":"t","type":"user","content":"x"}` + "\n",
		`{"id":"u","timestamp":5,"type":"user","content":"x"}` + "\n",
		`{"id":"g","type":"gemini","content":[{"text":"a","thought":true},{"functionCall":{"id":"c","name":"n","args":{}}}],"toolCalls":[{"id":"c","name":"n","args":{},"result":{"functionResponse":{"response":7}},"status":"success"}]}` + "\n",
		`{"$rewindTo":"u"}` + "\n" + `{"$set":{"summary":"x"}}` + "\n" + `{"id":"u","type":"info","content":""}`,
		"{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": [\n    {\"id\": \"u\", \"type\": \"user\", \"content\": \"x\"},\n",
		"{\"sessionId\":\"s\",\"projectHash\":\"p\",\"messages\":[{\"id\":\"u\",\"type\":\"user\",\"content\":[\"a\",{\"text\":\"b\"}]}]}",
		"\xef\xbb\xbf\n\n{\"id\":\"u\"",
		"", "\n", "[1]", "{", "null\n{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const p = "fuzz.jsonl"
		ss, err := Read(p, bytes.NewReader(in), corpus.Options{})
		if err != nil {
			// Only a legacy document that does not start as an object fails
			// whole; a JSONL file never does.
			if !isLegacyStart(firstNonBlank(in)) {
				t.Fatalf("JSONL input failed whole: %v", err)
			}
			return
		}
		if len(ss) != 1 {
			t.Fatalf("%d sessions", len(ss))
		}
		s := ss[0]
		lines := bytes.Count(in, []byte{'\n'}) + 1
		for _, w := range s.Warnings {
			if w.File != p || w.Line < 0 || w.Line > lines || w.Message == "" {
				t.Fatalf("bad warning %+v (input has %d lines)", w, lines)
			}
		}
		users := 0
		for _, m := range s.Messages {
			if m.Role == corpus.RoleUser {
				users++
			}
		}
		if max := bytes.Count(in, []byte(`"user"`)); users > max {
			t.Fatalf("%d user messages from %d occurrences of \"user\"", users, max)
		}
		if isLegacyStart(firstNonBlank(in)) {
			return
		}
		// JSONL: the reader's verdict on each line agrees with encoding/json.
		bad := map[int]bool{}
		for _, w := range s.Warnings {
			if strings.HasPrefix(w.Message, "invalid JSON") || strings.HasPrefix(w.Message, "expected a JSON object") ||
				strings.HasPrefix(w.Message, "the chat file is cut mid-line") {
				bad[w.Line] = true
			}
		}
		for i, line := range bytes.Split(in, []byte{'\n'}) {
			if i == 0 {
				line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			}
			line = bytes.TrimRight(line, "\r")
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var v any
			valid := json.Unmarshal(line, &v) == nil
			_, isObject := v.(map[string]any)
			if want := !(valid && isObject); bad[i+1] != want {
				t.Fatalf("line %d %q: reader says bad=%v, encoding/json says valid object=%v", i+1, line, bad[i+1], valid && isObject)
			}
		}
	})
}

// firstNonBlank is the first non-blank line of in, as Read sees it.
func firstNonBlank(in []byte) []byte {
	in = bytes.TrimPrefix(in, []byte("\xef\xbb\xbf"))
	for _, l := range bytes.Split(in, []byte{'\n'}) {
		if len(bytes.TrimSpace(l)) > 0 {
			return bytes.TrimRight(l, "\r")
		}
	}
	return nil
}
