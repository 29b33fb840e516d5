package gemini

import "testing"

// TestSniff: Gemini CLI records are recognised by their keys, and the
// records of the other formats (written from their documented shapes) are
// not, Claude Code's sessionId included.
func TestSniff(t *testing.T) {
	records := []struct {
		line string
		want bool
	}{
		{`{"sessionId":"s","projectHash":"p","startTime":"2026-01-05T09:00:00.000Z"}`, true},
		{`{"id":"u1","timestamp":"2026-01-05T09:00:01.000Z","type":"user","content":[{"text":"hi"}]}`, true},
		{`{"id":"g1","timestamp":"2026-01-05T09:00:01.000Z","type":"gemini","content":"","toolCalls":[]}`, true},
		{`{"$set":{"lastUpdated":"2026-01-05T09:00:01.000Z"}}`, true},
		{`{"$rewindTo":"u1"}`, true},
		{`{"id":"u1","timestamp":"2026-01-05T09:00:01.000Z","type":"tool_group","content":""}`, false},
		{`{"parentUuid":null,"isSidechain":false,"sessionId":"93f8","type":"user","message":{"role":"user","content":"hi"}}`, false},
		{`{"timestamp":"2025-12-28T12:18:30.533Z","type":"session_meta","payload":{"id":"019b"}}`, false},
		{`{"role":"user","content":[{"type":"text","text":"hi"}],"id":"3f9a0c51d2e87b46"}`, false},
		{`[1]`, false},
	}
	for _, r := range records {
		if got := IsRecord([]byte(r.line)); got != r.want {
			t.Errorf("IsRecord(%s) = %v, want %v", r.line, got, r.want)
		}
	}
	docs := []struct {
		head string
		want bool
	}{
		{"{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": [", true},
		{`{"sessionId":"s","projectHash":"p","startTime":"x","messages":[]}`, true},
		{`{"sessionId":"s","projectHash":"p","startTime":"x"}`, false}, // a JSONL first line: IsRecord's
		{"{\n  \"id\": \"ses_1\",\n  \"projectID\": \"p\"\n}", false},
		{"[\n]", false},
	}
	for _, d := range docs {
		if got := IsConversation([]byte(d.head)); got != d.want {
			t.Errorf("IsConversation(%q) = %v, want %v", d.head, got, d.want)
		}
	}
}
