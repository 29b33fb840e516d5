package claudecode

import (
	"bufio"
	"maps"
	"strings"
	"testing"
)

// markIn finds an id as a JSON string wherever the reader's buffer (16
// bytes here, the least bufio allows) cuts the text, and not inside a
// longer string, an escaped quote or a run longer than the buffer.
func TestMarkIn(t *testing.T) {
	text := `{"a":"toolu_near","content":"a long run of text that holds toolu_far and more",` +
		`"b":"toolu_split_over_the_buffer","c":"say \"toolu_esc\" here","d":["toolu_end"]}`
	strays := map[string]bool{"toolu_near": false, "toolu_far": false, "toolu_split_over": false,
		"toolu_esc": false, "toolu_end": false, "toolu_absent": false}
	markIn(bufio.NewReaderSize(strings.NewReader(text), 16), strays)
	want := map[string]bool{"toolu_near": true, "toolu_far": false, "toolu_split_over": false,
		"toolu_esc": false, "toolu_end": true, "toolu_absent": false}
	if !maps.Equal(strays, want) {
		t.Errorf("marked %v, want %v", strays, want)
	}
	// The same with a buffer that holds every run.
	for id := range strays {
		strays[id] = false
	}
	markIn(bufio.NewReaderSize(strings.NewReader(text), 4096), strays)
	if !maps.Equal(strays, want) {
		t.Errorf("with a large buffer: marked %v, want %v", strays, want)
	}
}
