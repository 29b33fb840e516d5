package jsonscan

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/calib-dev/calib/corpus/internal/cputime"
	"github.com/calib-dev/calib/corpus/realcorpus"
)

// BenchmarkSkipClaudeCodeReal runs the line scan (Skip: every string
// checked by StringEnd) over every line of the real Claude Code logs,
// whose tool outputs are what StringEnd spends its time on.
func BenchmarkSkipClaudeCodeReal(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(realcorpus.Dir(b, "claude-code"), "*.jsonl"))
	var lines [][]byte
	size := 0
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		size += len(data)
		lines = append(lines, bytes.Split(data, []byte("\n"))...)
	}
	b.SetBytes(int64(size))
	cpu0 := cputime.Now()
	for b.Loop() {
		for _, l := range lines {
			if len(l) == 0 {
				continue
			}
			s := Scanner{B: l}
			if !s.Skip() {
				b.Fatal(s.Err)
			}
		}
	}
	cputime.ReportMBPerCPUSecond(b, float64(size)*float64(b.N), cpu0)
}
