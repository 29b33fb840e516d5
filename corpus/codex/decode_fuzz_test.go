package codex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeLine checks the hand-written decoder against encoding/json:
// on every line encoding/json accepts that is valid UTF-8 (calib rejects
// invalid UTF-8 where encoding/json replaces it: jsonscan's one string
// rule), the decoder accepts it too and reads the same strings (exact
// keys: encoding/json's case-insensitive field matching is not what
// Codex's serde does, so the reference decodes into maps). Any other line
// must fail to decode or at least never panic.
func FuzzDecodeLine(f *testing.F) {
	for _, name := range []string{currentFixtureName, "rollout-2026-01-05T09-00-00-019c0000-aaaa-7bbb-8ccc-000000000001.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, ln := range strings.Split(string(b), "\n") {
			f.Add([]byte(ln))
		}
	}
	f.Add([]byte(`{"type":"response_item","payload":{"type":"message","TYPE":"x","role":"us\u0065r","content":[{"type":"input_text","text":"a\ud83d\ude00\"b"}]}}`))
	f.Add([]byte(`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":5,"total_tokens":1e3}}}}`))
	f.Add([]byte(`{"timestamp":1770717601,"type":"event_msg","payload":{}}`))
	f.Add([]byte(`{"timestamp": {"a": [1, 2]} ,"type":"event_msg"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var ln rolloutLine
		err := decodeLine(b, &ln)
		var ref map[string]json.RawMessage
		if json.Unmarshal(b, &ref) != nil || ref == nil || !utf8.Valid(b) { // null decodes into a nil map
			if err == nil && ln.Payload != nil {
				var p payload
				_ = decodePayload(ln.Payload, &p) // must not panic
			}
			return
		}
		if err != nil {
			t.Fatalf("encoding/json accepts %q, the decoder fails: %v", b, err)
		}
		if got, want := ln.Type, refString(ref["type"]); got != want {
			t.Fatalf("type %q, encoding/json %q", got, want)
		}
		// A timestamp that is not a string is kept as its JSON text (the
		// timestamps' tally counts it as malformed).
		wantTS := refString(ref["timestamp"])
		if raw := ref["timestamp"]; len(raw) > 0 && raw[0] != '"' && string(raw) != "null" {
			wantTS = string(raw)
		}
		if got, want := ln.Timestamp, wantTS; got != want {
			t.Fatalf("timestamp %q, encoding/json %q", got, want)
		}
		var refP map[string]json.RawMessage
		if json.Unmarshal(ref["payload"], &refP) != nil || refP == nil {
			return
		}
		var p payload
		if err := decodePayload(ln.Payload, &p); err != nil {
			t.Fatalf("payload %q: decoder fails: %v", ln.Payload, err)
		}
		for key, got := range map[string]string{"type": p.Type, "role": p.Role, "id": p.ID, "name": p.Name, "call_id": p.CallID,
			"arguments": p.Arguments, "input": p.Input, "message": p.Message, "encrypted_content": p.Encrypted,
			"cwd": p.Cwd, "model": p.Model, "cli_version": p.Version, "reason": p.Reason} {
			if want := refString(refP[key]); got != want {
				t.Fatalf("payload %s = %q, encoding/json %q", key, got, want)
			}
		}
		var refParts []map[string]json.RawMessage
		if json.Unmarshal(refP["content"], &refParts) == nil && refParts != nil {
			ps, err := parts(p.Content)
			if err != nil || len(ps) != len(refParts) {
				t.Fatalf("content parts %+v (%v), encoding/json %+v", ps, err, refParts)
			}
			for i := range ps {
				if ps[i].Text != refString(refParts[i]["text"]) || ps[i].Type != refString(refParts[i]["type"]) {
					t.Fatalf("part %d %+v, encoding/json %s", i, ps[i], refParts[i])
				}
			}
		}
		var refOut string
		if json.Unmarshal(refP["output"], &refOut) == nil && refP["output"] != nil {
			o, err := decodeOutput(p.Output)
			if err != nil || o.Text != refOut {
				t.Fatalf("output %q (%v), encoding/json %q", o.Text, err, refOut)
			}
		}
	})
}

// refString is a JSON value as a string the way the decoder reads it: a
// string decoded, anything else "".
func refString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

const currentFixtureName = "rollout-2026-02-10T10-00-00-019c0000-aaaa-7bbb-8ccc-000000000002.jsonl"
