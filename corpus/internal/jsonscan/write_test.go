package jsonscan

import (
	"encoding/json"
	"testing"
)

func TestAppendJSONString(t *testing.T) {
	tests := []struct {
		in             string
		serde, crystal string
	}{
		{"plain", `"plain"`, `"plain"`},
		{"q\"b\\", `"q\"b\\"`, `"q\"b\\"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`, `"\b\f\n\r\t"`},
		{"\x00\x1f", `"\u0000\u001f"`, `"\u0000\u001f"`},
		{"del\x7f", "\"del\x7f\"", `"del\u007f"`},
		{"<>&\u2028é", "\"<>&\u2028é\"", "\"<>&\u2028é\""},
	}
	for _, tt := range tests {
		if got := string(AppendString(nil, tt.in, Serde)); got != tt.serde {
			t.Errorf("serde %q = %s, want %s", tt.in, got, tt.serde)
		}
		if got := string(AppendString(nil, tt.in, Crystal)); got != tt.crystal {
			t.Errorf("crystal %q = %s, want %s", tt.in, got, tt.crystal)
		}
		var back string
		if err := json.Unmarshal([]byte(tt.crystal), &back); err != nil || back != tt.in {
			t.Errorf("%s does not decode back to %q: %v", tt.crystal, tt.in, err)
		}
	}
}
