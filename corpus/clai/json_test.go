package clai

import (
	"encoding/json"
	"reflect"
	"testing"
)

// claiJSONCases are content_json values: what serde_json writes, and what
// it never writes but a damaged or foreign database might hold.
var claiJSONCases = []string{
	`[]`,
	`[{"type":"text","text":"hello"}]`,
	`[{"type":"text","text":"line\nnext \"quoted\" \\ tab\t \u00e9 \ud83d\ude80 é 🚀 \u001b[0m"}]`,
	`[{"type":"thinking","text":"hmm","signature":"c2lnbmF0dXJl"},{"type":"text","text":""}]`,
	`[{"type":"tool_use","tool_call_id":"toolu_1","tool_name":"bash","arguments":{"command":"ls -la","timeout_ms":120000}}]`,
	`[{"type":"tool_use","tool_call_id":"t","tool_name":"x","arguments":null}]`,
	`[{"type":"tool_use","tool_call_id":"t","tool_name":"x"}]`,
	`[{"type":"tool_result","tool_call_id":"t","payload":{"content":"<a>&amp;\u2028","is_error":false,"n":[1,-2.5e3,0.1,true,null,{}]},"started_at":1,"completed_at":2}]`,
	`[{"type":"image","id":"img1","path":"/tmp/a.png","media_type":"image/png","filename":"a.png","width":10,"height":20}]`,
	`[{"type":"audio","id":"a1","seconds":3},{"type":"text","text":"hi"}]`,
	` [ { "text" : "spaced" , "type" : "text" } ] `,
	`[{"Type":"text","TEXT":"case-insensitive keys"}]`,
	`[{"type":"text","text":null}]`,
	`[{"type":"text","text":5}]`,
	`[{"type":"text","text":"lone surrogate \ud800 x"}]`,
	"[{\"type\":\"text\",\"text\":\"bad utf8 \xff\"}]",
	`[{"type":"text","text":"unterminated}]`,
	`[{"type":"text",`,
	`{"type":"text"}`,
	`null`,
	`[] trailing`,
	`[{"type":"tool_use","arguments":{"a":01}}]`,
	`[{"type":"tool_use","arguments":{"a":1.}}]`,
	`[{"type":"tool_use","arguments":[1,2,]}]`,
	`[{"type":"text","text":"ctl ` + "\x01" + `"}]`,
}

// claiStdParts is the reference: encoding/json.
func claiStdParts(s string) ([]claiPart, error) {
	var parts []claiPart
	err := json.Unmarshal([]byte(s), &parts)
	return parts, err
}

// checkClaiFast: whenever the fast decoder answers, it agrees with
// encoding/json exactly, raw argument and payload bytes included.
func checkClaiFast(t *testing.T, s string) {
	fast, ok := claiFastParts(s)
	want, err := claiStdParts(s)
	if !ok {
		return // encoding/json decides
	}
	if err != nil {
		t.Fatalf("%q: fast decoder accepted what encoding/json rejects (%v)", s, err)
	}
	for i := range fast {
		if fast[i].raw == "" || !json.Valid([]byte(fast[i].raw)) {
			t.Errorf("%q: part %d raw %q", s, i, fast[i].raw)
		}
		fast[i].raw = ""
	}
	if len(fast) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(fast, want) {
		t.Errorf("%q:\nfast %#v\n std %#v", s, fast, want)
	}
}

func TestClaiFastPartsAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range claiJSONCases {
		checkClaiFast(t, s)
	}
	// The fast path must actually serve what serde_json writes.
	for _, s := range claiJSONCases[:9] {
		if _, ok := claiFastParts(s); !ok {
			t.Errorf("fast decoder gave up on %q", s)
		}
	}
}

func TestClaiFastSource(t *testing.T) {
	for _, tc := range []struct {
		in     string
		source string
		ok     bool
	}{
		{`{"source":"claude-code"}`, "claude-code", true},
		{`{"compactionId":"c","createdAt":1,"source":"clai-compaction","sourceFromMessageId":null,"strategy":"local_summary"}`, "clai-compaction", true},
		{`{}`, "", true},
		{`{"Source":"x"}`, "", false},
		{`{"source":null}`, "", true}, // as encoding/json: null leaves it unset
		{`{"source":"a","source":"b"}`, "", false},
		{`{"source":5}`, "", false},
		{`{"source":"x"`, "", false},
		{`[]`, "", false},
	} {
		source, ok := claiFastSource(tc.in)
		if source != tc.source || ok != tc.ok {
			t.Errorf("%s: %q %v, want %q %v", tc.in, source, ok, tc.source, tc.ok)
		}
		var std struct {
			Source string `json:"source"`
		}
		if err := json.Unmarshal([]byte(tc.in), &std); ok && (err != nil || std.Source != source) {
			t.Errorf("%s: fast %q, encoding/json %q (%v)", tc.in, source, std.Source, err)
		}
	}
}

func FuzzClaiFastParts(f *testing.F) {
	for _, s := range claiJSONCases {
		f.Add(s)
	}
	f.Fuzz(checkClaiFast)
}
