package corpus

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCCEachLine(t *testing.T) {
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
		err := ccEachLine(strings.NewReader(tt.in), func(n int, line []byte, final bool) error {
			got = append(got, fmt.Sprintf("%d:%d:%v", n, len(line), final))
			return nil
		})
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%.20q: got %v (%v), want %v", tt.in, got, err, tt.want)
		}
	}
}
