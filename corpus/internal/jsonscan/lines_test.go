package jsonscan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestStreamLines(t *testing.T) {
	long := strings.Repeat("x", 700<<10) // longer than the reader's buffer
	tests := []struct {
		in   string
		want []string // "n:len:final"
	}{
		{"a\nbb\n", []string{"1:1:false", "2:2:false"}},
		{"a\r\n\n  \nccc", []string{"1:1:false", "4:3:true"}},
		{long + "\n" + long, []string{fmt.Sprintf("1:%d:false", len(long)), fmt.Sprintf("2:%d:true", len(long))}},
		{"", nil},
	}
	for _, tt := range tests {
		var got []string
		err := StreamLines(strings.NewReader(tt.in), func(n int, line []byte, final bool) error {
			got = append(got, fmt.Sprintf("%d:%d:%v", n, len(line), final))
			return nil
		})
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%.20q: got %v (%v), want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestForEachLine(t *testing.T) {
	tests := []struct {
		in   string
		want []string // "n:len:unterminated"
	}{
		{"a\nbb\n", []string{"1:1:false", "2:2:false"}},
		{"a\r\n\n  \nccc", []string{"1:2:false", "4:3:true"}}, // \r is JSON whitespace, left to the decoder
		{"", nil},
	}
	for _, tt := range tests {
		var got []string
		ForEachLine([]byte(tt.in), func(n int, line []byte, unterminated bool) {
			got = append(got, fmt.Sprintf("%d:%d:%v", n, len(line), unterminated))
			if cap(line) != len(line) {
				t.Errorf("line %d is not capped: appending to it would overwrite the next line", n)
			}
		})
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: got %v, want %v", tt.in, got, tt.want)
		}
	}
}

// A UTF-8 byte order mark (Windows editors write one) is dropped from the
// first line by both splitters, so that line is read rather than lost as
// invalid JSON; anywhere else it stays, and the line is invalid as before.
func TestSplittersDropLeadingBOM(t *testing.T) {
	in := "\xef\xbb\xbf{\"a\":1}\r\n\xef\xbb\xbf{\"b\":2}\n"
	want := []string{`{"a":1}`, "\xef\xbb\xbf{\"b\":2}"}
	var whole []string
	ForEachLine([]byte(in), func(n int, line []byte, _ bool) {
		whole = append(whole, strings.TrimRight(string(line), "\r"))
	})
	var streamed []string
	if err := StreamLines(strings.NewReader(in), func(n int, line []byte, _ bool) error {
		streamed = append(streamed, string(line))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]string{"ForEachLine": whole, "StreamLines": streamed} {
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
