package jsonscan

import (
	"encoding/json"
	"testing"
)

func TestUnindent(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"{\n  \"command\": \"go test\",\n  \"n\": [1, 2]\n}", `{"command":"go test","n":[1,2]}`},
		{`{"a": "kept as is: no newline"}`, `{"a": "kept as is: no newline"}`},
		{"{\n  \"s\": \"a\\nb  c\"\n}", `{"s":"a\nb  c"}`}, // an escaped newline and spaces in a string stay
		{"{\n  \"cut\": ", "{\n  \"cut\": "},               // not JSON: as it was
		{"", ""},
	} {
		if got := string(Unindent(json.RawMessage(tt.in))); got != tt.want {
			t.Errorf("Unindent(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
