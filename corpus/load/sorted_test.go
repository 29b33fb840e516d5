package load_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// sorted writes each line of src to dst with its keys sorted at every
// depth (jq -S, json.dumps(sort_keys=True): how redaction scripts write),
// and gives the first record a 12 KB field "aaa" that sorts before every
// other key, so the keys that tell the format apart lie beyond the 8 KiB
// the format is first judged by. Numbers and strings keep their text.
func sorted(t *testing.T, src, dst string) {
	rewriteLines(t, src, dst, func(out *bytes.Buffer, i int, b []byte) {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v map[string]any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			v["aaa"] = strings.Repeat("x", 12<<10)
		}
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil { // Encode sorts map keys and ends the line
			t.Fatal(err)
		}
	})
}

func TestSortedLogsLoadTheSame(t *testing.T) { realLogsLoadTheSame(t, sorted) }
