package opencode

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSniffSessionFile: a storage session file is recognised by its id
// and project, pretty-printed as opencode writes it or compact; other JSON
// is not.
func TestSniffSessionFile(t *testing.T) {
	tests := []struct {
		head string
		want bool
	}{
		{"{\n  \"id\": \"ses_01\",\n  \"slug\": \"calm-fox\",\n  \"version\": \"1.0.200\",\n  \"projectID\": \"p1\",", true},
		{`{"id":"ses_01","projectID":"p1","directory":"/w"}`, true},
		{"{\n  \"id\": \"msg_01\",\n  \"sessionID\": \"ses_01\",\n  \"role\": \"user\"", false},
		{"{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": [", false},
		{`{"parentUuid":null,"sessionId":"ses_x","type":"user"}`, false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsSessionFile([]byte(tt.head)); got != tt.want {
			t.Errorf("IsSessionFile(%q) = %v, want %v", tt.head, got, tt.want)
		}
	}
}

// TestIsStorage: a folder is a storage folder when it has message/ and a
// session file that reads as one, not by its name.
func TestIsStorage(t *testing.T) {
	if !IsStorage(filepath.Join("testdata", "storage")) {
		t.Error("the fixture storage folder is not recognised")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "message"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "session", "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "session", "p", "x.json"), []byte(`{"name":"not a session"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if IsStorage(dir) {
		t.Error("a folder shaped like storage but without an opencode session file is taken for one")
	}
}
