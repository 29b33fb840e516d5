//go:build unix

package clai_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/cputime"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/synth"
)

// claiBenchProfile is a tool-heavy HTTP-engine history: thinking, tool
// calls with 12 KB results, summaries-free.
var claiBenchProfile = synth.ClaiProfile{Turns: 40, ToolCalls: 4, UserBytes: 1000, AssistantBytes: 3000,
	ToolBytes: 12000, ThinkingBytes: 2000}

// BenchmarkClaiLoad loads generated clai databases of 50 and 200 MB (and
// the sizes in CALIB_CLAI_BENCH_MB, e.g. "50,200,500"); MB/s is per byte of
// the database file. The databases are generated once per run, in a temp
// dir, before the timed sub-benchmarks.
//
//	go test ./corpus/ -run '^$' -bench BenchmarkClaiLoad -benchtime 3x
func BenchmarkClaiLoad(b *testing.B) {
	if testing.Short() {
		b.Skip("generates hundreds of MB")
	}
	sizes := []int{50, 200}
	if env := os.Getenv("CALIB_CLAI_BENCH_MB"); env != "" {
		sizes = nil
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("CALIB_CLAI_BENCH_MB: %v", err)
			}
			sizes = append(sizes, n)
		}
	}
	dir := b.TempDir()
	for _, mb := range sizes {
		path := filepath.Join(dir, fmt.Sprintf("%dMB", mb), "data.sqlite")
		p := claiBenchProfile
		// content_json is most of the file; the rest is ids, indexes and
		// page slack.
		p.TargetBytes = int64(mb) << 20 * 9 / 10
		if err := synth.WriteClai(path, p, uint64(mb)); err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			cpu0 := cputime.Now()
			for b.Loop() {
				ss, err := load.Load([]string{path}, corpus.Options{})
				if err != nil || len(ss) == 0 {
					b.Fatal(err)
				}
			}
			// The machine is shared: CPU time per byte is the figure that
			// does not depend on what else runs (2 cores: the decode runs
			// beside the SQLite scan, so wall time can be below it).
			cputime.ReportMBPerCPUSecond(b, float64(fi.Size())*float64(b.N), cpu0)
		})
	}
}
