package jsonscan

import (
	"fmt"
	"runtime/debug"
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

// Lines longer than the reader's buffer are assembled whole, byte for
// byte, whether each is longer or shorter than the one before (the buffer
// that joins them is kept from line to line and grows when it must).
func TestStreamLinesJoinsLongLines(t *testing.T) {
	var want []string
	for i, n := range []int{300 << 10, 3 << 20, 700 << 10, 5<<20 + 17, 10, 1 << 20} {
		var b strings.Builder
		for b.Len() < n {
			fmt.Fprintf(&b, "%d:%d,", i, b.Len())
		}
		want = append(want, b.String()[:n])
	}
	var got []string
	err := StreamLines(strings.NewReader(strings.Join(want, "\n")+"\n"), func(_ int, line []byte, _ bool) error {
		got = append(got, string(line))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %d bytes differ from the %d written", i+1, len(got[i]), len(want[i]))
		}
	}
}

// BenchmarkStreamLinesLongLine streams one 64 MB line (a tool result
// logged whole, as Claude Code writes one): the pieces are joined in a
// buffer that doubles, its pages mapped before the copy. fresh returns
// the heap's free memory to the system before each line, as a command
// that reads one such file finds it: every page of the buffer is new, and
// a page fault that returns while the collector asks the goroutine to
// stop is where the signal lands.
func BenchmarkStreamLinesLongLine(b *testing.B) {
	in := strings.Repeat("0123456789abcdef", 4<<20) + "\n"
	for _, fresh := range []bool{false, true} {
		b.Run(fmt.Sprintf("fresh=%v", fresh), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if fresh {
					b.StopTimer()
					debug.FreeOSMemory()
					b.StartTimer()
				}
				n := 0
				if err := StreamLines(strings.NewReader(in), func(_ int, line []byte, _ bool) error {
					n += len(line)
					return nil
				}); err != nil || n != len(in)-1 {
					b.Fatal(n, err)
				}
			}
		})
	}
}
