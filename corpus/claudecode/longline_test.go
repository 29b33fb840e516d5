package claudecode_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// Lines longer than the reader's 256 KB buffer (a tool result logged
// whole) load like any other: a 600 KB result arrives whole, and a broken
// 400 KB line is one warning naming its line and the byte where it breaks,
// the lines after it still read. The lines are written in the shape of
// the real 2.1.x logs (no real log here has a line over 129 KB).
func TestLongLines(t *testing.T) {
	line := func(v map[string]any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	base := func(typ, uuid, parent string, msg map[string]any) map[string]any {
		v := map[string]any{"type": typ, "uuid": uuid, "sessionId": "s-long", "version": "2.1.14", "cwd": "/p",
			"isSidechain": false, "userType": "external", "timestamp": "2026-01-28T20:00:00.000Z", "message": msg}
		if parent != "" {
			v["parentUuid"] = parent
		}
		return v
	}
	content := strings.Repeat(fmt.Sprintf("%-59s\n", "a line of a large file"), 10_000) // 600,000 bytes
	// A value, then a stray token where a comma or the closing brace
	// belongs: the message names the byte it stands at (1-based).
	head := `{"type":"user","uuid":"u9","message":{"role":"user","content":"` + strings.Repeat("x", 400_000) + `" `
	broken := head + `oops}}`
	lines := []string{
		line(base("user", "u1", "", map[string]any{"role": "user", "content": "read it"})),
		line(base("assistant", "a1", "u1", map[string]any{"id": "msg_1", "role": "assistant", "model": "claude-opus-4-5",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": map[string]any{"file_path": "/p/big.txt"}}}})),
		line(base("user", "u2", "a1", map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": content}}})),
		broken,
		line(base("assistant", "a2", "u2", map[string]any{"id": "msg_2", "role": "assistant", "model": "claude-opus-4-5",
			"content": []any{map[string]any{"type": "text", "text": "done"}}})),
	}
	s, _ := loadLines(t, "long.jsonl", lines)
	want := []string{fmt.Sprintf("4: invalid JSON (at byte %d: expected ',' or '}'); line skipped", len(head)+1)}
	if got := warnLines(s.Warnings); !reflect.DeepEqual(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
	var text string
	for _, m := range s.Messages {
		for _, b := range m.Blocks {
			if b.Kind == corpus.KindToolResult {
				text = b.Content()
			}
		}
	}
	if text != content {
		t.Errorf("the 600 KB result arrived as %d bytes, want %d", len(text), len(content))
	}
	if last := s.Messages[len(s.Messages)-1]; last.Role != corpus.RoleAssistant || last.Blocks[0].Text != "done" {
		t.Errorf("the line after the broken one was not read: last message %+v", last)
	}
}
