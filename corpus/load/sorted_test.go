package load_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// sorted writes each line of src to dst with its keys sorted at every
// depth (jq -S, json.dumps(sort_keys=True): how redaction scripts write),
// and gives the first record a 12 KB field "aaa" that sorts before every
// other key, so the keys that tell the format apart lie beyond the 8 KiB
// the format is first judged by. Numbers and strings keep their text.
func sorted(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for first := true; sc.Scan(); first = false {
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		var v map[string]any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if first {
			v["aaa"] = strings.Repeat("x", 12<<10)
		}
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil { // Encode sorts map keys and ends the line
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(dst, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A real Claude Code or Codex log with its keys sorted and a first record
// longer than the 8 KiB sniff window loads as the same sessions: such a
// Claude Code log was refused as unrecognised, or read as a smith
// transcript by the role and content of its first message, and a Codex
// rollout refused. Tool inputs are re-encoded, so they are not compared.
func TestSortedLogsLoadTheSame(t *testing.T) { realLogsLoadTheSame(t, sorted) }
